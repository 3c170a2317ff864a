package oryx

// The one form of the model: continue a memory by T tokens per row. Every pass runs it — training and
// evaluation (the empty memory), the one-graph prefill, prefill segments, a decode step (T = 1), the verify
// pass of speculative decoding (the linear state kept after every prefix), the drafts and the escalation trial
// (all-linear, without the KV caches) — and package oryx/infer turns what the layers leave (LayerSpan) into the
// next decode state. The kernels follow the static T (layers: a one-token span takes the step forms).
//
//	B batch   T span tokens   D d_model   H heads   K key/query head dim   V value head dim
//	L KV-cache capacity   W conv width   E = H·K (keys) or H·V (values)

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/ml/context"
)

// Span says how the T tokens of a Continue call are read.
type Span struct {
	// Modes [B, T] int32 (1 = attention) is each token's readout; nil for single-mixer variants and with
	// AllLinear.
	Modes *Node
	// AllLinear reads every token in linear mode (variants with a linear mixer): no attention readout is
	// built; the keys and values are still computed (LayerSpan.KRows, VRows) and written to the caches.
	AllLinear bool
	// Counts [B] int32, when set, marks the first Counts[b] tokens of row b as real and the rest as padding
	// that changes no memory (zero rows, identity linear transitions); their outputs are meaningless. nil: all
	// tokens are real.
	Counts *Node
	// Keys > 0 lets attention read only the cache's first Keys rows, which the caller guarantees hold every
	// row's tokens so far (state.Pos + T ≤ Keys): the read then costs what is filled, not the capacity. 0: all.
	Keys int
	// Prefixes keeps the linear state after every prefix of the span (LayerSpan.Linear [B, T+1, H, K, V]),
	// computed token by token: the verify pass of speculative decoding keeps any prefix of its tokens.
	Prefixes bool
}

// LayerSpan is what one layer leaves after a span: what the next decode state is assembled from (package
// oryx/infer). A field the variant does not have is nil.
type LayerSpan struct {
	// KRows, VRows [B, T, H, K], [B, T, H, V]: the span's keys (RoPE applied, as the cache stores them) and
	// values, zero at padding tokens.
	KRows, VRows *Node
	// KCache, VCache [B, H, L, K], [B, H, L, V]: the state's caches with the span's rows written (nil when
	// the state had none: the empty memory, or a state without caches).
	KCache, VCache *Node
	// Linear [B, H, K, V]: the linear state after the last real token; with Span.Prefixes [B, T+1, H, K, V],
	// after the first a tokens for a = 0..T.
	Linear *Node
	// ConvK, ConvV [B, W-1+T, E]: the conv inputs before the span followed by the span's (pre-conv
	// projections); rows a..a+W-2 are the conv state after the first a tokens (nil for W ≤ 1).
	ConvK, ConvV *Node
}

// spanInputs are the per-token inputs every layer of a pass shares.
type spanInputs struct {
	modes     *Node // [B, T] int32, 1 = attention; nil for single-mixer variants or with only
	positions *Node // [B, T] int32: absolute positions
	valid     *Node // [B, T] bool marking real tokens (nil = all)
	// only, when set, puts every token in one mode and builds only that readout (LogitsInMode; AllLinear).
	only     *Mode
	keys     int  // Span.Keys
	prefixes bool // Span.Prefixes
	// empty: the pass starts from the empty memory (no state): attention reads the span's own keys.
	empty bool
}

// reads reports whether the layers build the readout of mode (the variant has it, and only does not exclude
// it).
func (in spanInputs) reads(v Variant, mode Mode) bool {
	if in.only != nil && *in.only != mode {
		return false
	}
	if mode == Attention {
		return v.HasAttention()
	}
	return v.LinearMixer() != NoLinear
}

// Continue runs the T tokens of tokens [B, T] (int) through every layer, continuing state (nil: the empty
// memory, every row at position 0), at positions state.Pos + t, read as span says. It returns the hidden
// states after the last layer [B, T, D] (before the final norm: Head gives the logits) and what each layer
// leaves. Every token writes both memories whatever its mode; only the readout follows the mode. A state
// without KV caches (nil KCache: the drafts and the escalation trial) can be continued in linear mode only.
// The caller checks that state.Pos + T ≤ the cache capacity.
func (m *Model) Continue(ctx *context.Context, tokens *Node, state *State, span Span) (h *Node, layers []LayerSpan) {
	const fn = "Model.Continue"
	in := spanInputs{modes: span.Modes, keys: span.Keys, prefixes: span.Prefixes, empty: state == nil}
	if span.AllLinear {
		if m.Config.Variant.LinearMixer() == NoLinear {
			panic(fmt.Errorf("%s: variant %s has no linear readout", fn, m.Config.Variant))
		}
		linear := Linear
		in.only, in.modes = &linear, nil
		checkTokenShape(fn, tokens)
	} else {
		m.checkTokens(fn, tokens, span.Modes)
	}
	g := tokens.Graph()
	b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	idx := Iota(g, shapeInt(b, t), 1)
	in.positions = idx
	if state != nil {
		if len(state.Layers) != m.Config.Layers || state.Pos == nil || !state.Pos.Shape().Equal(shapeInt(b)) {
			panic(fmt.Errorf("%s: the state must have Pos int32 [%d] and %d layers, got Pos %s and %d layers", fn, b,
				m.Config.Layers, shapeString(state.Pos), len(state.Layers)))
		}
		if in.reads(m.Config.Variant, Attention) && state.Layers[0].KCache == nil {
			panic(fmt.Errorf("%s: attention reads the KV caches and the state has none: continue it with AllLinear", fn))
		}
		in.positions = Add(ExpandAxes(state.Pos, -1), idx)
	}
	if span.Counts != nil {
		if !span.Counts.Shape().Equal(shapeInt(b)) {
			panic(fmt.Errorf("%s: counts must be int32 [%d], got %s", fn, b, shapeString(span.Counts)))
		}
		in.valid = LessThan(idx, ExpandAxes(span.Counts, -1))
	}
	s := m.root(ctx, g)
	h, _, layers = m.forward(s, tokens, state, in)
	return h, layers
}

// Head maps hidden states [..., D] (Continue's) to logits [..., Vocab]: the final norm and the LM head.
func (m *Model) Head(ctx *context.Context, h *Node) *Node {
	s := m.root(ctx, h.Graph())
	var table *Node
	if m.Config.TiedEmbeddings {
		table = m.embeddingTable(s)
	}
	return m.head(s, h, table)
}

// forward runs the layers over tokens [B, T] from state (nil: the empty memory) and returns the final hidden
// states [B, T, D], the embedding table and what each layer leaves.
func (m *Model) forward(s scope, tokens *Node, state *State, in spanInputs) (h, table *Node, layers []LayerSpan) {
	h, table = m.embed(s, tokens)
	layers = make([]LayerSpan, m.Config.Layers)
	for i := range m.Config.Layers {
		var st LayerState
		if state != nil {
			st = state.Layers[i]
		}
		h, layers[i] = m.block(m.blockParams(m.layerScope(s, i)), h, st, in)
	}
	return h, table, layers
}
