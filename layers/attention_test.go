package layers

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/layers/naive"
)

// TestCausalAttentionMatchesReference, including huge logits (scale 50 on unit-variance vectors): the
// max-subtracted softmax must not overflow.
func TestCausalAttentionMatchesReference(t *testing.T) {
	for _, dtype := range testDTypes {
		for _, T := range sweepT {
			for _, scale := range []float64{0, 50} {
				t.Run(fmt.Sprintf("%s/T=%d/scale=%g", dtype, T, scale), func(t *testing.T) {
					m := newMixerData(uint64(T), naive.Dims{B: 2, T: T, H: 2, K: 8, V: 5}, dataOpts{})
					if scale == 0 {
						scale = DefaultScale(m.d.K)
					}
					want := naive.Attention(m.d, m.q, m.k, m.v, scale)
					got := mustExecGraph(t, dtype, func(x []*Node) []*Node {
						return []*Node{CausalAttention(x[0], x[1], x[2], scale)}
					}, m.inputs()[:3]...)
					require.LessOrEqual(t, testutil.RelErr(got[0], want), tolerance(dtype))
				})
			}
		}
	}
}

// TestCausalAttentionQueryBlocksMatchesDense: query blocks of any size (dividing T or not, 1, ≥ T) give the
// dense form's values (float64: 1e-12; float32: the package tolerance).
func TestCausalAttentionQueryBlocksMatchesDense(t *testing.T) {
	for _, dtype := range testDTypes {
		m := newMixerData(77, naive.Dims{B: 2, T: 37, H: 2, K: 8, V: 5}, dataOpts{})
		scale := DefaultScale(m.d.K)
		for _, c := range []int{1, 5, 16, 36, 37, 64} {
			got := mustExecGraph(t, dtype, func(x []*Node) []*Node {
				return []*Node{CausalAttention(x[0], x[1], x[2], scale), CausalAttentionQueryBlocks(x[0], x[1], x[2], scale, c)}
			}, m.inputs()[:3]...)
			tol := 1e-12
			if dtype != dtypes.Float64 {
				tol = tolerance(dtype)
			}
			require.LessOrEqual(t, testutil.RelErr(got[1], got[0]), tol, "%s chunk %d", dtype, c)
		}
	}
}

// cacheShape is the shape of a KV cache [B, H, L, X] of capacity L for keys or values x [B, T, H, X].
func cacheShape(x *Node, capacity int) shapes.Shape {
	d := x.Shape().Dimensions
	return shapes.Make(x.DType(), d[0], d[2], capacity, d[3])
}

// TestAttentionStepMatchesParallel decodes a batch whose rows are at different positions: row b has its
// first lengths[b] tokens in the cache; each step writes the new token with cacheWrite and reads with
// AttentionStep, and must equal the parallel form at that position.
func TestAttentionStepMatchesParallel(t *testing.T) {
	for _, dtype := range testDTypes {
		t.Run(dtype.String(), func(t *testing.T) {
			const capacity = 16
			m := newMixerData(41, naive.Dims{B: 2, T: 12, H: 3, K: 4, V: 5}, dataOpts{})
			scale := DefaultScale(m.d.K)
			want := naive.Attention(m.d, m.q, m.k, m.v, scale)
			offsets := []int32{0, 5} // row 1 starts decoding at token 5, row 0 at token 0
			got := mustExecGraph(t, dtype, func(x []*Node) []*Node {
				g := x[0].Graph()
				b, h := m.d.B, m.d.H
				kc := Zeros(g, cacheShape(x[1], capacity))
				vc := Zeros(g, cacheShape(x[2], capacity))
				// Prefill row 1's first 5 tokens (and row 0's none) by writing them one at a time.
				var outs []*Node
				for step := range 7 {
					pos := Const(g, []int32{offsets[0] + int32(step), offsets[1] + int32(step)})
					tok := func(n *Node) *Node {
						rows := make([]*Node, b)
						for r := range b {
							p := int(offsets[r]) + step
							rows[r] = Slice(n, AxisRange(r, r+1), AxisRange(p, p+1))
						}
						return Reshape(Concatenate(rows, 0), b, h, -1)
					}
					if step == 0 { // row 1's cache before decoding: tokens 0..4
						for p := range 5 {
							at := Const(g, []int32{capacity + 1, int32(p)}) // row 0: out of range, writes nothing
							pick := func(n *Node) *Node {
								return Reshape(Concatenate([]*Node{
									Slice(n, AxisRange(0, 1), AxisRange(0, 1)), Slice(n, AxisRange(1, 2), AxisRange(p, p+1))}, 0), b, h, -1)
							}
							kc, vc = cacheWrite(kc, pick(x[1]), at), cacheWrite(vc, pick(x[2]), at)
						}
					}
					kc, vc = cacheWrite(kc, tok(x[1]), pos), cacheWrite(vc, tok(x[2]), pos)
					outs = append(outs, AttentionStep(tok(x[0]), kc, vc, AddScalar(pos, 1), scale))
				}
				return []*Node{Stack(outs, 1)} // [B, 7, H, V]
			}, m.inputs()[:3]...)[0]
			for r := range m.d.B {
				for step := range 7 {
					p := int(offsets[r]) + step
					for h := range m.d.H {
						for j := range m.d.V {
							g := got[((r*7+step)*m.d.H+h)*m.d.V+j]
							w := want[m.d.Vec(r, p, h, j, m.d.V)]
							require.InDelta(t, w, g, tolerance(dtype)*10, "row %d position %d", r, p)
						}
					}
				}
			}
		})
	}
}

