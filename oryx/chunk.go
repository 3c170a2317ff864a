package oryx

// Chunk steps: T tokens per row continued from a decode state in one pass — the verify pass of speculative
// decoding — and the commit that keeps any prefix of them.
//
//	B batch   T chunk tokens   D d_model   H heads   K key/query head dim   V value head dim
//	L KV-cache capacity   W conv width   E = H·K (keys) or H·V (values)
//
// ChunkStep computes what T Steps would (the same per-token maths: the step forms of the conv and the linear
// recurrence, one attention read of the cache for all T queries), but leaves the state open: the KV caches
// with the chunk's rows appended, the linear state after every prefix of the chunk and the conv inputs
// around it. CommitChunk then builds the decode state after the first a tokens of each row, exactly as if
// only those a tokens had been stepped: the rows of the rejected tokens are subtracted from the caches (x +
// (−x) = 0 exactly), the linear state and conv inputs are picked at a.

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/layers"
)

// ChunkState is what ChunkStep leaves for CommitChunk; a field the variant does not use is nil.
type ChunkState struct {
	Layers []ChunkLayer
}

// ChunkLayer is one layer's part of a ChunkState.
type ChunkLayer struct {
	KCache, VCache *Node // [B, H, L, K], [B, H, L, V]: the caches with the chunk's real tokens appended
	KRows, VRows   *Node // [B, T, H, K], [B, T, H, V]: the rows appended (zero for padding tokens)
	Linear         *Node // [B, T+1, H, K, V]: the linear state after the first a tokens of the chunk, a = 0..T
	ConvK, ConvV   *Node // [B, W-1+T, E]: the conv inputs before the chunk followed by the chunk's (conv width > 1)
}

