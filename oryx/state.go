package oryx

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/internal/guard"
)

// State is the decode memory of a model, as graph nodes: per layer the KV cache, the linear state and the
// conv inputs, plus each row's position. Every token updates all of it, whatever its mode: that is what lets
// the mode change at any token.
type State struct {
	Pos    *Node // [B] int32: tokens seen by each row, i.e. the next token's position
	Layers []LayerState
}

// LayerState is one layer's decode memory; a field the variant does not use is nil.
type LayerState struct {
	KCache, VCache *Node // [B, H, L, K] (RoPE applied), [B, H, L, V] — attention variants (heads-major: layers.AttentionStep)
	Linear         *Node // [B, H, K, V] — variants with a linear mixer
	ConvK, ConvV   *Node // [B, W-1, H·K], [B, W-1, H·V]: the last pre-conv projections — conv width > 1
}

// Flatten lists the state's nodes in a fixed order — Pos, then per layer KCache, VCache, Linear, ConvK,
// ConvV (skipping unused fields) — for graph inputs and outputs; Model.Unflatten inverts it.
func (s *State) Flatten() []*Node {
	out := []*Node{s.Pos}
	for _, l := range s.Layers {
		for _, n := range []*Node{l.KCache, l.VCache, l.Linear, l.ConvK, l.ConvV} {
			if n != nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// stateFields tells which LayerState fields the model uses, in Flatten order.
func (m *Model) stateFields() (cache, linear, conv bool) {
	c := m.Config
	return c.Variant.HasAttention(), c.Variant.LinearMixer() != NoLinear, c.ConvWidth > 1
}

// StateSize is the number of nodes Flatten returns.
func (m *Model) StateSize() int {
	cache, linear, conv := m.stateFields()
	per := 0
	if cache {
		per += 2
	}
	if linear {
		per++
	}
	if conv {
		per += 2
	}
	return 1 + m.Config.Layers*per
}

// Unflatten rebuilds a State from the nodes Flatten produced.
func (m *Model) Unflatten(nodes []*Node) *State { return m.unflatten(nodes, true) }

// DraftStateIndices lists the positions, in State.Flatten order, of the state without its KV caches (Pos,
// then per layer Linear, ConvK, ConvV): the memory a linear-mode draft reads and writes.
func (m *Model) DraftStateIndices() []int {
	cache, linear, conv := m.stateFields()
	idx, i := []int{0}, 1
	for range m.Config.Layers {
		if cache {
			i += 2
		}
		if linear {
			idx, i = append(idx, i), i+1
		}
		if conv {
			idx, i = append(idx, i, i+1), i+2
		}
	}
	return idx
}

// UnflattenDraft rebuilds a State without KV caches (nil KCache, VCache) from the nodes of DraftStateIndices,
// in that order: the memory a linear-mode draft or trial step reads and writes. Its Flatten inverts it.
func (m *Model) UnflattenDraft(nodes []*Node) *State { return m.unflatten(nodes, false) }

// unflatten is Unflatten, or with withCache false UnflattenDraft.
func (m *Model) unflatten(nodes []*Node, withCache bool) *State {
	cache, linear, conv := m.stateFields()
	cache = cache && withCache
	want := m.StateSize()
	if !withCache {
		want = len(m.DraftStateIndices())
	}
	if len(nodes) != want {
		panic(fmt.Errorf("oryx: state has %d tensors, the model needs %d", len(nodes), want))
	}
	s := &State{Pos: nodes[0], Layers: make([]LayerState, m.Config.Layers)}
	i := 1
	next := func() *Node { i++; return nodes[i-1] }
	for l := range s.Layers {
		if cache {
			s.Layers[l].KCache, s.Layers[l].VCache = next(), next()
		}
		if linear {
			s.Layers[l].Linear = next()
		}
		if conv {
			s.Layers[l].ConvK, s.Layers[l].ConvV = next(), next()
		}
	}
	return s
}

// Prefill runs the parallel form over prompts and returns the logits of each row's last prompt token and the
// decode state. tokens [B, T] int32 are left-aligned prompts padded on the right; lengths [B] int32 (1 ≤
// length ≤ T) are their true lengths; modes [B, T] int32 (nil for single-mixer variants); capacity L ≥ T is
// the KV-cache size. Padded tokens write neither memory: the linear state and conv inputs are those after
// each row's last prompt token, and KV-cache rows from each row's length on are zero, ready for Step.
func (m *Model) Prefill(ctx *context.Context, tokens, modes, lengths *Node, capacity int) (lastLogits *Node, state *State) {
	return m.prefill(ctx, tokens, lengths, capacity, sequenceInputs{modes: modes})
}

// PrefillAllLinear is Prefill with every prompt token in linear mode, for variants with a linear mixer: the
// attention readout is not built (its T×T work would be discarded), but every layer's keys and values still
// fill the KV cache, so the state equals Prefill's with all-linear modes and later tokens may attend.
func (m *Model) PrefillAllLinear(ctx *context.Context, tokens, lengths *Node, capacity int) (lastLogits *Node, state *State) {
	if m.Config.Variant.LinearMixer() == NoLinear {
		panic(fmt.Errorf("Model.PrefillAllLinear: variant %s has no linear readout", m.Config.Variant))
	}
	checkTokenShape("Model.PrefillAllLinear", tokens) // before tokens.Graph()
	linear := Linear
	return m.prefill(ctx, tokens, lengths, capacity, sequenceInputs{only: &linear, cache: true})
}

// prefill is Prefill and PrefillAllLinear with the sequence inputs in (modes or only).
func (m *Model) prefill(ctx *context.Context, tokens, lengths *Node, capacity int, in sequenceInputs) (lastLogits *Node, state *State) {
	g := tokens.Graph()
	s := m.root(ctx, g)
	b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	if capacity < t {
		panic(fmt.Errorf("Model.Prefill: prompt length %d exceeds the cache capacity %d", t, capacity))
	}
	if lengths == nil || !lengths.Shape().Equal(shapeInt(b)) {
		panic(fmt.Errorf("Model.Prefill: lengths must be int32 [%d], got %s", b, shapeString(lengths)))
	}
	valid := LessThan(Iota(g, shapeInt(b, t), 1), ExpandAxes(lengths, -1))
	in.valid = valid
	h, table, mems := m.forward(s, tokens, in)

	// Hidden state of each row's last prompt token, by a one-hot selection (no dynamic slicing needed).
	last := ConvertDType(Equal(Iota(g, shapeInt(b, t), 1), ExpandAxes(AddScalar(lengths, -1), -1)), m.computeDType())
	lastLogits = m.head(s, Einsum("bt,btd->bd", last, h), table)

	state = &State{Pos: lengths, Layers: make([]LayerState, len(mems))}
	for i, mem := range mems {
		ls := &state.Layers[i]
		if mem.k != nil { // rows past each prompt stay zero: Step appends into them (layers.CacheAppend)
			zero := ScalarZero(g, m.computeDType())
			ls.KCache = padCache(Where(valid, mem.k, zero), capacity)
			ls.VCache = padCache(Where(valid, mem.v, zero), capacity)
		}
		ls.Linear = mem.linear
		if m.Config.ConvWidth > 1 {
			ls.ConvK, ls.ConvV = mem.convK, mem.convV
		}
	}
	return lastLogits, state
}

// padCache lays keys or values [B, T, H, X] out as a cache [B, H, L, X]: heads first, zero rows from T to L.
func padCache(x *Node, capacity int) *Node {
	x = TransposeAllAxes(x, 0, 2, 1, 3) // [B, H, T, X]
	d := x.Shape().Dimensions
	if d[2] == capacity {
		return x
	}
	zeros := Zeros(x.Graph(), shapeOf(x.DType(), d[0], d[1], capacity-d[2], d[3]))
	return Concatenate([]*Node{x, zeros}, 2)
}

// EmptyState is the state before any token: zero caches, states and conv inputs, positions 0.
func (m *Model) EmptyState(g *Graph, batch, capacity int) *State {
	c := m.Config
	cache, linear, conv := m.stateFields()
	s := &State{Pos: Zeros(g, shapeInt(batch)), Layers: make([]LayerState, c.Layers)}
	for i := range s.Layers {
		ls := &s.Layers[i]
		if cache {
			ls.KCache = Zeros(g, shapeOf(m.computeDType(), batch, c.Heads, capacity, c.KeyDim))
			ls.VCache = Zeros(g, shapeOf(m.computeDType(), batch, c.Heads, capacity, c.ValueDim))
		}
		if linear {
			ls.Linear = Zeros(g, shapeOf(m.computeDType(), batch, c.Heads, c.KeyDim, c.ValueDim))
		}
		if conv {
			ls.ConvK = Zeros(g, shapeOf(m.computeDType(), batch, c.ConvWidth-1, c.Heads*c.KeyDim))
			ls.ConvV = Zeros(g, shapeOf(m.computeDType(), batch, c.ConvWidth-1, c.Heads*c.ValueDim))
		}
	}
	return s
}

// StateMemory returns the decode state's size in bytes for one row, at bytesPerValue (4 for float32): the KV
// cache's cost per token of context, and the fixed part (linear states and conv inputs, whatever the
// context). Every variant with attention pays the KV cache — an Oryx model keeps it even for tokens read
// in linear mode, so that any later token can attend to them.
func StateMemory(c Config, bytesPerValue int) (perToken, fixed int64) {
	l, h, dk, dv := int64(c.Layers), int64(c.Heads), int64(c.KeyDim), int64(c.ValueDim)
	b := int64(bytesPerValue)
	if c.Variant.HasAttention() {
		perToken = l * h * (dk + dv) * b
	}
	if c.Variant.LinearMixer() != NoLinear {
		fixed += l * h * dk * dv * b
	}
	if c.ConvWidth > 1 {
		fixed += l * int64(c.ConvWidth-1) * h * (dk + dv) * b
	}
	return perToken, fixed
}

// CheckDecodeMemory checks, before anything is allocated, that a decode state of batch rows with a KV cache
// of capacity tokens is within the guard's bounds and fits this machine's memory (internal/guard): the
// float32 state of StateMemory plus the rows' logits.
func CheckDecodeMemory(c Config, batch, capacity int) error {
	if err := guard.Check("batch (rows)", int64(batch), 1, guard.MaxBatch); err != nil {
		return err
	}
	if err := guard.Check("capacity (KV-cache tokens)", int64(capacity), 1, guard.MaxSeqLen); err != nil {
		return err
	}
	perToken, fixed := StateMemory(c, 4)
	row, ok1 := guard.Mul(perToken, int64(capacity))
	row, ok2 := guard.Add(row, fixed+8*int64(c.Vocab))
	total, ok3 := guard.Mul(row, int64(batch))
	if !ok1 || !ok2 || !ok3 {
		total = -1
	}
	return guard.CheckMemory(fmt.Sprintf("the decode state of %d row(s) × %d tokens", batch, capacity), total)
}
