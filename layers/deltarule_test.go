package layers

import (
	"fmt"
	"math"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/layers/naive"
)

func gdnGraph(scale float64, chunk int, inter InterChunk) func(x []*Node) []*Node {
	return func(x []*Node) []*Node {
		out, final := NewGatedDeltaRule(x[0], x[1], x[2], x[3], x[4]).InitialState(initial(x)).
			Scale(scale).Chunk(chunk).InterChunk(inter).Done()
		return []*Node{out, final}
	}
}

// TestGatedDeltaRuleChunkedMatchesReference: chunked WY form == the literal matrix recurrence for every T,
// chunk, initial state, inter-chunk method and dtype (unit keys, as GDN callers provide).
func TestGatedDeltaRuleChunkedMatchesReference(t *testing.T) {
	chunkedSweep(t, interChunks, func(t *testing.T, c sweepCase) {
		m := newMixerData(uint64(c.T*1000+c.chunk+1), naive.Dims{B: 2, T: c.T, H: 2, K: 8, V: 6},
			dataOpts{withState: c.withState, unitKeys: true})
		scale := DefaultScale(m.d.K)
		wantOut, wantFinal := naive.GatedDeltaRule(m.d, m.q, m.k, m.v, m.g, m.beta, m.s0, scale)
		got := mustExecGraph(t, c.dtype, gdnGraph(scale, c.chunk, c.inter), m.inputs()...)
		require.LessOrEqual(t, testutil.RelErr(got[0], wantOut), tolerance(c.dtype), "out")
		require.LessOrEqual(t, testutil.RelErr(got[1], wantFinal), tolerance(c.dtype), "final state")
	})
}

// TestGatedDeltaRuleHardCases: strong decay (g ≈ −20) and near-parallel keys (pairwise cosine ≈ 0.99, where
// the power-series in-chunk inverse loses everything in float32), with a full 64-token chunk.
func TestGatedDeltaRuleHardCases(t *testing.T) {
	cases := map[string]dataOpts{
		"strong-decay":  {withState: true, strongDecay: true, unitKeys: true},
		"near-parallel": {withState: true, nearParallel: true},
		"both":          {withState: true, nearParallel: true, strongDecay: true},
	}
	for name, opts := range cases {
		for _, dtype := range testDTypes {
			for _, inter := range interChunks {
				for _, chunk := range sweepChunks {
					t.Run(fmt.Sprintf("%s/%s/C=%d/%s", name, dtype, chunk, inter), func(t *testing.T) {
						m := newMixerData(17, naive.Dims{B: 1, T: 150, H: 2, K: 16, V: 8}, opts)
						if name == "near-parallel" {
							for i := range m.beta {
								m.beta[i] = 0.95 // strong writes make A's entries ≈ 1: the hardest solve
							}
						}
						wantOut, wantFinal := naive.GatedDeltaRule(m.d, m.q, m.k, m.v, m.g, m.beta, m.s0, 0.25)
						got := mustExecGraph(t, dtype, gdnGraph(0.25, chunk, inter), m.inputs()...)
						t.Logf("relative error: out %.2g, state %.2g", testutil.RelErr(got[0], wantOut), testutil.RelErr(got[1], wantFinal))
						require.LessOrEqual(t, testutil.RelErr(got[0], wantOut), tolerance(dtype), "out")
						require.LessOrEqual(t, testutil.RelErr(got[1], wantFinal), tolerance(dtype), "final state")
					})
				}
			}
		}
	}
}

// TestUnitLowerInverse checks T = (I + A)⁻¹ against forward substitution in float64 for chunk lengths that
// are and are not powers of two.
func TestUnitLowerInverse(t *testing.T) {
	for _, c := range []int{1, 2, 3, 5, 8, 13, 16, 64} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			r := newRand(uint64(c))
			const batch = 3
			a := make([]float64, batch*c*c)
			for b := range batch {
				for i := range c {
					for j := range i {
						a[(b*c+i)*c+j] = r.NormFloat64()
					}
				}
			}
			got := mustExecGraph(t, dtypes.Float64, func(x []*Node) []*Node { return []*Node{unitLowerInverse(x[0])} },
				in{a, []int{batch, c, c}})[0]
			want := make([]float64, len(a))
			for b := range batch {
				m := a[b*c*c : (b+1)*c*c]
				inv := want[b*c*c : (b+1)*c*c]
				for i := range c { // row i of T: e_i − Σ_{j<i} A_ij T_j
					inv[i*c+i] = 1
					for j := range i {
						for l := range c {
							inv[i*c+l] -= m[i*c+j] * inv[j*c+l]
						}
					}
				}
			}
			require.LessOrEqual(t, testutil.RelErr(got, want), 1e-12)
		})
	}
}

