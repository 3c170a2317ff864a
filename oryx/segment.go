package oryx

// Prefill segments: a long prompt read in pieces of S tokens, each continued from the decode state the previous
// piece left (what inference servers call chunked prefill; "chunk" here already names the linear mixers'
// chunks). Each segment runs the parallel forms — the chunked linear recurrence from an initial state, the conv
// from its inputs before the segment, attention over the KV cache with the segment's rows written first — so
// one compiled graph of S tokens serves a prompt of any length, and a segment's working memory does not grow
// with the prompt:
//
//   - one Prefill graph of T tokens holds O(T) activations and, for a prompt read in attention mode, query
//     chunks of [B, H, c, T] logits whose buffers the pure-Go backend keeps per chunk (a 40,000-token tiny
//     prompt peaked near 10 GB); a segment holds O(S) activations and [B, H, S, L] logits;
//   - XLA compiles a graph whose size grows with T (a 40,000-token linear prefill of the tiny model compiled
//     for over two minutes on XLA CPU); the segment graph is compiled once for every prompt length.
//
//	B batch   S segment tokens   D d_model   H heads   K key/query head dim   V value head dim   L KV-cache capacity
//
// The state after all segments equals Prefill's (same maths, the linear state crossing segment boundaries
// exactly as it crosses chunk boundaries; TestPrefillSegmentsMatchPrefill, float64).

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/layers"
)

// PrefillSegment continues each row of state with its next prompt tokens: tokens [B, S] int32, left-aligned,
// of which the first counts[b] (0 ≤ counts ≤ S) are real and the rest padding that changes nothing; modes
// [B, S] int32 (1 = attention; nil for single-mixer variants and with allLinear). The tokens sit at positions
// state.Pos + s. With allLinear every token is read in linear mode and no attention readout is built (the KV
// cache is still written). Returns the logits [B, Vocab] after each row's last real token of the segment
// (meaningless for a row with counts 0) and the state after the segment (Pos + counts). keys > 0 lets the
// attention read only the cache's first keys rows (all of it: 0), which the caller guarantees hold every
// row's tokens so far (state.Pos + counts ≤ keys): the pure-Go backend's reads and logits then grow with the
// prompt read so far, not with the capacity. The caller checks that state.Pos + counts ≤ the cache capacity.
func (m *Model) PrefillSegment(ctx *context.Context, tokens, modes, counts *Node, state *State, allLinear bool, keys int) (lastLogits *Node, next *State) {
	c := m.Config
	if allLinear {
		if c.Variant.LinearMixer() == NoLinear {
			panic(fmt.Errorf("Model.PrefillSegment: variant %s has no linear readout", c.Variant))
		}
		checkTokenShape("Model.PrefillSegment", tokens)
		modes = nil
	} else {
		m.checkTokens("Model.PrefillSegment", tokens, modes)
	}
	g := tokens.Graph()
	b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	if counts == nil || !counts.Shape().Equal(shapeInt(b)) {
		panic(fmt.Errorf("Model.PrefillSegment: counts must be int32 [%d], got %s", b, shapeString(counts)))
	}
	if state == nil || len(state.Layers) != c.Layers || (c.Variant.HasAttention() && state.Layers[0].KCache == nil) {
		panic(fmt.Errorf("Model.PrefillSegment: the state needs every layer's memory, KV caches included"))
	}
	s := m.root(ctx, g)
	idx := Iota(g, shapeInt(b, t), 1)
	positions := Add(ExpandAxes(state.Pos, -1), idx) // [B, S]
	valid := LessThan(idx, ExpandAxes(counts, -1))   // [B, S]
	h, table := m.embed(s, tokens)
	next = &State{Pos: Add(state.Pos, counts), Layers: make([]LayerState, c.Layers)}
	for i := range c.Layers {
		h, next.Layers[i] = m.blockSegment(m.blockParams(m.layerScope(s, i)), h, modes, positions, valid, state.Layers[i], allLinear, keys)
	}
	last := ConvertDType(Equal(idx, ExpandAxes(AddScalar(counts, -1), -1)), m.computeDType()) // [B, S] one-hot
	return m.head(s, Einsum("bt,btd->bd", last, h), table), next
}

