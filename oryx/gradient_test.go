package oryx_test

import (
	"math"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/tensordata"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/infer"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// lossAndGrads builds loss = mean cross-entropy of next-token prediction over the parallel forward with the
// given modes, and returns the loss and its gradients with respect to the named parameters (scope paths).
func lossAndGrads(t *testing.T, m *oryx.Model, ctx *context.Context, tokens [][]int32, modes [][]oryx.Mode, params []string) (float64, [][]float64) {
	return lossAndGradsOf(t, m, ctx, tokens, modes, params, nil)
}

// lossAndGradsOf is lossAndGrads with the forward LogitsInMode(*only) when only is set (modes then unread).
func lossAndGradsOf(t *testing.T, m *oryx.Model, ctx *context.Context, tokens [][]int32, modes [][]oryx.Mode, params []string, only *oryx.Mode) (float64, [][]float64) {
	t.Helper()
	exec := newLossExec(t, m, ctx, params, only)
	defer exec.Finalize()
	return runLoss(t, exec, tokens, modes, len(params))
}

// newLossExec compiles the loss of lossAndGradsOf and its gradients with respect to params. The variables are
// the graph's inputs, read at every call: one compiled graph serves every perturbation of the weights (on
// XLA a compile costs seconds, a call milliseconds).
func newLossExec(t *testing.T, m *oryx.Model, ctx *context.Context, params []string, only *oryx.Mode) *context.Exec {
	t.Helper()
	exec, err := context.NewExec(backend.MustGet(), ctx, func(ctx *context.Context, tok, md *Node) []*Node {
		n := tok.Shape().Dimensions[1]
		var logits *Node
		if only != nil {
			logits = m.LogitsInMode(ctx, tok, *only)
		} else {
			logits = m.Logits(ctx, tok, m.ModesOrNil(md))
		}
		inputs := SliceAxis(logits, 1, AxisRange(0, n-1))
		targets := SliceAxis(tok, 1, AxisRange(1, n))
		logp := Sub(inputs, ReduceAndKeep(inputs, ReduceMax, -1))
		logp = Sub(logp, Log(ReduceAndKeep(Exp(logp), ReduceSum, -1)))
		onehot := OneHot(targets, m.Config.Vocab, logp.DType())
		loss := Neg(ReduceAllMean(ReduceSum(Mul(logp, onehot), -1)))
		nodes := make([]*Node, len(params))
		for i, p := range params {
			nodes[i] = ctx.GetVariableByScopeAndName(p, "weight").ValueGraph(tok.Graph())
		}
		return append([]*Node{loss}, Gradient(loss, nodes...)...)
	})
	require.NoError(t, err)
	return exec
}

// runLoss runs a newLossExec graph on tokens [B, N] and modes (all linear when nil): the loss and the
// gradients of its nParams parameters.
func runLoss(t *testing.T, exec *context.Exec, tokens [][]int32, modes [][]oryx.Mode, nParams int) (float64, [][]float64) {
	t.Helper()
	b, n := len(tokens), len(tokens[0])
	if modes == nil {
		modes = oryxtest.ConstModes(b, n, oryx.Linear)
	}
	outs, err := exec.Exec(tensors.FromFlatDataAndDimensions(oryxtest.FlatInt32(tokens), b, n),
		tensors.FromFlatDataAndDimensions(oryxtest.FlatInt32(modes), b, n))
	require.NoError(t, err)
	grads := make([][]float64, nParams)
	for i := range grads {
		grads[i] = tensordata.Float64s(outs[i+1])
	}
	return tensordata.Float64s(outs[0])[0], grads
}

// TestGradientsMatchFiniteDifferences (float64, tiny model, switching modes): the gradient of the LM loss with
// respect to parameters on every path — shared K/V, both queries, the linear gates, the output and MLP —
// equals central finite differences of the loss. Both multi-mixer variants on both backends: with the loss
// compiled once for all perturbations a case costs two compiles on XLA.
func TestGradientsMatchFiniteDifferences(t *testing.T) {
	for _, v := range []oryx.Variant{oryx.OryxTG, oryx.OryxTM} {
		t.Run(string(v), func(t *testing.T) {
			cfg := oryxtest.Config(v)
			cfg.Layers = 1
			checkGradientsMatchFiniteDifferences(t, cfg)
		})
	}
}

// checkGradientsMatchFiniteDifferences is TestGradientsMatchFiniteDifferences on a model of cfg (a
// multi-mixer variant).
func checkGradientsMatchFiniteDifferences(t *testing.T, cfg oryx.Config) {
	m, ctx := oryxtest.NewModel(t, cfg)
	tokens := oryxtest.RandomTokens(11, 2, 9, cfg.Vocab)
	modes := oryxtest.SwitchingModes(12, 2, 9)
	params := []string{"/layer_000/wk", "/layer_000/wv", "/layer_000/wq_attn", "/layer_000/wq_linear",
		"/layer_000/conv_k", "/layer_000/a_log", "/layer_000/dt_bias", "/layer_000/wo", "/layer_000/mlp_up"}
	loss, grads := lossAndGrads(t, m, ctx, tokens, modes, params)
	require.False(t, math.IsNaN(loss))
	// The loss alone, compiled once for the 2 × 3 × len(params) perturbed evaluations below.
	lossOnly := newLossExec(t, m, ctx, nil, nil)
	defer lossOnly.Finalize()
	for i, p := range params {
		v := ctx.GetVariableByScopeAndName(p, "weight")
		value, err := v.Value()
		require.NoError(t, err)
		flat := tensors.MustCopyFlatData[float64](value)
		dims := value.Shape().Clone().Dimensions // SetValue below finalizes value
		// A few entries per parameter keep the test fast.
		for _, j := range []int{0, len(flat) / 2, len(flat) - 1} {
			const eps = 1e-6
			perturb := func(delta float64) float64 {
				x := append([]float64(nil), flat...)
				x[j] += delta
				require.NoError(t, v.SetValue(tensors.FromFlatDataAndDimensions(x, dims...)))
				l, _ := runLoss(t, lossOnly, tokens, modes, 0)
				return l
			}
			fd := testutil.CentralDiff(perturb, eps)
			require.NoError(t, v.SetValue(tensors.FromFlatDataAndDimensions(flat, dims...)))
			require.InDelta(t, fd, grads[i][j], 1e-6*max(1, math.Abs(fd)), "d loss / d %s[%d]", p, j)
		}
	}
}

// TestQueryGradientsFollowModes: W_QA gets no gradient when no token is in attention mode, and W_QR none when
// no token is in linear mode; the shared K/V get gradients in both cases.
func TestQueryGradientsFollowModes(t *testing.T) {
	m, ctx := oryxtest.NewModel(t, oryxtest.Config(oryx.OryxTG))
	tokens := oryxtest.RandomTokens(13, 2, 9, m.Config.Vocab)
	params := []string{"/layer_000/wq_attn", "/layer_000/wq_linear", "/layer_000/wk"}
	norm := func(x []float64) (s float64) {
		for _, v := range x {
			s += v * v
		}
		return math.Sqrt(s)
	}
	_, linear := lossAndGrads(t, m, ctx, tokens, oryxtest.ConstModes(2, 9, oryx.Linear), params)
	require.Zero(t, norm(linear[0]), "W_QA gradient with all-linear modes")
	require.Positive(t, norm(linear[1]))
	require.Positive(t, norm(linear[2]))
	_, attn := lossAndGrads(t, m, ctx, tokens, oryxtest.ConstModes(2, 9, oryx.Attention), params)
	require.Positive(t, norm(attn[0]))
	require.Zero(t, norm(attn[1]), "W_QR gradient with all-attention modes")
	require.Positive(t, norm(attn[2]))
}

// TestFloat32MatchesFloat64: the float32 model (same weights) is within 1e-4 of float64 on the parallel
// forward and on token-by-token decoding.
func TestFloat32MatchesFloat64(t *testing.T) {
	const b, n = 2, 12
	for _, v := range oryxtest.SweepVariants() {
		t.Run(string(v), func(t *testing.T) {
			m64, ctx := oryxtest.NewModel(t, oryxtest.Config(v))
			tokens := oryxtest.RandomTokens(21, b, n, m64.Config.Vocab)
			modes := oryxtest.ModesFor(m64, oryxtest.SwitchingModes(22, b, n))
			want := oryxtest.ParallelLogits(t, m64, ctx, tokens, modes)

			// Same weights in float32.
			ctx32 := context.New()
			for variable := range ctx.IterVariables() {
				value, err := variable.Value()
				require.NoError(t, err)
				if value.DType() != dtypes.Float64 { // e.g. the initialisers' RNG state
					continue
				}
				x := tensors.MustCopyFlatData[float64](value)
				f := make([]float32, len(x))
				for i, e := range x {
					f[i] = float32(e)
				}
				ctx32.InAbsPath(variable.Scope()).VariableWithValue(variable.Name(),
					tensors.FromFlatDataAndDimensions(f, value.Shape().Dimensions...))
			}
			m32, err := oryx.New(m64.Config)
			require.NoError(t, err)
			require.Equal(t, dtypes.Float32, m32.DType)
			got := oryxtest.ParallelLogits(t, m32, ctx32, tokens, modes)
			for r := range b {
				require.LessOrEqual(t, testutil.RelErr(got[r], want[r]), 1e-4, "parallel, row %d", r)
			}
			e, err := infer.NewEngine(backend.MustGet(), ctx32, m32, b, n)
			require.NoError(t, err)
			for i := range n {
				var md []oryx.Mode
				if modes != nil {
					md = []oryx.Mode{modes[0][i], modes[1][i]}
				}
				_, err := e.Step([]int32{tokens[0][i], tokens[1][i]}, md)
				require.NoError(t, err)
				for r := range b {
					require.LessOrEqual(t, testutil.RelErr(e.LastLogits()[r], want[r][i*m64.Config.Vocab:(i+1)*m64.Config.Vocab]), 1e-4)
				}
			}
		})
	}
}

// TestModelParamsMatchReport: the variables the model creates are exactly what CountParams predicts.
func TestModelParamsMatchReport(t *testing.T) {
	for _, v := range oryxtest.SweepVariants() {
		for _, preset := range testutil.Sweep([]string{"tiny", "small"}, 1) {
			cfg, err := oryx.Preset(preset, v)
			require.NoError(t, err)
			m, ctx := oryxtest.NewModel(t, cfg)
			_ = oryxtest.ParallelLogits(t, m, ctx, [][]int32{{1, 2}}, oryxtest.ModesFor(m, [][]oryx.Mode{{0, 1}}))
			require.Equal(t, oryx.CountParams(cfg), oryx.ReportFromContext(ctx), "%s %s", preset, v)
		}
	}
}

// TestLogitsInModeEqualsUniformModes: the single-readout forward (training with p = 1 or 0) has the loss and
// the gradients — every parameter's, the other readout's query included (zero both ways) — of the full
// forward with every token in that mode.
func TestLogitsInModeEqualsUniformModes(t *testing.T) {
	for _, v := range testutil.Sweep([]oryx.Variant{oryx.OryxTG, oryx.OryxTM}, 1) {
		for _, mode := range []oryx.Mode{oryx.Attention, oryx.Linear} {
			t.Run(string(v)+"/"+mode.String(), func(t *testing.T) {
				m, ctx := oryxtest.NewModel(t, oryxtest.Config(v))
				tokens := oryxtest.RandomTokens(21, 2, 11, m.Config.Vocab)
				lossAndGrads(t, m, ctx, tokens, nil, nil) // creates the variables
				var params []string
				for v := range ctx.IterVariables() {
					if v.Trainable && v.Name() == "weight" {
						params = append(params, v.Scope())
					}
				}
				require.Greater(t, len(params), 10)
				want, wantGrads := lossAndGradsOf(t, m, ctx, tokens, oryxtest.ConstModes(2, 11, mode), params, nil)
				got, gotGrads := lossAndGradsOf(t, m, ctx, tokens, nil, params, &mode)
				require.InDelta(t, want, got, 1e-12*want)
				unused := "/layer_000/wq_linear"
				if mode == oryx.Linear {
					unused = "/layer_000/wq_attn"
				}
				require.Contains(t, params, unused)
				for i, p := range params {
					require.LessOrEqual(t, testutil.RelErr(gotGrads[i], wantGrads[i]), 1e-10, "d loss / d %s", p)
					if p == unused {
						for _, g := range gotGrads[i] {
							require.Zero(t, g, "the unread readout's query %s", p)
						}
					}
				}
			})
		}
	}
	m, _ := oryxtest.NewModel(t, oryxtest.Config(oryx.GDN))
	require.Panics(t, func() {
		g := NewGraph(backend.MustGet(), "x")
		m.LogitsInMode(context.New(), Parameter(g, "t", oryx.ShapeInt(1, 3)), oryx.Attention)
	}, "GDN has no attention readout")
}
