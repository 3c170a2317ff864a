package infer

// The decode state across calls, as graph code: each graph the engine runs continues the model's memory by a
// span of tokens (oryx.Model.Continue, the one form of the layer) and assembles the next oryx.State from what
// the layers leave (oryx.LayerSpan):
//
//	prefill   T prompt tokens from the empty memory; the span's keys and values laid out as caches of L rows
//	step      one token per row (T = 1; the step kernels)
//	segment   S prompt tokens continued from the state (prefillsegments.go)
//	verify    K+1 tokens with every prefix's linear state kept; the commit keeps any prefix (speculative.go)
//	draft, trial   one all-linear token from the state without its KV caches (speculative.go, escalate.go)
//
//	B rows   T span tokens   D d_model   H heads   K key/query head dim   V value head dim
//	L KV-cache capacity   W conv width   E = H·K (keys) or H·V (values)

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/layers"
	"github.com/oryx-go/oryx/oryx"
)

// int32Shape is the shape of an int32 tensor of dims.
func int32Shape(dims ...int) shapes.Shape { return shapes.Make(dtypes.Int32, dims...) }

// nextState assembles the decode state after a span of t tokens per row continued from st (nil: the empty
// memory), of which counts [B] (nil: all t) were real: Pos advanced by counts; the caches the layers wrote
// (from the empty memory, the span's rows laid out as caches of capacity rows); the linear state; the conv
// inputs after each row's last real token.
func nextState(m *oryx.Model, st *oryx.State, spans []oryx.LayerSpan, counts *Node, t, capacity int) *oryx.State {
	var pos *Node
	switch {
	case st == nil:
		pos = counts
	case counts == nil:
		pos = AddScalar(st.Pos, float64(t))
	default:
		pos = Add(st.Pos, counts)
	}
	next := &oryx.State{Pos: pos, Layers: make([]oryx.LayerState, len(spans))}
	w := m.Config.ConvWidth - 1
	for i, l := range spans {
		ls := &next.Layers[i]
		ls.KCache, ls.VCache, ls.Linear = l.KCache, l.VCache, l.Linear
		if st == nil && l.KRows != nil { // rows past each prompt stay zero: later spans add into them
			ls.KCache, ls.VCache = padCache(l.KRows, capacity), padCache(l.VRows, capacity)
		}
		if w > 0 {
			ls.ConvK, ls.ConvV = convAfter(l.ConvK, counts, w), convAfter(l.ConvV, counts, w)
		}
	}
	return next
}

// convAfter is the conv state [B, W-1, E] after each row's last real token, for the conv inputs before and
// in a span, inputs [B, W-1+T, E], of which the first counts[b] span tokens are real (nil: all).
func convAfter(inputs, counts *Node, w int) *Node {
	if counts == nil {
		t := inputs.Shape().Dim(1) - w
		return Slice(inputs, AxisRange(), AxisRange(t, t+w))
	}
	first := ExpandAxes(counts, -1) // [B, 1]: the state after a tokens is rows a..a+W-2
	return layers.GatherRows(inputs, Add(first, Iota(inputs.Graph(), int32Shape(counts.Shape().Dim(0), w), 1)))
}

// padCache lays keys or values [B, T, H, X] out as a cache [B, H, L, X]: heads first, zero rows from T to L.
// The rows are added into a zero cache (layers.CacheAppendRows), which the backend writes in place: a zero
// block of L − T rows concatenated with the prompt's rows held both, ~2× the cache, while the prefill ran.
func padCache(x *Node, capacity int) *Node {
	d := x.Shape().Dimensions // [B, T, H, X]
	if d[1] == capacity {
		return TransposeAllAxes(x, 0, 2, 1, 3)
	}
	zeros := Zeros(x.Graph(), shapes.Make(x.DType(), d[0], d[2], capacity, d[3]))
	return layers.CacheAppendRows(zeros, x, Iota(x.Graph(), int32Shape(d[0], d[1]), 1))
}

// lastRows picks each row's hidden state at its last real token, h [B, T, D] and counts [B] (≥ 1) → [B, D].
func lastRows(h, counts *Node) *Node {
	b, t := h.Shape().Dim(0), h.Shape().Dim(1)
	if t == 1 {
		return Reshape(h, b, h.Shape().Dim(2))
	}
	// A one-hot selection (no dynamic slicing needed).
	last := ConvertDType(Equal(Iota(h.Graph(), int32Shape(b, t), 1), ExpandAxes(AddScalar(counts, -1), -1)), h.DType())
	return Einsum("bt,btd->bd", last, h)
}

