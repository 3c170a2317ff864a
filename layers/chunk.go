package layers

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// Helpers shared by the chunked forms: padding to whole chunks, the [B, T, H, D] <-> [B, H, N, C, D]
// layouts, the chunk-local cumulative log decay and the causal decay mask.

// maskedExponent is what masked entries of a decay exponent are set to before Exp: exp of it is exactly 0 in
// float32 and float64, and its gradient is 0. docs/mixers.md §7: mask the exponent, never the result.
const maskedExponent = -1e30

// chunking describes how T tokens are split into N chunks of C tokens (the last one padded).
type chunking struct{ T, C, N int }

// newChunking picks C = min(chunk, T): a short sequence is one chunk with no padding.
func newChunking(t, chunk int) chunking {
	c := min(chunk, t)
	return chunking{T: t, C: c, N: (t + c - 1) / c}
}

func (ch chunking) pad() int { return ch.N*ch.C - ch.T }

// padTime appends zero rows along axis 1 (the time axis of [B, T, ...]) up to N·C. Zero q, k, v, g and β
// make the padded tokens identity transitions, so the final state is the state after token T.
func padTime(x *Node, ch chunking) *Node {
	p := ch.pad()
	if p == 0 {
		return x
	}
	dims := x.Shape().Clone().Dimensions
	dims[1] = p
	return Concatenate([]*Node{x, Zeros(x.Graph(), shapes.Make(x.DType(), dims...))}, 1)
}

// vectorsToChunks maps per-token vectors [B, T, H, D] to [B, H, N, C, D].
func vectorsToChunks(x *Node, ch chunking) *Node {
	d := x.Shape().Dimensions
	x = Reshape(padTime(x, ch), d[0], ch.N, ch.C, d[2], d[3])
	return TransposeAllAxes(x, 0, 3, 1, 2, 4)
}

// scalarsToChunks maps per-token scalars [B, T, H] to [B, H, N, C].
func scalarsToChunks(x *Node, ch chunking) *Node {
	d := x.Shape().Dimensions
	x = Reshape(padTime(x, ch), d[0], ch.N, ch.C, d[2])
	return TransposeAllAxes(x, 0, 3, 1, 2)
}

// oneToken drops the time axis of a one-token sequence [B, 1, ...] → [B, ...]: the layout of the step forms.
func oneToken(x *Node) *Node { return Squeeze(x, 1) }

// chunksToVectors maps [B, H, N, C, D] back to [B, T, H, D], dropping the padding.
func chunksToVectors(x *Node, ch chunking) *Node {
	d := x.Shape().Dimensions
	x = Reshape(TransposeAllAxes(x, 0, 2, 3, 1, 4), d[0], ch.N*ch.C, d[1], d[4])
	if ch.pad() > 0 {
		x = SliceAxis(x, 1, AxisRange(0, ch.T))
	}
	return x
}

// lowerMask returns the [C, C] boolean mask j ≤ i (strict: j < i), compared from an int32 [C, 1] and a
// [1, C] iota: GoMLX's LowerTriangular builds two int64 [C, C] iotas first, 16·C² bytes before the mask
// itself (12.8 GB each for a 40,000-token dense attention mask).
func lowerMask(g *Graph, c int, strict bool) *Node {
	rows := Iota(g, shapes.Make(dtypes.Int32, c, 1), 0) // i
	cols := Iota(g, shapes.Make(dtypes.Int32, 1, c), 1) // j
	if strict {
		rows = AddScalar(rows, -1)
	}
	return LessOrEqual(BroadcastToDims(cols, c, c), BroadcastToDims(rows, c, c))
}

// chunkCumsum returns the inclusive cumulative sum along the last axis (the chunk's tokens) of g [..., C]:
// b_i = Σ_{l≤i} g_l, as a matmul with the lower-ones matrix (GoMLX's CumSum is O(C²) and not
// differentiable on the pure-Go backend). Sums restart at every chunk, so they stay small (docs/mixers.md §7).
func chunkCumsum(g *Node) *Node {
	c := g.Shape().Dim(-1)
	ones := ConvertDType(lowerMask(g.Graph(), c, false), g.DType()) // [i, l] = 1 for l ≤ i
	return DotGeneral(g, []int{g.Rank() - 1}, nil, ones, []int{1}, nil)
}

// decayMask returns Γ [..., C, C] with Γ_ij = exp(b_i − b_j) for j ≤ i (j < i when strict), else 0.
// Only non-positive exponents are ever exponentiated, so nothing overflows (docs/mixers.md §7).
func decayMask(b *Node, strict bool) *Node {
	diff := Sub(ExpandAxes(b, -1), ExpandAxes(b, -2)) // [..., i, j] = b_i − b_j
	return Exp(Add(diff, maskBias(b.Graph(), b.DType(), b.Shape().Dim(-1), strict, diff.Rank())))
}

// maskBias returns the additive causal mask [1, …, 1, C, C] of the given rank: 0 where j ≤ i (j < i when
// strict), maskedExponent elsewhere. Adding it (one broadcast pass) replaces a broadcast boolean mask and a
// Where (three passes).
func maskBias(g *Graph, dtype dtypes.DType, c int, strict bool, rank int) *Node {
	bias := Where(lowerMask(g, c, strict), ScalarZero(g, dtype), Scalar(g, dtype, maskedExponent))
	return InsertAxes(bias, make([]int, rank-2)...)
}

// lastAlong returns x[..., n-1] along the last axis, without the axis: the chunk's total log decay b_C.
func lastAlong(x *Node) *Node {
	n := x.Shape().Dim(-1)
	return Squeeze(SliceAxis(x, -1, AxisRange(n-1, n)), -1)
}

// zerosState returns a zero [B, H, K, V] state.
func zerosState(g *Graph, dtype dtypes.DType, b, h, k, v int) *Node {
	return Zeros(g, shapes.Make(dtype, b, h, k, v))
}

// withDim returns x's shape with dimension axis replaced by n.
func withDim(x *Node, axis, n int) shapes.Shape {
	s := x.Shape().Clone()
	s.Dimensions[axis] = n
	return s
}