// TestGatedDeltaRuleStepMatchesChunked: GatedDeltaRuleStep token by token == the chunked form, and a
// two-part prefill with the state handed over == one pass.
func TestGatedDeltaRuleStepMatchesChunked(t *testing.T) {
	for _, dtype := range testDTypes {
		t.Run(dtype.String(), func(t *testing.T) {
			m := newMixerData(23, naive.Dims{B: 2, T: 21, H: 3, K: 5, V: 4}, dataOpts{withState: true, unitKeys: true})
			scale := 0.7
			steps := func(x []*Node) []*Node {
				state := initial(x)
				outs := make([]*Node, m.d.T)
				for i := range m.d.T {
					tok := func(n *Node) *Node { return Squeeze(SliceAxis(n, 1, AxisRange(i, i+1)), 1) }
					outs[i], state = GatedDeltaRuleStep(tok(x[0]), tok(x[1]), tok(x[2]), tok(x[3]), tok(x[4]), state, scale)
				}
				return []*Node{Stack(outs, 1), state}
			}
			got := mustExecGraph(t, dtype, steps, m.inputs()...)
			want := mustExecGraph(t, dtype, gdnGraph(scale, 8, Loop), m.inputs()...)
			require.LessOrEqual(t, testutil.RelErr(got[0], want[0]), tolerance(dtype))
			require.LessOrEqual(t, testutil.RelErr(got[1], want[1]), tolerance(dtype))
			// The chunked form fed one token at a time takes the step kernel: the very same values.
			oneTokenChunks := func(x []*Node) []*Node {
				state := initial(x)
				outs := make([]*Node, m.d.T)
				for i := range m.d.T {
					tok := func(n *Node) *Node { return SliceAxis(n, 1, AxisRange(i, i+1)) }
					outs[i], state = NewGatedDeltaRule(tok(x[0]), tok(x[1]), tok(x[2]), tok(x[3]), tok(x[4])).
						InitialState(state).Scale(scale).Chunk(8).Done()
				}
				return []*Node{Concatenate(outs, 1), state}
			}
			require.Equal(t, got, mustExecGraph(t, dtype, oneTokenChunks, m.inputs()...), "T = 1 is the step form")

			twoParts := func(x []*Node) []*Node {
				p := func(n *Node, from, to int) *Node { return SliceAxis(n, 1, AxisRange(from, to)) }
				o1, s1 := GatedDeltaRule(p(x[0], 0, 13), p(x[1], 0, 13), p(x[2], 0, 13), p(x[3], 0, 13), p(x[4], 0, 13), initial(x), scale, 4)
				o2, s2 := GatedDeltaRule(p(x[0], 13, 21), p(x[1], 13, 21), p(x[2], 13, 21), p(x[3], 13, 21), p(x[4], 13, 21), s1, scale, 4)
				return []*Node{Concatenate([]*Node{o1, o2}, 1), s2}
			}
			got = mustExecGraph(t, dtype, twoParts, m.inputs()...)
			require.LessOrEqual(t, testutil.RelErr(got[0], want[0]), tolerance(dtype))
			require.LessOrEqual(t, testutil.RelErr(got[1], want[1]), tolerance(dtype))
		})
	}
}

// TestGatedDeltaRuleGradient: gradients of the chunked form wrt q, k, v, g, β and s0 == central finite
// differences of the reference (float64, T = 10 with C = 4: three chunks, the last one padded).
func TestGatedDeltaRuleGradient(t *testing.T) {
	for _, inter := range interChunks {
		t.Run(inter.String(), func(t *testing.T) {
			m := newMixerData(29, naive.Dims{B: 1, T: 10, H: 2, K: 3, V: 2}, dataOpts{withState: true, unitKeys: true})
			scale := 0.6
			wOut := randn(newRand(3), len(m.q)/m.d.K*m.d.V, 1)
			wFinal := randn(newRand(4), len(m.s0), 1)
			loss := func() float64 {
				o, s := naive.GatedDeltaRule(m.d, m.q, m.k, m.v, m.g, m.beta, m.s0, scale)
				return dot(o, wOut) + dot(s, wFinal)
			}
			want := testutil.FiniteDiffGrad(loss, [][]float64{m.q, m.k, m.v, m.g, m.beta, m.s0}, 1e-6)
			ins := append(m.inputs(), in{wOut, []int{m.d.B, m.d.T, m.d.H, m.d.V}}, in{wFinal, []int{m.d.B, m.d.H, m.d.K, m.d.V}})
			got := mustExecGraph(t, dtypes.Float64, func(x []*Node) []*Node {
				out, final := NewGatedDeltaRule(x[0], x[1], x[2], x[3], x[4]).InitialState(x[5]).Scale(scale).
					Chunk(4).InterChunk(inter).Done()
				l := Add(ReduceAllSum(Mul(out, x[6])), ReduceAllSum(Mul(final, x[7])))
				return Gradient(l, x[0], x[1], x[2], x[3], x[4], x[5])
			}, ins...)
			for i, name := range []string{"q", "k", "v", "logDecay", "beta", "s0"} {
				require.LessOrEqual(t, testutil.RelErr(got[i], want[i]), 1e-6, "gradient of %s", name)
				require.False(t, math.IsNaN(got[i][0]))
			}
		})
	}
}