// TestCausalAttentionGradient: gradients wrt q, k, v == finite differences of the reference.
func TestCausalAttentionGradient(t *testing.T) {
	m := newMixerData(43, naive.Dims{B: 1, T: 6, H: 2, K: 3, V: 2}, dataOpts{})
	scale := 0.9
	w := randn(newRand(5), len(m.v)/m.d.V*m.d.V, 1)
	want := testutil.FiniteDiffGrad(func() float64 { return dot(naive.Attention(m.d, m.q, m.k, m.v, scale), w) },
		[][]float64{m.q, m.k, m.v}, 1e-6)
	ins := append(m.inputs()[:3], in{w, []int{m.d.B, m.d.T, m.d.H, m.d.V}})
	got := mustExecGraph(t, dtypes.Float64, func(x []*Node) []*Node {
		return Gradient(ReduceAllSum(Mul(CausalAttention(x[0], x[1], x[2], scale), x[3])), x[0], x[1], x[2])
	}, ins...)
	for i, name := range []string{"q", "k", "v"} {
		require.LessOrEqual(t, testutil.RelErr(got[i], want[i]), 1e-6, "gradient of %s", name)
	}
}

// TestCacheAppendMatchesCacheWrite: appending in order into a zero cache == the general Where-based write
// (cacheWrite).
func TestCacheAppendMatchesCacheWrite(t *testing.T) {
	m := newMixerData(53, naive.Dims{B: 2, T: 6, H: 2, K: 3, V: 3}, dataOpts{})
	got := mustExecGraph(t, dtypes.Float64, func(x []*Node) []*Node {
		g := x[0].Graph()
		appended := Zeros(g, cacheShape(x[0], 8))
		written := appended
		for step := range 5 {
			pos := Const(g, []int32{int32(step), int32(step + 2)})
			tok := Squeeze(SliceAxis(x[0], 1, AxisRange(step, step+1)), 1)
			appended, written = CacheAppend(appended, tok, pos), cacheWrite(written, tok, pos)
		}
		return []*Node{appended, written}
	}, m.inputs()[0])
	require.Equal(t, got[1], got[0])
}