// blockSegment is block continued from the layer's state st: h [B, S, D], modes/positions/valid [B, S] →
// the new h and the layer's state after the segment's valid tokens; attention reads the cache's first keys
// rows (0: all).
func (m *Model) blockSegment(p blockParams, h, modes, positions, valid *Node, st LayerState, allLinear bool, keys int) (*Node, LayerState) {
	c := m.Config
	var next LayerState
	x := layers.RMSNorm(h, p.attnNorm, c.NormEps)
	var k, v *Node
	kProj := Einsum("btd,hkd->bthk", x, p.wk)
	k, next.ConvK = m.sharedStreamFrom(kProj, p.convK, st.ConvK, valid)
	v, next.ConvV = m.sharedStreamFrom(Einsum("btd,hvd->bthv", x, p.wv), p.convV, st.ConvV, valid)

	var oAttn, oLinear *Node
	if c.Variant.LinearMixer() != NoLinear { // every token updates the linear state, whatever its mode
		q := Einsum("btd,hkd->bthk", x, p.wqLinear)
		oLinear, next.Linear = m.linearMixer(p, x, q, k, v, valid, st.Linear)
	}
	if c.Variant.HasAttention() { // every token writes the KV cache, whatever its mode
		kAttn := m.attentionKey(kProj, k)
		if c.RoPE {
			kAttn = layers.RoPE(kAttn, positions, c.RoPEBase)
		}
		zero := ScalarZero(h.Graph(), h.DType())
		at := cacheRows(positions, st.KCache) // padding rows add zeros at a clamped, in-range position
		next.KCache = layers.CacheAppendRows(st.KCache, Where(valid, kAttn, zero), at)
		next.VCache = layers.CacheAppendRows(st.VCache, Where(valid, v, zero), at)
		if !allLinear {
			q := Einsum("btd,hkd->bthk", x, p.wqAttn)
			if c.RoPE {
				q = layers.RoPE(q, positions, c.RoPEBase)
			}
			kRead, vRead := next.KCache, next.VCache
			if l := kRead.Shape().Dim(2); keys > 0 && keys < l {
				kRead = Slice(kRead, AxisRange(), AxisRange(), AxisRange(0, keys))
				vRead = Slice(vRead, AxisRange(), AxisRange(), AxisRange(0, keys))
			}
			oAttn = layers.AttentionCached(q, kRead, vRead, AddScalar(positions, 1), layers.DefaultScale(c.KeyDim))
		}
	}
	if allLinear {
		oAttn, modes = nil, nil
	}
	h = Add(h, m.output(p, x, selectReadout(modes, oAttn, oLinear)))
	return Add(h, layers.SwiGLU(layers.RMSNorm(h, p.mlpNorm, c.NormEps), p.mlpGate, p.mlpUp, p.mlpDown)), next
}

// sharedStreamFrom is sharedStream continued from the conv inputs before the segment, convState [B, W-1, E]
// (nil for W ≤ 1): proj [B, S, H, X] → the activations [B, S, H, X] (sharedStreamChunk's) and the conv inputs
// after each row's last valid token (the old ones for a row without valid tokens).
func (m *Model) sharedStreamFrom(proj, convW, convState, valid *Node) (out, newState *Node) {
	out, inputs := m.sharedStreamChunk(proj, convW, convState) // inputs: concat(convState, proj) [B, W-1+S, E]
	if inputs == nil {
		return out, nil
	}
	w := m.Config.ConvWidth - 1
	g, b := valid.Graph(), valid.Shape().Dim(0)
	before := GreaterThan(Ones(g, shapeInt(b, w)), Zeros(g, shapeInt(b, w))) // [B, W-1] true: the old inputs count
	return out, lastValidRows(inputs, Concatenate([]*Node{before, valid}, 1), w)
}
