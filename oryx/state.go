package oryx

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/oryx-go/oryx/internal/guard"
)

// State is the decode memory of a model, as graph nodes: per layer the KV cache, the linear state and the
// conv inputs, plus each row's position. Every token updates all of it, whatever its mode: that is what lets
// the mode change at any token. Model.Continue continues it by T tokens; package oryx/infer assembles the next
// State from what the layers leave (prefill, step, segments, the speculative commit).
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

// StateFields tells which LayerState fields the model uses, in Flatten order: the KV caches (variants with
// attention), the linear state (variants with a linear mixer), the conv inputs (conv width > 1).
func (m *Model) StateFields() (cache, linear, conv bool) {
	c := m.Config
	return c.Variant.HasAttention(), c.Variant.LinearMixer() != NoLinear, c.ConvWidth > 1
}

// StateSize is the number of nodes Flatten returns.
func (m *Model) StateSize() int {
	cache, linear, conv := m.StateFields()
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
func (m *Model) Unflatten(nodes []*Node) *State {
	if len(nodes) != m.StateSize() {
		panic(fmt.Errorf("oryx: state has %d tensors, the model needs %d", len(nodes), m.StateSize()))
	}
	cache, linear, conv := m.StateFields()
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

// EmptyState is the state before any token: zero caches, states and conv inputs, positions 0.
func (m *Model) EmptyState(g *Graph, batch, capacity int) *State {
	c := m.Config
	cache, linear, conv := m.StateFields()
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

// DecodeMemory estimates the peak bytes of decoding with a state of batch rows and a KV cache of capacity
// tokens (float32), −1 when the arithmetic overflows an int64. Per row it counts what decoding really holds:
//
//	state   = StateMemory: perToken·L + fixed        the KV caches, linear states and conv inputs
//	step    = 4·H·L·(⌈K⌉₃₂ + 32 + 4)                 a decode step that reads the whole cache, one layer at a time:
//	                                                 the pure-Go backend's product copies the layer's keys into
//	                                                 blocks of 32×32 values (K rounded up to 32) and writes the
//	                                                 logits into blocks of 32 rows, and the softmax keeps 4 [H, L]
//	                                                 arrays (attention variants only)
//	logits  = 8·Vocab                                the last logits and their host copy
//
// as gcSlack · (state + 2·step + logits): the pure-Go backend's buffers are Go memory, its buffer pools keep
// one step's copies alive through the next collection (2·step), and the collector lets the heap grow to
// (1 + GOGC/100) × the live data before it collects (gcSlack) — every whole-cache step leaves its copies
// behind. Measured on the tiny Oryx-TG (768 B of state per token, 544 B of step copies; pure Go, 2026-12-08):
// before the prefill wrote its caches in place, the prefill alone took 3.0× the state (the old state, a zero
// block and the concatenated cache); now it takes 1.05×, and six whole-cache steps at 524,288 tokens peaked
// at 3.45× and 4.1× in two runs (the estimate: 4.8×). XLA CPU keeps its buffers outside the Go heap: there
// the prefill peaked at 3.0× (a zero cache and the scatter's output, beside what glibc keeps of the freed
// state) and whole-cache steps added nothing. The estimate is the larger, the pure-Go backend's.
func DecodeMemory(c Config, batch, capacity int) int64 {
	perToken, fixed := StateMemory(c, 4)
	row, ok1 := guard.Mul(perToken, int64(capacity))
	row, ok2 := guard.Add(row, fixed+8*int64(c.Vocab))
	ok3, ok4 := true, true
	if c.Variant.HasAttention() {
		k := (int64(c.KeyDim) + 31) / 32 * 32
		var step int64
		step, ok3 = guard.MulAll(2*4*int64(c.Heads), int64(capacity), k+32+4)
		row, ok4 = guard.Add(row, step)
	}
	total, ok5 := guard.MulAll(row, int64(batch), gcSlack)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return -1
	}
	return total
}

// gcSlack is the Go heap's peak over its live data under the collector's default setting (GOGC=100; an
// evaluation runs at 25, below it).
const gcSlack = 2

// CheckDecodeMemory checks, before anything is allocated, that a decode state of batch rows with a KV cache
// of capacity tokens is within the guard's bounds and that decoding with it (DecodeMemory) fits this
// process's memory (internal/guard).
func CheckDecodeMemory(c Config, batch, capacity int) error {
	if err := guard.Check("batch (rows)", int64(batch), 1, guard.MaxBatch); err != nil {
		return err
	}
	if err := guard.Check("capacity (KV-cache tokens)", int64(capacity), 1, guard.MaxSeqLen); err != nil {
		return err
	}
	return guard.CheckMemory(fmt.Sprintf("the decode state of %d row(s) × %d tokens", batch, capacity), DecodeMemory(c, batch, capacity))
}
