package train

import (
	"fmt"
	"math"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/require"
)

// dataParallelTolerance bounds how far a data-parallel run may drift from the one-device run of the same
// global batch. The computation is the same; only the order of float32 sums changes (each device reduces its
// shard, then the gradients are all-reduced), which Adam's normalisation amplifies a little over the steps.
// Measured on XLA CPU (xla-cpu-pjrt 0.0.1): see the log lines of the test.
const (
	dpLossTol   = 1e-4 // relative, per logged train loss
	dpWeightTol = 1e-3 // ‖Δw‖ / ‖w‖ over all parameters after the run (maxWeightDiff)
)

// TestDataParallelMatchesOneDevice trains the tiny Oryx-TG recipe for 10 steps on 1, 2 and 4 devices (global
// batch 8 in micro-batches of 4, so every device count divides the micro-batch) and checks the loss curves
// and the final weights agree within float32 reassociation. It needs a backend with 4 devices: XLA CPU with
// XLA_FLAGS=--xla_force_host_platform_device_count=4 (`make test-xla` sets it).
func TestDataParallelMatchesOneDevice(t *testing.T) {
	be := backend.MustGet()
	if be.NumDevices() < 4 {
		t.Skipf("backend %s has %d device(s); data-parallel needs 4 (make test-xla: XLA CPU with "+
			"XLA_FLAGS=--xla_force_host_platform_device_count=4)", be.Name(), be.NumDevices())
	}
	dirs := map[int]string{}
	for _, n := range []int{1, 2, 4} {
		dirs[n] = t.TempDir()
		r := dpRun(t, dirs[n], n)
		s, err := Train(r)
		require.NoError(t, err, "devices %d", n)
		require.Equal(t, 10, s.Steps)
	}
	ref := trainLosses(t, dirs[1])
	require.Len(t, ref, 10)
	for _, n := range []int{2, 4} {
		got := trainLosses(t, dirs[n])
		worst := 0.0
		for i := range ref {
			worst = math.Max(worst, math.Abs(got[i]-ref[i])/math.Abs(ref[i]))
		}
		t.Logf("devices %d vs 1: worst relative train-loss difference %.2e", n, worst)
		require.LessOrEqual(t, worst, dpLossTol, "devices %d: loss curve %v vs %v", n, got, ref)
		require.LessOrEqual(t, maxWeightDiff(t, dirs[1], dirs[n]), dpWeightTol, "devices %d: final weights", n)
	}
	require.Less(t, ref[9], ref[0], "the loss falls")

	// Resume across a device-count change: the 4-device run, cut after step 5 (checkpoint at 4), resumes on 2
	// devices at step 4 with the same data and optimizer state and ends where the 4-device run ended, within
	// the same reassociation tolerance (not bit for bit: the summation order changed).
	cut := t.TempDir()
	r := dpRun(t, cut, 4)
	_, err := train(r, &testControl{stopAfter: 5})
	require.ErrorIs(t, err, errSimulatedKill)
	s, err := Train(dpRun(t, cut, 2))
	require.NoError(t, err)
	require.Equal(t, 4, s.ResumedAt)
	got, want := trainLosses(t, cut), trainLosses(t, dirs[4])
	for i := range want {
		require.InEpsilon(t, want[i], got[i], dpLossTol, "resumed on 2 devices, step %d", i+1)
	}
	require.LessOrEqual(t, maxWeightDiff(t, dirs[4], cut), dpWeightTol)
}

func dpRun(t testing.TB, out string, devices int) Run {
	r := tinyRun(t, oryx.OryxTG, out)
	r.Name = fmt.Sprintf("test-dp-%d", devices)
	r.Train.Batch, r.Train.MicroBatch, r.Train.Steps, r.Train.Devices = 8, 4, 10, devices
	r.Train.CheckpointEvery, r.Train.EvalEvery, r.Train.EvalBatches = 2, 5, 1
	return r
}

// maxWeightDiff is the relative L2 distance ‖a − b‖ / ‖a‖ between two runs' last checkpoints over all
// float parameters together (the model's and Adam's moments are compared the same way). A global norm, not
// an elementwise maximum: Adam moves every weight by about the learning rate whatever its gradient, so a
// weight whose gradient is ~0 can take a step of either sign when the summation order changes its last bits;
// such weights are few and their steps small, and the norm weighs them as they matter.
func maxWeightDiff(t *testing.T, a, b string) float64 {
	_, ca, err := oryx.LoadCheckpoint(a, nil)
	require.NoError(t, err)
	_, cb, err := oryx.LoadCheckpoint(b, nil)
	require.NoError(t, err)
	var diff2, norm2 float64
	worst, worstName := 0.0, ""
	for v := range ca.IterVariables() {
		w := cb.GetVariableByScopeAndName(v.Scope(), v.Name())
		require.NotNil(t, w, v.ScopeAndName())
		x, y := flatFloat64(t, v.MustValue()), flatFloat64(t, w.MustValue())
		require.Len(t, y, len(x), v.ScopeAndName())
		var d2, n2 float64
		for i := range x {
			d2 += (x[i] - y[i]) * (x[i] - y[i])
			n2 += x[i] * x[i]
		}
		diff2, norm2 = diff2+d2, norm2+n2
		if n2 > 0 && math.Sqrt(d2/n2) > worst {
			worst, worstName = math.Sqrt(d2/n2), v.ScopeAndName()
		}
	}
	t.Logf("weights: relative L2 distance %.2e over all parameters; largest for one variable %.2e (%s)",
		math.Sqrt(diff2/norm2), worst, worstName)
	return math.Sqrt(diff2 / norm2)
}

func flatFloat64(t *testing.T, x *tensors.Tensor) []float64 {
	var out []float64
	require.NoError(t, x.ConstFlatData(func(flat any) {
		switch f := flat.(type) {
		case []float32:
			for _, v := range f {
				out = append(out, float64(v))
			}
		case []float64:
			out = append(out, f...)
		default: // integer counters (the global step): compared as weights are not
		}
	}))
	return out
}
