package layers

import (
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// cacheWrite writes one token's vectors x [B, H, D] into cache [B, H, L, D] at position pos [B] (integer,
// per batch row) and returns the updated cache. It uses a Where over an iota (the pure-Go backend has no
// DynamicUpdateSlice). A position outside [0, L) writes nothing: callers check capacity on the host. The
// general write at any position, kept for the tests as the oracle of CacheAppend and CacheAppendRows (which
// append in order at each row's length).
func cacheWrite(cache, x, pos *Node) *Node {
	d := checkCacheWrite("cacheWrite", cache, x, pos)
	at := Equal(Iota(cache.Graph(), shapes.Make(pos.DType(), d[0], d[2]), 1), ExpandAxes(pos, -1)) // [B, L]
	at = BroadcastToDims(Reshape(at, d[0], 1, d[2], 1), d...)
	return Where(at, BroadcastToDims(ExpandAxes(x, 2), d...), cache)
}
