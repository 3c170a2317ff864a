package infer

// The verify pass of speculative decoding and its commit, as graph code: T tokens per row continued from the
// decode state in one pass, with the state left open (the caches with the pass's rows appended, the linear
// state after every prefix, the conv inputs around it), then the state after any prefix of them.
//
//	B rows   T verified tokens   H heads   K key/query head dim   V value head dim   L KV-cache capacity
//	W conv width   E = H·K (keys) or H·V (values)
//
// The verify pass computes what T steps would (the same per-token maths: the linear recurrence token by token,
// one attention read of the cache for all T queries). The commit builds the state after the first a tokens of
// each row exactly as if only those had been stepped: the rows of the rejected tokens are subtracted from the
// caches (x + (−x) = 0 exactly), the linear state and conv inputs are picked at a.

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/layers"
	"github.com/oryx-go/oryx/oryx"
)

// verifyGraph feeds tokens and modes [B, T] (modes nil for single-mixer variants) continuing st, at positions
// st.Pos + t; counts [B] in [0, T] marks the first counts[b] tokens of row b as real, the rest as padding that
// writes nothing (its logits are meaningless). Returns the logits [B, T, Vocab] — position t is what a step
// would return after the row's first t+1 tokens — and what each layer leaves with every prefix's linear state
// (the open state commitGraph reads). keys > 0 lets attention read only the caches' first keys rows
// (Span.Keys). The caller checks that st.Pos + counts ≤ capacity (and ≤ keys).
func verifyGraph(ctx *context.Context, m *oryx.Model, tokens, modes, counts *Node, st *oryx.State, keys int) (*Node, []oryx.LayerSpan) {
	h, spans := m.Continue(ctx, tokens, st, oryx.Span{Modes: modes, Counts: counts, Prefixes: true, Keys: keys})
	return m.Head(ctx, h), spans
}

// commitGraph is the decode state after the first accepted[b] tokens of row b's verified tokens (0 ≤
// accepted[b] ≤ its count): pos [B] int32 is the state's Pos before the verify pass. The caches lose the rows of
// the tokens past accepted (their written rows are subtracted: the rows return to exact zeros), the linear
// state and conv inputs are those after accepted tokens, and Pos = pos + accepted. accepted[b] = 0 leaves row b
// as it was.
func commitGraph(m *oryx.Model, verified []oryx.LayerSpan, pos, accepted *Node) *oryx.State {
	g := pos.Graph()
	b := pos.Shape().Dim(0)
	if !accepted.Shape().Equal(int32Shape(b)) {
		panic(fmt.Errorf("infer: accepted must be int32 [%d], got %s", b, accepted.Shape()))
	}
	st := &oryx.State{Pos: Add(pos, accepted), Layers: make([]oryx.LayerState, len(verified))}
	keep := ExpandAxes(accepted, -1) // [B, 1]
	for i, l := range verified {
		ls := &st.Layers[i]
		if l.KCache != nil {
			t := l.KRows.Shape().Dim(1)
			idx := Iota(g, int32Shape(b, t), 1)
			drop := GreaterOrEqual(idx, keep)
			at := layers.CacheRows(Add(ExpandAxes(pos, -1), idx), l.KCache) // the rows the verify pass wrote, clamped alike
			zero := ScalarZero(g, l.KRows.DType())
			ls.KCache = layers.CacheAppendRows(l.KCache, Where(drop, Neg(l.KRows), zero), at)
			ls.VCache = layers.CacheAppendRows(l.VCache, Where(drop, Neg(l.VRows), zero), at)
		}
		if l.Linear != nil {
			ls.Linear = Squeeze(layers.GatherRows(l.Linear, keep), 1)
		}
		if l.ConvK != nil {
			w := m.Config.ConvWidth - 1
			ls.ConvK, ls.ConvV = convAfter(l.ConvK, accepted, w), convAfter(l.ConvV, accepted, w)
		}
	}
	return st
}

// flattenVerified lists the open state's nodes in a fixed order — per layer KCache, VCache, KRows, VRows,
// Linear, ConvK, ConvV, skipping unused fields — for graph outputs and inputs; unflattenVerified inverts it.
func flattenVerified(verified []oryx.LayerSpan) []*Node {
	var out []*Node
	for _, l := range verified {
		for _, n := range []*Node{l.KCache, l.VCache, l.KRows, l.VRows, l.Linear, l.ConvK, l.ConvV} {
			if n != nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// unflattenVerified rebuilds the open state from the nodes flattenVerified produced.
func unflattenVerified(m *oryx.Model, nodes []*Node) []oryx.LayerSpan {
	cache, linear, conv := m.StateFields()
	per := 0
	for _, used := range []bool{cache, cache, cache, cache, linear, conv, conv} {
		if used {
			per++
		}
	}
	if len(nodes) != per*m.Config.Layers {
		panic(fmt.Errorf("infer: the verify pass's open state has %d tensors, the model needs %d", len(nodes), per*m.Config.Layers))
	}
	verified := make([]oryx.LayerSpan, m.Config.Layers)
	i := 0
	next := func() *Node { i++; return nodes[i-1] }
	for l := range verified {
		cl := &verified[l]
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
	return verified
}
