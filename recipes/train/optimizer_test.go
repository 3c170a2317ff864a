package train

import (
	"fmt"
	"math"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/stretchr/testify/require"
)

// TestAdamWMatchesReference runs three AdamW updates in the graph on two parameters (one decayed, one a
// norm gain that is not) and compares them with the formula computed in float64 in Go, including a
// skipped update (ok = false) that must leave parameters, moments and the update counter untouched.
func TestAdamWMatchesReference(t *testing.T) {
	be := backend.MustGet()
	cfg := TrainConfig{Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.1}
	ctx := context.New()
	w := ctx.In("layer_000").In("wk").VariableWithValue("weight", []float32{0.5, -1, 2})
	nrm := ctx.In("layer_000").In("attn_norm").VariableWithValue("weight", []float32{1, 1, 1})
	require.True(t, DecayParam(w.ScopeAndName()))
	require.False(t, DecayParam(nrm.ScopeAndName()))
	exec, err := context.NewExec(be, ctx, func(ctx *context.Context, g1, g2, lr, ok *Node) *Node {
		adamWUpdate(ctx, cfg, []*context.Variable{w, nrm}, []*Node{g1, g2}, lr, ok)
		return updatesVar(ctx).ValueGraph(g1.Graph())
	})
	require.NoError(t, err)

	theta := [][]float64{{0.5, -1, 2}, {1, 1, 1}}
	m := [][]float64{make([]float64, 3), make([]float64, 3)}
	v := [][]float64{make([]float64, 3), make([]float64, 3)}
	grads := [][][]float64{
		{{0.1, -0.2, 0.3}, {1, 0, -1}},
		{{0.5, 0.5, -0.5}, {0.2, 0.1, 0}},
		{{-0.3, 0.1, 0.2}, {-1, 2, 0.5}},
	}
	oks := []bool{true, false, true}
	lrs := []float64{1e-2, 5e-3, 2e-3}
	updates := 0
	for step := range grads {
		out, err := exec.Exec(toF32(grads[step][0]), toF32(grads[step][1]), tensors.FromScalar(float32(lrs[step])),
			tensors.FromScalar(oks[step]))
		require.NoError(t, err)
		if oks[step] {
			updates++
			for p := range theta {
				for i := range theta[p] {
					gr := grads[step][p][i]
					m[p][i] = cfg.Beta1*m[p][i] + (1-cfg.Beta1)*gr
					v[p][i] = cfg.Beta2*v[p][i] + (1-cfg.Beta2)*gr*gr
					mh := m[p][i] / (1 - math.Pow(cfg.Beta1, float64(updates)))
					vh := v[p][i] / (1 - math.Pow(cfg.Beta2, float64(updates)))
					upd := mh / (math.Sqrt(vh) + cfg.Eps)
					if p == 0 {
						upd += cfg.WeightDecay * theta[p][i]
					}
					theta[p][i] -= lrs[step] * upd
				}
			}
		}
		require.Equal(t, int64(updates), out[0].Value().(int64), "update counter after step %d", step)
		for p, vr := range []*context.Variable{w, nrm} {
			got := vr.MustValue().Value().([]float32)
			for i := range got {
				require.InDelta(t, theta[p][i], float64(got[i]), 1e-6, "step %d param %d[%d]", step, p, i)
			}
		}
	}
}

func toF32(x []float64) *tensors.Tensor {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return tensors.FromValue(out)
}

// TestClipByGlobalNorm: the norm is over all gradients together; above the limit every gradient is scaled
// by the same factor, below it nothing changes.
func TestClipByGlobalNorm(t *testing.T) {
	be := backend.MustGet()
	for _, tc := range []struct{ max, wantScale float64 }{{1, 1.0 / 13}, {20, 1}, {0, 1}} {
		exec, err := NewExec(be, func(a, b *Node) []*Node {
			c, n := clipByGlobalNorm([]*Node{a, b}, tc.max)
			return []*Node{c[0], c[1], n}
		})
		require.NoError(t, err)
		out, err := exec.Exec([]float32{3, 4}, []float32{12}) // ‖g‖ = 13
		require.NoError(t, err)
		require.InDelta(t, 13, out[2].Value().(float32), 1e-5)
		require.InDeltaSlice(t, []float32{float32(3 * tc.wantScale), float32(4 * tc.wantScale)}, out[0].Value().([]float32), 1e-6)
		require.InDeltaSlice(t, []float32{float32(12 * tc.wantScale)}, out[1].Value().([]float32), 1e-6)
	}
}

func TestDecayParamSet(t *testing.T) {
	for path, want := range map[string]bool{
		"/embeddings/embeddings":       true,
		"/layer_001/wq_attn/weight":    true,
		"/layer_001/conv_k/weight":     true,
		"/layer_001/mlp_down/weight":   true,
		"/layer_001/attn_norm/weight":  false,
		"/layer_001/mlp_norm/weight":   false,
		"/layer_001/out_norm/weight":   false,
		"/final_norm/weight":           false,
		"/layer_001/a_log/weight":      false,
		"/layer_001/dt_bias/weight":    false,
		"/layer_001/d_skip/weight":     false,
		"/layer_001/decay_proj/weight": true,
	} {
		require.Equal(t, want, DecayParam(path), path)
	}
}

func TestLearningRateSchedule(t *testing.T) {
	c := TrainConfig{LR: 1e-3, MinLRRatio: 0.1, WarmupSteps: 4, Steps: 14}
	require.InDelta(t, 0.25e-3, c.LearningRate(0), 1e-12)
	require.InDelta(t, 1e-3, c.LearningRate(3), 1e-12)                                 // end of warm-up: the peak
	require.InDelta(t, 1e-3, c.LearningRate(4), 1e-12)                                 // cosine starts at the peak
	require.InDelta(t, 1e-4+0.45e-3*(1+math.Cos(math.Pi/3)), c.LearningRate(7), 1e-12) // p = 3/9
	require.InDelta(t, 1e-4, c.LearningRate(13), 1e-12)                                // last step: the floor
	for s := 4; s < 13; s++ {
		require.Greater(t, c.LearningRate(s), c.LearningRate(s+1), "monotone decay at %d", s)
	}
	// Constant: the same warm-up, then the peak to the end.
	c.LRSchedule = LRConstant
	require.InDelta(t, 0.25e-3, c.LearningRate(0), 1e-12)
	for s := 3; s < 14; s++ {
		require.Equal(t, 1e-3, c.LearningRate(s), "step %d", s)
	}
	c.LRSchedule = "linear"
	require.ErrorContains(t, c.WithDefaults().Validate(), "lr_schedule")
	c.LRSchedule, c.ModeTraining = "", "both"
	require.ErrorContains(t, c.WithDefaults().Validate(), "mode_training")
	// The objective's name before "block-random", in older run.json files, reads as it (such runs resume).
	c.ModeTraining = "mixed"
	require.Equal(t, ModeTrainingBlockRandom, c.WithDefaults().ModeTraining)
	require.NotContains(t, fmt.Sprint(c.WithDefaults().Validate()), "mode_training")
}
