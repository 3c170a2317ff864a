package oryx

// The linear trial step of decoding under an entropy budget: one token with every row in linear mode, which
// reads no KV cache and so can run from the state without its caches and commit nothing (the inference
// engine's StepEscalate runs it, then either appends the token's keys and values or reruns the step).

import (
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/layers"
)

// StateSplit returns the indices, in State.Flatten order, of the KV caches (per layer K then V) and of the
// rest (Pos, then per layer the linear and conv states).
func (m *Model) StateSplit() (cacheIdx, restIdx []int) {
	cache, linear, conv := m.stateFields()
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
	return cacheIdx, restIdx
}

// TrialStep is Step with every row in linear mode (blockStep's linear path), without the KV caches, which
// the linear readout does not read: tokens [B] and the state without caches → logits [B, Vocab], the next
// state without caches, and each layer's cache entries of the token — the keys as attention stores them
// (RoPE applied) [B, H, K] and the values [B, H, V] — to append to the caches when the trial is committed
// (the inference engine's StepEscalate). The state without caches is UnflattenDraft's.
func (m *Model) TrialStep(ctx *context.Context, tokens *Node, st *State) (logits *Node, next *State, ks, vs []*Node) {
	c := m.Config
	s := m.root(ctx, tokens.Graph())
	h, table := m.embed(s, tokens)
	next = &State{Pos: AddScalar(st.Pos, 1), Layers: make([]LayerState, c.Layers)}
	for i := range c.Layers {
		p := m.blockParams(m.layerScope(s, i))
		prev, nl := st.Layers[i], &next.Layers[i]
		x := layers.RMSNorm(h, p.attnNorm, c.NormEps)
		var k, v *Node
		kProj := Einsum("bd,hkd->bhk", x, p.wk)
		k, nl.ConvK = m.sharedStreamStep(kProj, p.convK, prev.ConvK)
		v, nl.ConvV = m.sharedStreamStep(Einsum("bd,hvd->bhv", x, p.wv), p.convV, prev.ConvV)
		kAttn := m.attentionKey(kProj, k)
		if c.RoPE {
			kAttn = layers.RoPEStep(kAttn, st.Pos, c.RoPEBase)
		}
		ks, vs = append(ks, kAttn), append(vs, v)
		var o *Node
		o, nl.Linear = m.linearStep(p, x, Einsum("bd,hkd->bhk", x, p.wqLinear), k, v, prev.Linear)
		h = Add(h, m.output(p, x, o))
		h = Add(h, layers.SwiGLU(layers.RMSNorm(h, p.mlpNorm, c.NormEps), p.mlpGate, p.mlpUp, p.mlpDown))
	}
	return m.head(s, h, table), next, ks, vs
}