// prefillGraph is the one-graph prefill: tokens and modes [B, T] (modes nil for single-mixer variants and
// with allLinear), lengths [B] (1 ≤ length ≤ T) → the logits [B, Vocab] after each row's last prompt token and
// the state after the prompts, with KV caches of capacity ≥ T rows. Padding writes neither memory.
func prefillGraph(ctx *context.Context, m *oryx.Model, tokens, modes, lengths *Node, capacity int, allLinear bool) (*Node, *oryx.State) {
	b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	if capacity < t {
		panic(fmt.Errorf("infer: prompt length %d exceeds the cache capacity %d", t, capacity))
	}
	if lengths == nil || !lengths.Shape().Equal(int32Shape(b)) {
		panic(fmt.Errorf("infer: prompt lengths must be int32 [%d]", b))
	}
	h, spans := m.Continue(ctx, tokens, nil, oryx.Span{Modes: modes, AllLinear: allLinear, Counts: lengths})
	return m.Head(ctx, lastRows(h, lengths)), nextState(m, nil, spans, lengths, t, capacity)
}

// stepGraph is one decode step: tokens [B] and modes [B] (nil for single-mixer variants and with allLinear)
// continuing st → logits [B, Vocab], the next state and what each layer left (its keys and values: the
// escalation trial's). keys > 0 lets attention read only the caches' first keys rows (Span.Keys). With
// allLinear, st may lack its KV caches (the drafts, the trial): the next state then has none either.
func stepGraph(ctx *context.Context, m *oryx.Model, tokens, modes *Node, st *oryx.State, allLinear bool, keys int) (*Node, *oryx.State, []oryx.LayerSpan) {
	b := tokens.Shape().Dim(0)
	if modes != nil {
		modes = Reshape(modes, b, 1)
	}
	h, spans := m.Continue(ctx, Reshape(tokens, b, 1), st, oryx.Span{Modes: modes, AllLinear: allLinear, Keys: keys})
	return m.Head(ctx, Reshape(h, b, h.Shape().Dim(2))), nextState(m, st, spans, nil, 1, 0), spans
}

// unflattenWithout rebuilds a State without KV caches (nil KCache, VCache) from the nodes of
// indicesWithoutCaches, in that order: the memory a linear-mode draft or trial step reads and writes (its
// Flatten inverts it).
func unflattenWithout(m *oryx.Model, nodes []*Node) *oryx.State {
	_, linear, conv := m.StateFields()
	if want := len(indicesWithoutCaches(m)); len(nodes) != want {
		panic(fmt.Errorf("infer: the state without caches has %d tensors, the model needs %d", len(nodes), want))
	}
	s := &oryx.State{Pos: nodes[0], Layers: make([]oryx.LayerState, m.Config.Layers)}
	i := 1
	next := func() *Node { i++; return nodes[i-1] }
	for l := range s.Layers {
		if linear {
			s.Layers[l].Linear = next()
		}
		if conv {
			s.Layers[l].ConvK, s.Layers[l].ConvV = next(), next()
		}
	}
	return s
}

// indicesWithoutCaches lists the positions, in State.Flatten order, of the state without its KV caches (Pos,
// then per layer Linear, ConvK, ConvV); cacheIndices those of the caches (per layer K then V).
func indicesWithoutCaches(m *oryx.Model) []int {
	rest, _ := splitState(m)
	return rest
}

// splitState returns the indices, in State.Flatten order, of the state without its KV caches (Pos, then per
// layer the linear and conv states) and of the caches (per layer K then V).
func splitState(m *oryx.Model) (restIdx, cacheIdx []int) {
	cache, linear, conv := m.StateFields()
	restIdx = []int{0}
	i := 1
	for range m.Config.Layers {
		if cache {
			cacheIdx = append(cacheIdx, i, i+1)
			i += 2
		}
		if linear {
			restIdx = append(restIdx, i)
			i++
		}
		if conv {
			restIdx = append(restIdx, i, i+1)
			i += 2
		}
	}
	return restIdx, cacheIdx
}
