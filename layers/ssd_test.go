package layers

import (
	"fmt"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/layers/naive"
)

var (
	sweepT      = []int{100, 7, 1, 64, 300} // -short (the XLA suite) keeps the first two: several chunks with a partial last one, and one partial chunk
	sweepChunks = []int{16, 64}
	interChunks = []InterChunk{Loop, Scan} // every method of both chunked mixers
	// ssdInterChunks adds the SSD-only dense chunk-segsum.
	ssdInterChunks = []InterChunk{Loop, Scan, Dense}
	testDTypes     = []dtypes.DType{dtypes.Float64, dtypes.Float32}
)

func ssdGraph(chunk int, inter InterChunk) func(x []*Node) []*Node {
	return func(x []*Node) []*Node {
		out, final := NewSSD(x[0], x[1], x[2], x[3]).InitialState(initial(x)).Chunk(chunk).InterChunk(inter).Done()
		return []*Node{out, final}
	}
}

// sweepCase is one configuration of the chunked-form sweep.
type sweepCase struct {
	dtype     dtypes.DType
	T, chunk  int
	withState bool
	inter     InterChunk
}

// chunkedSweep runs check as a subtest for every dtype, T, chunk, initial state and inter-chunk method of
// methods.
func chunkedSweep(t *testing.T, methods []InterChunk, check func(t *testing.T, c sweepCase)) {
	for _, dtype := range testDTypes {
		for _, T := range testutil.Sweep(sweepT, 2) {
			for _, chunk := range sweepChunks {
				for _, withState := range []bool{false, true} {
					for _, inter := range methods {
						c := sweepCase{dtype, T, chunk, withState, inter}
						t.Run(fmt.Sprintf("%s/T=%d/C=%d/s0=%v/%s", dtype, T, chunk, withState, inter),
							func(t *testing.T) { check(t, c) })
					}
				}
			}
		}
	}
}

// TestSSDChunkedMatchesReference: the chunked form == the token loop for every T, chunk, initial state,
// inter-chunk method and dtype.
func TestSSDChunkedMatchesReference(t *testing.T) {
	chunkedSweep(t, ssdInterChunks, func(t *testing.T, c sweepCase) {
		m := newMixerData(uint64(c.T*1000+c.chunk), naive.Dims{B: 2, T: c.T, H: 2, K: 8, V: 6}, dataOpts{withState: c.withState})
		wantOut, wantFinal := naive.SSD(m.d, m.q, m.k, m.v, m.g, m.s0)
		got := mustExecGraph(t, c.dtype, ssdGraph(c.chunk, c.inter), m.inputs()...)
		require.LessOrEqual(t, testutil.RelErr(got[0], wantOut), tolerance(c.dtype), "out")
		require.LessOrEqual(t, testutil.RelErr(got[1], wantFinal), tolerance(c.dtype), "final state")
	})
}

// TestSSDStrongDecay: g ≈ −20 (e^g ≈ 2e-9) overflows any implementation that factors Γ_ij = e^{b_i}·e^{−b_j}.
func TestSSDStrongDecay(t *testing.T) {
	for _, dtype := range testDTypes {
		for _, inter := range ssdInterChunks {
			for _, chunk := range sweepChunks {
				t.Run(fmt.Sprintf("%s/C=%d/%s", dtype, chunk, inter), func(t *testing.T) {
					m := newMixerData(3, naive.Dims{B: 1, T: 100, H: 2, K: 8, V: 4}, dataOpts{withState: true, strongDecay: true})
					wantOut, wantFinal := naive.SSD(m.d, m.q, m.k, m.v, m.g, m.s0)
					got := mustExecGraph(t, dtype, ssdGraph(chunk, inter), m.inputs()...)
					require.LessOrEqual(t, testutil.RelErr(got[0], wantOut), tolerance(dtype))
					require.LessOrEqual(t, testutil.RelErr(got[1], wantFinal), tolerance(dtype))
				})
			}
		}
	}
}

