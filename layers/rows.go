package layers

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// GatherRows picks, for x [B, T, ...] and integer idx [B, N], x[b, idx[b, n]] → [B, N, ...]: per row its own
// positions (the scored positions of a sequence, the conv inputs after each row's last real token, the
// linear state after each row's accepted prefix).
func GatherRows(x, idx *Node) *Node {
	c := checker{"GatherRows"}
	xa, ia := arg{"x", x}, arg{"idx", idx}
	c.notNil(xa, ia)
	c.integer(ia)
	c.rank(ia, 2, "[B, N]")
	if x.Rank() < 2 {
		argError(c.fn, "%s must be [B, T, ...]", xa)
	}
	c.dims(ia, "[B, N] with B of x", x.Shape().Dim(0), -1)
	b, n := idx.Shape().Dim(0), idx.Shape().Dim(1)
	batch := ConvertDType(Iota(idx.Graph(), shapes.Make(dtypes.Int32, b, n, 1), 0), idx.DType())
	return Gather(x, Concatenate([]*Node{batch, ExpandAxes(idx, -1)}, -1)) // indices [B, N, 2] = (b, idx[b, n])
}

// CacheRows clamps the positions [B, T] a span writes into a cache [B, H, L, X] to its rows 0..L−1: scatters
// are not bounds-checked on the pure-Go backend, and a padding token past the end (which writes a zero row,
// CacheAppendRows) then adds its zero row at L−1 instead. The model's pass and the speculative commit, which
// subtracts what the pass wrote, clamp alike through it.
func CacheRows(positions, cache *Node) *Node {
	c := checker{"CacheRows"}
	pa, ca := arg{"positions", positions}, arg{"cache", cache}
	c.notNil(pa, ca)
	c.integer(pa)
	c.rank(ca, 4, "[B, H, L, X]")
	return MinScalar(positions, float64(cache.Shape().Dim(2)-1))
}
