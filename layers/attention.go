package layers

import (
	"fmt"
	"math"

	"github.com/gomlx/gomlx/pkg/core/dtypes"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// DefaultScale is the usual attention / readout temperature d_k^{-1/2}.
func DefaultScale(keyDim int) float64 { return 1 / math.Sqrt(float64(keyDim)) }

// maskedLogit replaces masked attention logits before the softmax: exp(maskedLogit − max) is exactly 0.
const maskedLogit = -1e30

// CausalAttention is softmax attention where token t reads tokens s ≤ t:
//
//	o_t = Σ_{s≤t} softmax_s(scale · q_t·k_s) v_s
//
// q, k: [B, T, H, K]; v: [B, T, H, V] → [B, T, H, V]. The softmax subtracts the row maximum (stable for any
// logit size); masked logits are set before the exponential, so they contribute exactly 0.
// This is the dense masked T×T form (twice the useful flops, simplest to differentiate).
func CausalAttention(q, k, v *Node, scale float64) *Node {
	c := checker{"CausalAttention"}
	_, t, _, _, _ := c.mixerDims(q, k, v)
	logits := MulScalar(Einsum("bthk,bshk->bhts", q, k), scale) // [B, H, T, S]
	logits = Add(logits, maskBias(q.Graph(), q.DType(), t, false, 4))
	return Einsum("bhts,bshv->bthv", softmax(logits), v)
}

// CausalAttentionQueryBlocks is CausalAttention computed over query blocks of c tokens, one after the other:
// the queries [i, i+c) read the keys [0, i+c) only, so the logits alive at a time are [B, H, c, ≤T] instead
// of [B, H, T, T] (memory O(B·H·c·T), for long-context evaluation), with the same values (masked logits
// contribute exactly 0 in both forms). c ≥ T is CausalAttention.
//
// Backends that run every node whose inputs are ready — the pure-Go backend's parallel executor — would
// otherwise compute all blocks at once, and build the key/value slices and masks of every block of every
// layer up front (O(T²) memory in all). So each block's queries depend on the previous block's output, and
// its key/value slices and mask on the output of the block before that (through exact zeros): at most two
// blocks are alive, and the next block's slices and mask are built while one block computes. (Blocks of
// queries, not the linear mixers' chunks: attention has no state to carry between them.)
func CausalAttentionQueryBlocks(q, k, v *Node, scale float64, c int) *Node {
	ch := checker{"CausalAttentionQueryBlocks"}
	_, t, _, _, _ := ch.mixerDims(q, k, v)
	if c >= t {
		return CausalAttention(q, k, v, scale)
	}
	if c < 1 {
		panic(fmt.Errorf("CausalAttentionQueryBlocks: block %d must be ≥ 1", c))
	}
	g := q.Graph()
	var outs []*Node
	var prev, prev2 *Node // zeros that depend on the output of the previous block and of the one before it
	for lo := 0; lo < t; lo += c {
		hi := min(lo+c, t)
		kk, vk := k, v
		rows := Iota(g, shapes.Make(dtypes.Int32, hi-lo, 1), 0) // query index − lo
		cols := Iota(g, shapes.Make(dtypes.Int32, 1, hi), 1)    // key index
		if prev2 != nil {
			kk, vk = Add(k, prev2), Add(v, prev2)
			zi := ConvertDType(prev2, dtypes.Int32)
			rows, cols = Add(rows, zi), Add(cols, zi)
		}
		qc := Slice(q, AxisRange(), AxisRange(lo, hi))
		if prev != nil {
			qc = Add(qc, prev)
		}
		kc, vc := Slice(kk, AxisRange(), AxisRange(0, hi)), Slice(vk, AxisRange(), AxisRange(0, hi))
		logits := MulScalar(Einsum("bthk,bshk->bhts", qc, kc), scale) // [B, H, hi−lo, hi]
		visible := GreaterOrEqual(BroadcastToDims(AddScalar(rows, float64(lo)), hi-lo, hi), BroadcastToDims(cols, hi-lo, hi))
		bias := Where(visible, ScalarZero(g, q.DType()), Scalar(g, q.DType(), maskedLogit))
		o := Einsum("bhts,bshv->bthv", softmax(Add(logits, InsertAxes(bias, 0, 0))), vc)
		outs = append(outs, o)
		zero := ScalarZero(g, q.DType())
		prev2, prev = prev, Where(IsNaN(ReduceAllSum(o)), zero, zero)
	}
	return Concatenate(outs, 1)
}

// softmax over the last axis, with the row maximum subtracted (masked logits are already ≈ −1e30).
func softmax(logits *Node) *Node {
	m := StopGradient(ReduceAndKeep(logits, ReduceMax, -1))
	e := Exp(Sub(logits, m))
	return Div(e, ReduceAndKeep(e, ReduceSum, -1))
}

// maskedSoftmax is a softmax over the last axis where mask is false → probability 0. At least one entry per
// row must be unmasked. Three elementwise passes (GoMLX's MaskedSoftmax makes six).
func maskedSoftmax(logits, mask *Node) *Node {
	logits = Where(mask, logits, Scalar(logits.Graph(), logits.DType(), maskedLogit))
	m := StopGradient(ReduceAndKeep(logits, ReduceMax, -1))
	e := Exp(Sub(logits, m))
	return Div(e, ReduceAndKeep(e, ReduceSum, -1))
}

// AttentionStep is one new token's attention over a preallocated KV cache (decode):
//
//	o_b = Σ_{l < length_b} softmax_l(scale · q_b·kCache_{b,l}) vCache_{b,l}
//
// q: [B, H, K]; kCache: [B, H, L, K]; vCache: [B, H, L, V]; length: [B] integer, the number of valid cache
// entries of each batch row, the new token's own key and value included (write them first with CacheAppend),
// 1 ≤ length ≤ L. Returns [B, H, V]. Rows of different lengths are handled in one call.
//
// The cache is heads-major ([B, H, L, ·], the KV-cache layout of this package) so that both products are
// batched over (B, H) with the batch axes leading, the layout matmuls take as is: with positions before heads
// ([B, L, H, ·]) every step copied the whole cache into that layout first (XLA CPU, 130m shapes, one layer
// at 16,384 positions, one sitting on a loaded machine: 370 ms against 26 ms; the pure-Go backend made the
// same copy).
func AttentionStep(q, kCache, vCache, length *Node, scale float64) *Node {
	c := checker{"AttentionStep"}
	qa, ka, va, la := arg{"q", q}, arg{"kCache", kCache}, arg{"vCache", vCache}, arg{"length", length}
	c.notNil(qa, ka, va, la)
	c.rank(qa, 3, "[B, H, K]")
	c.rank(ka, 4, "[B, H, L, K]")
	c.rank(va, 4, "[B, H, L, V]")
	c.float(qa, ka, va)
	b, h, dk := q.Shape().Dim(0), q.Shape().Dim(1), q.Shape().Dim(2)
	l := kCache.Shape().Dim(2)
	c.dims(ka, "[B, H, L, K]", b, h, -1, dk)
	c.dims(va, "[B, H, L, V] with B, H, L of kCache", b, h, l, -1)
	c.integer(la)
	c.dims(la, "[B]", b)

	logits := MulScalar(Einsum("bhk,bhlk->bhl", q, kCache), scale) // [B, H, L]
	pos := Iota(q.Graph(), shapes.Make(length.DType(), b, h, l), 2)
	valid := LessThan(pos, BroadcastToDims(Reshape(length, b, 1, 1), b, h, l))
	return Einsum("bhl,bhlv->bhv", maskedSoftmax(logits, valid), vCache)
}

// AttentionCached is AttentionStep for T new tokens per row at once — a chunk continued from a cache, e.g. the
// verify pass of speculative decoding:
//
//	o_{b,t} = Σ_{l < length_{b,t}} softmax_l(scale · q_{b,t}·kCache_{b,l}) vCache_{b,l}
//
// q: [B, T, H, K]; kCache: [B, H, L, K]; vCache: [B, H, L, V], with the chunk's own keys and values already
// written (CacheAppendRows); length: [B, T] integer, the number of cache entries query t of row b reads (its
// own token included: position + 1), ≥ 1. Returns [B, T, H, V]. The kernel follows the static T: one query
// (decoding) is AttentionStep's graph; otherwise the cache is read once for all T queries, except on XLA for
// T ≤ perQueryMaxT (cachedAttentionPerQuery: there T matrix-vector reads are faster).
func AttentionCached(q, kCache, vCache, length *Node, scale float64) *Node {
	c := checker{"AttentionCached"}
	qa, ka, va, la := arg{"q", q}, arg{"kCache", kCache}, arg{"vCache", vCache}, arg{"length", length}
	c.notNil(qa, ka, va, la)
	c.rank(qa, 4, "[B, T, H, K]")
	c.rank(ka, 4, "[B, H, L, K]")
	c.rank(va, 4, "[B, H, L, V]")
	c.float(qa, ka, va)
	b, t, h, dk := q.Shape().Dim(0), q.Shape().Dim(1), q.Shape().Dim(2), q.Shape().Dim(3)
	l := kCache.Shape().Dim(2)
	c.dims(ka, "[B, H, L, K] with B, H, K of q", b, h, -1, dk)
	c.dims(va, "[B, H, L, V] with B, H, L of kCache", b, h, l, -1)
	c.integer(la)
	c.dims(la, "[B, T] with B, T of q", b, t)

	if t == 1 {
		return ExpandAxes(AttentionStep(oneToken(q), kCache, vCache, oneToken(length), scale), 1)
	}
	if !onPureGo(q.Graph()) && t <= perQueryMaxT {
		return cachedAttentionPerQuery(q, kCache, vCache, length, scale)
	}
	return cachedAttentionBatched(q, kCache, vCache, length, scale)
}

// cachedAttentionBatched is AttentionCached with the cache read once for all T queries: on XLA one batched
// product, on pure Go the products its direct kernel computes (cachedLogitsPureGo).
func cachedAttentionBatched(q, kCache, vCache, length *Node, scale float64) *Node {
	qT := TransposeAllAxes(q, 0, 2, 1, 3) // [B, H, T, K]
	var logits *Node
	if onPureGo(q.Graph()) {
		logits = cachedLogitsPureGo(qT, kCache)
	} else {
		logits = DotGeneral(qT, []int{3}, []int{0, 1}, kCache, []int{3}, []int{0, 1}) // [B, H, T, L]
	}
	return Einsum("bhtl,bhlv->bthv", cachedProbs(MulScalar(logits, scale), length), vCache)
}

// cachedProbs is the softmax of both cached-attention forms: logits [B, H, T, L] (scaled) with query t of row
// b reading the first length[b, t] cache entries → probabilities [B, H, T, L].
func cachedProbs(logits, length *Node) *Node {
	b, h, t, l := logits.Shape().Dim(0), logits.Shape().Dim(1), logits.Shape().Dim(2), logits.Shape().Dim(3)
	pos := Iota(logits.Graph(), shapes.Make(length.DType(), b, h, t, l), 3)
	valid := LessThan(pos, BroadcastToDims(Reshape(length, b, 1, t, 1), b, h, t, l))
	return maskedSoftmax(logits, valid)
}

// perQueryMaxT is the most queries for which AttentionCached reads the cache on XLA as one matrix-vector
// product per query (cachedAttentionPerQuery) instead of one batched product (cachedAttentionBatched).
const perQueryMaxT = 3

// cachedAttentionPerQuery is AttentionCached with both products taken per query: T matrix-vector products
// q_t·kᵀ (one masked softmax over all T rows) and T products p_t·v. XLA CPU runs a batched product with a
// few rows (M = T) through its general matrix-matrix path, which costs ~3× a matrix-vector product per cached
// key: per query the cache is read T times, but each read is the cheap one. BenchmarkAttentionCached with
// XLA CPU (2026-12-05, quiet 2-core VM, best wall ms of 30, batched → per-query; one step for scale):
//
//	heads              L       step   T = 2          T = 3          T = 5          T = 9
//	small (4×16, 32)   8,192   0.28   0.63 → 0.40    0.84 → 0.53    0.79 → 0.70    0.95 → 1.26
//	small              16,384  0.49   1.19 → 0.68    1.16 → 0.89    1.36 → 1.29    1.72 → 2.36
//	130m (6×64, 128)   8,192   1.10   3.91 → 2.07    4.17 → 2.85    4.29 → 4.84    4.77 → 8.61
//	130m               16,384  2.70   8.82 → 5.04    8.67 → 7.59    9.06 → 11.52   10.04 → 23.01
//
// Hence T ≤ 3: the verify pass of speculative decoding with K ≤ 2 drafts. The pure-Go backend keeps the
// batched read (its kernel has no such gap; cachedLogitsPureGo).
func cachedAttentionPerQuery(q, kCache, vCache, length *Node, scale float64) *Node {
	t := q.Shape().Dim(1)
	query := func(n *Node, i int) *Node { return Squeeze(SliceAxis(n, 1, AxisRange(i, i+1)), 1) } // [B, H, K]
	rows := make([]*Node, t)
	for i := range t {
		rows[i] = Einsum("bhk,bhlk->bhl", query(q, i), kCache)
	}
	p := cachedProbs(MulScalar(Stack(rows, 2), scale), length) // [B, H, T, L]
	outs := make([]*Node, t)
	for i := range t {
		outs[i] = Einsum("bhl,bhlv->bhv", Squeeze(SliceAxis(p, 2, AxisRange(i, i+1)), 2), vCache)
	}
	return Stack(outs, 1) // [B, T, H, V]
}

// directDotCrosses is the largest output of one product per batch element (rows × columns) for which the
// pure-Go backend's DotGeneral uses its direct kernel (16 blocks of 32×32 values, float32 or float64); above
// it, it first copies both operands into blocks.
const directDotCrosses = 16 * 1024

// cachedLogitsPureGo is AttentionCached's q·kᵀ, qT [B, H, T, K] by kCache [B, H, L, K] → [B, H, T, L], as
// products the pure-Go backend computes with its direct kernel: the keys in blocks of at most
// directDotCrosses rows (sliced once) and the queries in groups of at most directDotCrosses / block rows. One
// product per query would copy the whole cache into blocks whenever L > directDotCrosses — per query, per
// layer: a 40,000-token prompt read in segments of 384 queries peaked above 8 GB resident that way, and the
// copies were most of its time. BenchmarkAttentionCached (L = 16,384, H = 4, process CPU time, loaded 2-core
// VM, when the cache was [B, L, H, K] and transposed first): one step 29 ms; T = 5 queries 78 ms in one
// product, 47 ms in groups; T = 9 93 ms → 68 ms. XLA takes one product (cachedAttentionBatched), or one per
// query for T ≤ perQueryMaxT (cachedAttentionPerQuery).
func cachedLogitsPureGo(qT, kCache *Node) *Node {
	t, l := qT.Shape().Dim(2), kCache.Shape().Dim(2)
	block := min(l, directDotCrosses)
	var keys []*Node
	for l0 := 0; l0 < l; l0 += block {
		k := kCache
		if block < l {
			k = Slice(kCache, AxisRange(), AxisRange(), AxisRange(l0, min(l, l0+block)))
		}
		keys = append(keys, k)
	}
	group := max(1, directDotCrosses/block)
	var rows []*Node
	for t0 := 0; t0 < t; t0 += group {
		qg := qT
		if group < t {
			qg = Slice(qT, AxisRange(), AxisRange(), AxisRange(t0, min(t, t0+group)))
		}
		cols := make([]*Node, len(keys))
		for i, k := range keys {
			cols[i] = DotGeneral(qg, []int{3}, []int{0, 1}, k, []int{3}, []int{0, 1}) // [B, H, g, block]
		}
		rows = append(rows, concatOrOne(cols, 3))
	}
	return concatOrOne(rows, 2)
}

// concatOrOne concatenates parts along axis, or returns the only part.
func concatOrOne(parts []*Node, axis int) *Node {
	if len(parts) == 1 {
		return parts[0]
	}
	return Concatenate(parts, axis)
}

// CacheAppend writes one token's vectors x [B, H, D] into cache [B, H, L, D] at position pos [B] (integer),
// for a cache that is filled in order: the row at pos must still be zero (as EmptyState and Prefill leave
// every row past the prompt), so adding x there sets it exactly. It is a ScatterSum of B rows: when the cache
// buffer is donated to the graph the backend updates it in place, so a decode step's write costs O(H·D), not
// O(L·H·D) like a Where over the whole cache.
func CacheAppend(cache, x, pos *Node) *Node {
	d := checkCacheWrite("CacheAppend", cache, x, pos)
	g := cache.Graph()
	batch := ConvertDType(Iota(g, shapes.Make(dtypes.Int32, d[0], d[1], 1), 0), pos.DType())
	head := ConvertDType(Iota(g, shapes.Make(dtypes.Int32, d[0], d[1], 1), 1), pos.DType())
	at := BroadcastToDims(Reshape(pos, d[0], 1, 1), d[0], d[1], 1)
	indices := Concatenate([]*Node{batch, head, at}, 2) // [B, H, 3] = (b, h, pos_b)
	return ScatterSum(cache, indices, x, false, true)
}

// checkCacheWrite validates cache [B, H, L, D], x [B, H, D] and pos [B] and returns the cache's dimensions.
func checkCacheWrite(fn string, cache, x, pos *Node) []int {
	c := checker{fn}
	ca, xa, pa := arg{"cache", cache}, arg{"x", x}, arg{"pos", pos}
	c.notNil(ca, xa, pa)
	c.rank(ca, 4, "[B, H, L, D]")
	c.float(ca, xa)
	d := cache.Shape().Dimensions
	c.dims(xa, "[B, H, D] of cache", d[0], d[1], d[3])
	c.integer(pa)
	c.dims(pa, "[B]", d[0])
	return d
}

// CacheAppendRows is CacheAppend for T tokens per row: x [B, T, H, D] is added into cache [B, H, L, D] at
// rows pos [B, T] (integer). Each target row must still be zero for the write to set it exactly (or x must
// be zero there: adding a zero row leaves the cache as it is, the way to skip a token). Positions must lie in
// [0, L): the pure-Go backend does not bounds-check scatters, so callers clamp the positions of skipped
// tokens. Adding −x at the same rows removes what was written, exactly (x + (−x) = 0 in floating point):
// the rollback of speculative decoding. In place when the cache buffer is donated. For T = 1 it is
// CacheAppend's graph (its scatter declares its indices unique).
func CacheAppendRows(cache, x, pos *Node) *Node {
	c := checker{"CacheAppendRows"}
	ca, xa, pa := arg{"cache", cache}, arg{"x", x}, arg{"pos", pos}
	c.notNil(ca, xa, pa)
	c.rank(ca, 4, "[B, H, L, D]")
	c.rank(xa, 4, "[B, T, H, D]")
	c.float(ca, xa)
	d := cache.Shape().Dimensions
	t := x.Shape().Dim(1)
	c.dims(xa, "[B, T, H, D] with B, H, D of cache", d[0], -1, d[1], d[3])
	c.integer(pa)
	c.dims(pa, "[B, T] with B, T of x", d[0], t)
	if t == 1 {
		return CacheAppend(cache, oneToken(x), oneToken(pos))
	}
	g := cache.Graph()
	idx := shapes.Make(dtypes.Int32, d[0], t, d[1], 1)
	batch := ConvertDType(Iota(g, idx, 0), pos.DType())
	head := ConvertDType(Iota(g, idx, 2), pos.DType())
	at := BroadcastToDims(Reshape(pos, d[0], t, 1, 1), d[0], t, d[1], 1)
	indices := Concatenate([]*Node{batch, head, at}, 3) // [B, T, H, 3] = (b, h, pos_{b,t})
	return ScatterSum(cache, indices, x, false, false)
}