// TestSSDStepMatchesChunked: SSDStep applied token by token (unrolled in one graph) == the chunked form,
// and the two-part prefill (state handed over) == one pass.
func TestSSDStepMatchesChunked(t *testing.T) {
	for _, dtype := range testDTypes {
		t.Run(dtype.String(), func(t *testing.T) {
			m := newMixerData(11, naive.Dims{B: 2, T: 19, H: 3, K: 5, V: 4}, dataOpts{withState: true})
			steps := func(x []*Node) []*Node {
				state := initial(x)
				outs := make([]*Node, m.d.T)
				for i := range m.d.T {
					tok := func(n *Node) *Node { return Squeeze(SliceAxis(n, 1, AxisRange(i, i+1)), 1) }
					outs[i], state = SSDStep(tok(x[0]), tok(x[1]), tok(x[2]), tok(x[3]), state)
				}
				return []*Node{Stack(outs, 1), state}
			}
			got := mustExecGraph(t, dtype, steps, m.inputs()...)
			want := mustExecGraph(t, dtype, ssdGraph(8, Loop), m.inputs()...)
			require.LessOrEqual(t, testutil.RelErr(got[0], want[0]), tolerance(dtype))
			require.LessOrEqual(t, testutil.RelErr(got[1], want[1]), tolerance(dtype))
			// The chunked form fed one token at a time takes the step kernel: the very same values.
			oneTokenChunks := func(x []*Node) []*Node {
				state := initial(x)
				outs := make([]*Node, m.d.T)
				for i := range m.d.T {
					tok := func(n *Node) *Node { return SliceAxis(n, 1, AxisRange(i, i+1)) }
					outs[i], state = NewSSD(tok(x[0]), tok(x[1]), tok(x[2]), tok(x[3])).InitialState(state).Chunk(8).Done()
				}
				return []*Node{Concatenate(outs, 1), state}
			}
			require.Equal(t, got, mustExecGraph(t, dtype, oneTokenChunks, m.inputs()...), "T = 1 is the step form")

			twoParts := func(x []*Node) []*Node {
				split := func(n *Node, from, to int) *Node { return SliceAxis(n, 1, AxisRange(from, to)) }
				o1, s1 := SSD(split(x[0], 0, 11), split(x[1], 0, 11), split(x[2], 0, 11), split(x[3], 0, 11), initial(x), 4)
				o2, s2 := SSD(split(x[0], 11, 19), split(x[1], 11, 19), split(x[2], 11, 19), split(x[3], 11, 19), s1, 4)
				return []*Node{Concatenate([]*Node{o1, o2}, 1), s2}
			}
			got = mustExecGraph(t, dtype, twoParts, m.inputs()...)
			require.LessOrEqual(t, testutil.RelErr(got[0], want[0]), tolerance(dtype))
			require.LessOrEqual(t, testutil.RelErr(got[1], want[1]), tolerance(dtype))
		})
	}
}

// TestSSDGradient: gradients of the chunked form (every inter-chunk method, with padding: T = 10, C = 4)
// == central finite differences of the reference, float64.
func TestSSDGradient(t *testing.T) {
	for _, inter := range ssdInterChunks {
		t.Run(inter.String(), func(t *testing.T) {
			m := newMixerData(5, naive.Dims{B: 1, T: 10, H: 2, K: 3, V: 2}, dataOpts{withState: true})
			wOut := randn(newRand(1), len(m.q)/m.d.K*m.d.V, 1)
			wFinal := randn(newRand(2), len(m.s0), 1)
			loss := func() float64 {
				o, s := naive.SSD(m.d, m.q, m.k, m.v, m.g, m.s0)
				return dot(o, wOut) + dot(s, wFinal)
			}
			params := [][]float64{m.q, m.k, m.v, m.g, m.s0}
			want := testutil.FiniteDiffGrad(loss, params, 1e-6)
			ins := append(m.inputs(), in{wOut, []int{m.d.B, m.d.T, m.d.H, m.d.V}}, in{wFinal, []int{m.d.B, m.d.H, m.d.K, m.d.V}})
			ins = append(ins[:4], ins[5:]...) // no beta
			got := mustExecGraph(t, dtypes.Float64, func(x []*Node) []*Node {
				out, final := NewSSD(x[0], x[1], x[2], x[3]).InitialState(x[4]).Chunk(4).InterChunk(inter).Done()
				l := Add(ReduceAllSum(Mul(out, x[5])), ReduceAllSum(Mul(final, x[6])))
				return Gradient(l, x[0], x[1], x[2], x[3], x[4])
			}, ins...)
			for i, name := range []string{"q", "k", "v", "logDecay", "s0"} {
				require.LessOrEqual(t, testutil.RelErr(got[i], want[i]), 1e-6, "gradient of %s", name)
			}
		})
	}
}