// Flatten lists the nodes in a fixed order — per layer KCache, VCache, KRows, VRows, Linear, ConvK, ConvV,
// skipping unused fields — for graph outputs and inputs; Model.UnflattenChunk inverts it.
func (c *ChunkState) Flatten() []*Node {
	var out []*Node
	for _, l := range c.Layers {
		for _, n := range []*Node{l.KCache, l.VCache, l.KRows, l.VRows, l.Linear, l.ConvK, l.ConvV} {
			if n != nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// UnflattenChunk rebuilds a ChunkState from the nodes ChunkState.Flatten produced.
func (m *Model) UnflattenChunk(nodes []*Node) *ChunkState {
	cache, linear, conv := m.stateFields()
	per := 0
	for _, used := range []bool{cache, cache, cache, cache, linear, conv, conv} {
		if used {
			per++
		}
	}
	if len(nodes) != per*m.Config.Layers {
		panic(fmt.Errorf("oryx: chunk state has %d tensors, the model needs %d", len(nodes), per*m.Config.Layers))
	}
	c := &ChunkState{Layers: make([]ChunkLayer, m.Config.Layers)}
	i := 0
	next := func() *Node { i++; return nodes[i-1] }
	for l := range c.Layers {
		cl := &c.Layers[l]
		if cache {
			cl.KCache, cl.VCache, cl.KRows, cl.VRows = next(), next(), next(), next()
		}
		if linear {
			cl.Linear = next()
		}
		if conv {
			cl.ConvK, cl.ConvV = next(), next()
		}
	}
	return c
}

// ChunkStep feeds T tokens per row, continuing each row from state: tokens and modes [B, T] int32 (modes 1 =
// attention; nil for single-mixer variants) at positions state.Pos + t; counts [B] int32 in [0, T] marks the
// first counts[b] tokens of row b as real, the rest as padding whose keys and values are not written (their
// logits are computed and meaningless). Returns the logits [B, T, Vocab] — position t is what Step would
// return after the row's first t+1 tokens — and the ChunkState from which CommitChunk builds the state after
// any prefix. The caller checks that state.Pos + counts ≤ capacity.
func (m *Model) ChunkStep(ctx *context.Context, tokens, modes, counts *Node, state *State) (*Node, *ChunkState) {
	m.checkTokens("Model.ChunkStep", tokens, modes)
	g := tokens.Graph()
	b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	if counts == nil || !counts.Shape().Equal(shapeInt(b)) {
		panic(fmt.Errorf("Model.ChunkStep: counts must be int32 [%d], got %s", b, shapeString(counts)))
	}
	if len(state.Layers) != m.Config.Layers || (m.Config.Variant.HasAttention() && state.Layers[0].KCache == nil) {
		panic(fmt.Errorf("Model.ChunkStep: the state needs every layer's memory, KV caches included"))
	}
	s := m.root(ctx, g)
	positions := Add(ExpandAxes(state.Pos, -1), Iota(g, shapeInt(b, t), 1)) // [B, T]
	valid := LessThan(Iota(g, shapeInt(b, t), 1), ExpandAxes(counts, -1))   // [B, T]
	h, table := m.embed(s, tokens)
	cs := &ChunkState{Layers: make([]ChunkLayer, m.Config.Layers)}
	for i := range m.Config.Layers {
		h, cs.Layers[i] = m.blockChunk(m.blockParams(m.layerScope(s, i)), h, modes, positions, valid, state.Layers[i])
	}
	return m.head(s, h, table), cs
}

// blockChunk is the chunk form of block: h [B, T, D], modes/positions/valid [B, T], st the layer's state
// before the chunk.
func (m *Model) blockChunk(p blockParams, h, modes, positions, valid *Node, st LayerState) (*Node, ChunkLayer) {
	c := m.Config
	var out ChunkLayer
	x := layers.RMSNorm(h, p.attnNorm, c.NormEps)
	var k, v *Node
	kProj := Einsum("btd,hkd->bthk", x, p.wk)
	k, out.ConvK = m.sharedStreamChunk(kProj, p.convK, st.ConvK)
	v, out.ConvV = m.sharedStreamChunk(Einsum("btd,hvd->bthv", x, p.wv), p.convV, st.ConvV)

	var oAttn, oLinear *Node
	if c.Variant.HasAttention() {
		q, kAttn := Einsum("btd,hkd->bthk", x, p.wqAttn), m.attentionKey(kProj, k)
		if c.RoPE {
			q, kAttn = layers.RoPE(q, positions, c.RoPEBase), layers.RoPE(kAttn, positions, c.RoPEBase)
		}
		zero := ScalarZero(h.Graph(), h.DType())
		out.KRows, out.VRows = Where(valid, kAttn, zero), Where(valid, v, zero)
		at := cacheRows(positions, st.KCache) // padding rows add zeros at a clamped, in-range position
		out.KCache = layers.CacheAppendRows(st.KCache, out.KRows, at)
		out.VCache = layers.CacheAppendRows(st.VCache, out.VRows, at)
		oAttn = layers.AttentionCached(q, out.KCache, out.VCache, AddScalar(positions, 1), layers.DefaultScale(c.KeyDim))
	}
	if c.Variant.LinearMixer() != NoLinear {
		// The recurrence token by token in its step form: every prefix's state is kept for the commit.
		qR := Einsum("btd,hkd->bthk", x, p.wqLinear)
		token := func(n *Node, i int) *Node { return Squeeze(SliceAxis(n, 1, AxisRange(i, i+1)), 1) }
		state, states, outs := st.Linear, []*Node{st.Linear}, make([]*Node, 0, x.Shape().Dim(1))
		for i := range x.Shape().Dim(1) {
			var o *Node
			o, state = m.linearStep(p, token(x, i), token(qR, i), token(k, i), token(v, i), state)
			outs, states = append(outs, o), append(states, state)
		}
		oLinear, out.Linear = Stack(outs, 1), Stack(states, 1)
	}
	h = Add(h, m.output(p, x, selectReadout(modes, oAttn, oLinear)))
	return Add(h, layers.SwiGLU(layers.RMSNorm(h, p.mlpNorm, c.NormEps), p.mlpGate, p.mlpUp, p.mlpDown)), out
}

// cacheRows clamps positions [B, T] to the rows of cache [B, H, L, X]: scatters are not bounds-checked on
// the pure-Go backend, and a padding token past the end writes (adds) a zero row at L−1 instead.
func cacheRows(positions, cache *Node) *Node {
	return MinScalar(positions, float64(cache.Shape().Dim(2)-1))
}

// sharedStreamChunk is sharedStream continued from the conv state convState [B, W-1, E]: proj [B, T, H, X] →
// the activations [B, T, H, X] and the conv inputs concat(convState, proj) [B, W-1+T, E] (nil for W ≤ 1),
// whose rows a..a+W-2 are the conv state after the first a tokens.
func (m *Model) sharedStreamChunk(proj, convW, convState *Node) (out, inputs *Node) {
	c := m.Config
	if c.ConvWidth == 0 {
		return proj, nil
	}
	d := proj.Shape().Dimensions
	flat := Reshape(proj, d[0], d[1], d[2]*d[3])
	if c.ConvWidth == 1 {
		convState = nil
	}
	y, _ := layers.CausalConv1D(flat, convW, nil, convState)
	if c.ConvWidth > 1 {
		inputs = Concatenate([]*Node{convState, flat}, 1)
	}
	if c.ConvActivation == "silu" {
		y = layers.SiLU(y)
	}
	return Reshape(y, d...), inputs
}

// CommitChunk is the decode state after the first accepted[b] tokens of row b's chunk (0 ≤ accepted[b] ≤ its
// count): pos [B] int32 is state.Pos as it was before ChunkStep. The caches lose the rows of the tokens past
// accepted (their written rows are subtracted: the rows return to exact zeros), the linear state and conv
// inputs are those after accepted tokens, and Pos = pos + accepted. accepted[b] = 0 leaves row b as it was.
func (m *Model) CommitChunk(cs *ChunkState, pos, accepted *Node) *State {
	g := pos.Graph()
	b := pos.Shape().Dim(0)
	if !accepted.Shape().Equal(shapeInt(b)) {
		panic(fmt.Errorf("Model.CommitChunk: accepted must be int32 [%d], got %s", b, shapeString(accepted)))
	}
	st := &State{Pos: Add(pos, accepted), Layers: make([]LayerState, len(cs.Layers))}
	keep := ExpandAxes(accepted, -1) // [B, 1]
	for i, l := range cs.Layers {
		ls := &st.Layers[i]
		if l.KCache != nil {
			t := l.KRows.Shape().Dim(1)
			idx := Iota(g, shapeInt(b, t), 1)
			drop := GreaterOrEqual(idx, keep)
			at := cacheRows(Add(ExpandAxes(pos, -1), idx), l.KCache)
			zero := ScalarZero(g, l.KRows.DType())
			ls.KCache = layers.CacheAppendRows(l.KCache, Where(drop, Neg(l.KRows), zero), at)
			ls.VCache = layers.CacheAppendRows(l.VCache, Where(drop, Neg(l.VRows), zero), at)
		}
		if l.Linear != nil {
			ls.Linear = Squeeze(gatherRows(l.Linear, keep), 1)
		}
		if l.ConvK != nil {
			rows := Add(keep, Iota(g, shapeInt(b, m.Config.ConvWidth-1), 1)) // [B, W-1]: a .. a+W-2
			ls.ConvK, ls.ConvV = gatherRows(l.ConvK, rows), gatherRows(l.ConvV, rows)
		}
	}
	return st
}
