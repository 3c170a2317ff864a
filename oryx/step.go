package oryx

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/layers"
)

// Step decodes one token per row: tokens [B] int32, modes [B] int32 (1 = attention; nil for single-mixer
// variants) at positions state.Pos → logits [B, Vocab] and the next state. Both memories are updated for
// every row whatever its mode; only the readout differs. The caller checks that Pos < capacity (the cache
// write at an out-of-range position writes nothing).
func (m *Model) Step(ctx *context.Context, tokens, modes *Node, state *State) (*Node, *State) {
	return m.step(ctx, tokens, modes, state, false)
}

// StepAllLinear is Step for a batch whose rows are all in linear mode, for variants with a linear mixer: the
// KV cache is still appended (the mode may switch later) but not read, so the cost of a token does not grow
// with the context. A state without KV caches (nil KCache, VCache: the drafts of speculative decoding, which
// are thrown away) is stepped without them.
func (m *Model) StepAllLinear(ctx *context.Context, tokens *Node, state *State) (*Node, *State) {
	if m.Config.Variant.LinearMixer() == NoLinear {
		panic(fmt.Errorf("Model.StepAllLinear: variant %s has no linear mixer", m.Config.Variant))
	}
	return m.step(ctx, tokens, nil, state, true)
}

func (m *Model) step(ctx *context.Context, tokens, modes *Node, state *State, allLinear bool) (*Node, *State) {
	if tokens == nil || tokens.Rank() != 1 || !tokens.DType().IsInt() {
		panic(fmt.Errorf("Model.Step: tokens must be an integer [B] tensor, got %s", shapeString(tokens)))
	}
	if m.Config.Variant.IsMultiMixer() && !allLinear && (modes == nil || !modes.Shape().Equal(shapeInt(tokens.Shape().Dim(0)))) {
		panic(fmt.Errorf("Model.Step: modes must be int32 [%d], got %s", tokens.Shape().Dim(0), shapeString(modes)))
	}
	s := m.root(ctx, tokens.Graph())
	h, table := m.embed(s, tokens)
	next := &State{Pos: AddScalar(state.Pos, 1), Layers: make([]LayerState, m.Config.Layers)}
	for i := range m.Config.Layers {
		h, next.Layers[i] = m.blockStep(m.blockParams(m.layerScope(s, i)), h, modes, state.Pos, state.Layers[i], allLinear)
	}
	return m.head(s, h, table), next
}

// blockStep is the one-token form of block: h [B, D], modes and pos [B]. With allLinear the attention read
// is skipped (the cache is still written).
func (m *Model) blockStep(p blockParams, h, modes, pos *Node, st LayerState, allLinear bool) (*Node, LayerState) {
	c := m.Config
	var next LayerState
	x := layers.RMSNorm(h, p.attnNorm, c.NormEps)
	var k, v *Node
	kProj := Einsum("bd,hkd->bhk", x, p.wk)
	k, next.ConvK = m.sharedStreamStep(kProj, p.convK, st.ConvK)
	v, next.ConvV = m.sharedStreamStep(Einsum("bd,hvd->bhv", x, p.wv), p.convV, st.ConvV)

	var oAttn, oLinear *Node
	if c.Variant.HasAttention() && (st.KCache != nil || !allLinear) {
		q, kAttn := Einsum("bd,hkd->bhk", x, p.wqAttn), m.attentionKey(kProj, k)
		if c.RoPE {
			q, kAttn = layers.RoPEStep(q, pos, c.RoPEBase), layers.RoPEStep(kAttn, pos, c.RoPEBase)
		}
		next.KCache = layers.CacheAppend(st.KCache, kAttn, pos)
		next.VCache = layers.CacheAppend(st.VCache, v, pos)
		if !allLinear {
			oAttn = layers.AttentionStep(q, next.KCache, next.VCache, AddScalar(pos, 1), layers.DefaultScale(c.KeyDim))
		}
	}
	if c.Variant.LinearMixer() != NoLinear {
		oLinear, next.Linear = m.linearStep(p, x, Einsum("bd,hkd->bhk", x, p.wqLinear), k, v, st.Linear)
	}
	if allLinear {
		modes = nil
	}
	h = Add(h, m.output(p, x, selectReadout(modes, oAttn, oLinear)))
	return Add(h, layers.SwiGLU(layers.RMSNorm(h, p.mlpNorm, c.NormEps), p.mlpGate, p.mlpUp, p.mlpDown)), next
}

// sharedStreamStep is sharedStream for one token: proj [B, H, X] → conv step → activation.
func (m *Model) sharedStreamStep(proj, convW, convState *Node) (out, newState *Node) {
	c := m.Config
	if c.ConvWidth == 0 {
		return proj, nil
	}
	d := proj.Shape().Dimensions
	y, state := layers.CausalConv1DStep(Reshape(proj, d[0], d[1]*d[2]), convW, nil, convState)
	if c.ConvWidth == 1 {
		state = nil
	}
	if c.ConvActivation == "silu" {
		y = layers.SiLU(y)
	}
	return Reshape(y, d...), state
}