// TestAttentionCachedMatchesSteps: a chunk of T tokens per row appended with CacheAppendRows and read with
// AttentionCached == the same tokens appended and read one at a time (CacheAppend, AttentionStep), for rows
// at different positions; then adding the negated rows back removes them exactly (the zero cache returns).
func TestAttentionCachedMatchesSteps(t *testing.T) {
	for _, dtype := range testDTypes {
		t.Run(dtype.String(), func(t *testing.T) {
			const capacity, chunk = 12, 4
			m := newMixerData(59, naive.Dims{B: 2, T: 9, H: 2, K: 4, V: 3}, dataOpts{})
			scale := DefaultScale(m.d.K)
			starts := []int32{2, 5} // row b's chunk starts at position starts[b]; tokens before it come first
			got := mustExecGraph(t, dtype, func(x []*Node) []*Node {
				g := x[0].Graph()
				tok := func(n *Node, p int) *Node { return Squeeze(SliceAxis(n, 1, AxisRange(p, p+1)), 1) } // [B, H, X]
				kc, vc := Zeros(g, cacheShape(x[1], capacity)), Zeros(g, cacheShape(x[2], capacity))
				// The prefix: row b's tokens 0..starts[b]-1 (row 0 writes its later tokens into rows it never reads).
				for p := range int(starts[1]) {
					pos := Const(g, []int32{int32(p), int32(p)})
					if int32(p) >= starts[0] {
						pos = Const(g, []int32{int32(p) + chunk + 1, int32(p)})
					}
					kc, vc = CacheAppend(kc, tok(x[1], p), pos), CacheAppend(vc, tok(x[2], p), pos)
				}
				// One at a time.
				kStep, vStep := kc, vc
				kOne, vOne := kc, vc // the same through the T = 1 forms of CacheAppendRows and AttentionCached
				var steps, ones []*Node
				for i := range chunk {
					pos := Const(g, []int32{starts[0] + int32(i), starts[1] + int32(i)})
					pick := func(n *Node) *Node {
						return Concatenate([]*Node{
							Slice(n, AxisRange(0, 1), AxisRange(int(starts[0])+i, int(starts[0])+i+1)),
							Slice(n, AxisRange(1, 2), AxisRange(int(starts[1])+i, int(starts[1])+i+1))}, 0)
					}
					q, k, v := Squeeze(pick(x[0]), 1), Squeeze(pick(x[1]), 1), Squeeze(pick(x[2]), 1)
					kStep, vStep = CacheAppend(kStep, k, pos), CacheAppend(vStep, v, pos)
					steps = append(steps, AttentionStep(q, kStep, vStep, AddScalar(pos, 1), scale))
					pos1 := ExpandAxes(pos, 1)
					kOne, vOne = CacheAppendRows(kOne, ExpandAxes(k, 1), pos1), CacheAppendRows(vOne, ExpandAxes(v, 1), pos1)
					ones = append(ones, AttentionCached(ExpandAxes(q, 1), kOne, vOne, AddScalar(pos1, 1), scale))
				}
				// As one chunk.
				rows := func(n *Node) *Node {
					return Concatenate([]*Node{
						Slice(n, AxisRange(0, 1), AxisRange(int(starts[0]), int(starts[0])+chunk)),
						Slice(n, AxisRange(1, 2), AxisRange(int(starts[1]), int(starts[1])+chunk))}, 0)
				}
				pos := Add(ExpandAxes(Const(g, starts), -1), Iota(g, shapes.Make(dtypes.Int32, 2, chunk), 1)) // [B, T]
				kRows, vRows := rows(x[1]), rows(x[2])
				kChunk, vChunk := CacheAppendRows(kc, kRows, pos), CacheAppendRows(vc, vRows, pos)
				o := AttentionCached(rows(x[0]), kChunk, vChunk, AddScalar(pos, 1), scale)
				perQuery := cachedAttentionPerQuery(rows(x[0]), kChunk, vChunk, AddScalar(pos, 1), scale) // XLA's form for T ≤ perQueryMaxT
				kBack := CacheAppendRows(kChunk, Neg(kRows), pos)
				return []*Node{Stack(steps, 1), o, kStep, kChunk, kBack, kc, perQuery, Concatenate(ones, 1), kOne}
			}, m.inputs()[:3]...)
			require.Equal(t, got[0], got[7], "T = 1 is AttentionStep")
			require.Equal(t, got[2], got[8], "T = 1 is CacheAppend")
			require.LessOrEqual(t, testutil.RelErr(got[1], got[0]), tolerance(dtype), "chunk attention vs steps")
			require.LessOrEqual(t, testutil.RelErr(got[6], got[0]), tolerance(dtype), "per-query block attention vs steps")
			require.Equal(t, got[2], got[3], "the chunk writes the rows the steps write")
			require.Equal(t, got[5], got[4], "adding the negated rows restores the cache exactly")
		})
	}
}

// TestCachedLogitsPureGoBlocks: the pure-Go form of AttentionCached's q·kᵀ — keys in blocks of at most
// directDotCrosses rows, queries in groups — equals the one product, for a cache longer than two blocks (a
// ragged last block, one query per group) and a short one (several queries per group, a ragged last group).
func TestCachedLogitsPureGoBlocks(t *testing.T) {
	for _, c := range []struct{ t, l int }{{3, 2*directDotCrosses + 5}, {7, 5000}} {
		t.Run(fmt.Sprintf("T=%d,L=%d", c.t, c.l), func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(c.l)))
			q, k := in{randn(r, 2*c.t*3, 1), []int{1, 2, c.t, 3}}, in{randn(r, 2*c.l*3, 1), []int{1, 2, c.l, 3}}
			got := mustExecGraph(t, dtypes.Float64, func(x []*Node) []*Node {
				return []*Node{cachedLogitsPureGo(x[0], x[1]), DotGeneral(x[0], []int{3}, []int{0, 1}, x[1], []int{3}, []int{0, 1})}
			}, q, k)
			require.Equal(t, len(got[1]), 2*c.t*c.l)
			require.LessOrEqual(t, testutil.RelErr(got[0], got[1]), 1e-14)
		})
	}
}
