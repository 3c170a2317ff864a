package train

import (
	"math"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/require"
)

// bf16LossTol bounds the relative difference between the bf16 and the float32 run's train loss at every
// step of a 10-step tiny run. bfloat16 keeps 8 bits of mantissa (relative rounding 2^-9 ≈ 2e-3 per
// operation); through two layers, the softmax and the cross-entropy the loss moves by a few 1e-3, and the
// updates (Adam on float32 masters, from bf16 gradients) keep the runs close over 10 steps. Measured: see the
// test's log line.
const bf16LossTol = 0.02

// TestBF16TracksFloat32: the tiny Oryx-TG recipe trained for 10 steps with --precision bf16 (bf16 compute,
// float32 master weights and moments) has a loss curve within bf16LossTol of the float32 run's, different
// from it (the bf16 path is really taken), and its checkpoint holds float32 weights.
func TestBF16TracksFloat32(t *testing.T) {
	dirs := map[string]string{}
	for _, p := range []string{"f32", "bf16"} {
		dirs[p] = t.TempDir()
		r := tinyRun(t, oryx.OryxTG, dirs[p])
		r.Train.Steps, r.Train.EvalEvery, r.Train.EvalBatches, r.Train.Precision = 10, 0, 0, p
		_, err := Train(r)
		require.NoError(t, err, p)
	}
	f32, bf16 := trainLosses(t, dirs["f32"]), trainLosses(t, dirs["bf16"])
	require.Len(t, bf16, 10)
	worst, same := 0.0, true
	for i := range f32 {
		worst = math.Max(worst, math.Abs(bf16[i]-f32[i])/f32[i])
		same = same && bf16[i] == f32[i]
	}
	t.Logf("bf16 vs f32 over 10 steps: worst relative loss difference %.2e (final %.4f vs %.4f)", worst, bf16[9], f32[9])
	require.False(t, same, "bf16 losses equal the float32 ones bit for bit: the bf16 path was not taken")
	require.LessOrEqual(t, worst, bf16LossTol)
	require.Less(t, bf16[9], bf16[0], "the bf16 loss falls")

	_, ctx, err := oryx.LoadCheckpoint(dirs["bf16"], nil)
	require.NoError(t, err)
	n := 0
	for v := range ctx.IterVariables() {
		if oryx.IsModelParam(v.ScopeAndName()) {
			require.Equal(t, dtypes.Float32, v.Shape().DType, "%s: master weights stay float32", v.ScopeAndName())
			n++
		}
	}
	require.Greater(t, n, 10)
}
