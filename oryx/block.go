package oryx

// The Oryx block: one memory, two readouts.
//
//	B batch   T tokens   D d_model   H heads   K key/query head dim   V value head dim   F MLP hidden
//	W conv width   L KV-cache capacity
//
//	x   = RMSNorm(h)                                              [B, T, D]
//	k   = act(conv_K(x W_K)),  v = act(conv_V(x W_V))              shared: [B, T, H, K], [B, T, H, V]
//	      every token writes k, v to BOTH memories: the KV cache and the linear state S
//	      (attention's key is k by default; options: x W_K before the conv, k/‖k‖ — attentionKey)
//	o^A = softmax attention of q^A = x W_QA over the cache         (RoPE on q^A and the cached k only)
//	o^R = linear-state readout with q^R = x W_QR                   (Mamba-2 SSD or the gated delta rule)
//	o_t = o^A_t if mode_t = attention else o^R_t                   per token, the same in every layer
//	h  += W_O (RMSNorm(o) ⊙ SiLU(x W_G))                           shared output path
//	h  += SwiGLU(RMSNorm(h))
//
// The single-mixer baselines (transformer, mamba2, gdn) are this block with one readout. Shared: W_K, W_V,
// the convs, W_G, the output norm, W_O, the MLP and the norms (≥ 90 % of the parameters, params.go);
// mixer-specific: W_QA; W_QR and the recurrence's gates (Mamba-2: Δ projection and bias, A_log, D;
// GDN: decay projection, Δ bias, A_log, β projection).

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/oryx-go/oryx/layers"
)

// blockParams are one layer's weights (nil where the variant has no such part). Projections are stored
// [out..., in] like PyTorch's Linear: the pure-Go backend's matmul wants the contracted axis last on both
// operands and would otherwise copy the whole weight into that layout on every call (decode steps included).
type blockParams struct {
	attnNorm, wk, wv, convK, convV, wqAttn, wqLinear, wg, outNorm, wo *Node
	dtProj, decayProj, betaProj, dtBias, aLog, dSkip                  *Node
	mlpNorm, mlpGate, mlpUp, mlpDown                                  *Node
}

func (m *Model) blockParams(s scope) blockParams {
	c := m.Config
	d, h, dk, dv := c.DModel, c.Heads, c.KeyDim, c.ValueDim
	p := blockParams{
		attnNorm: s.ones("attn_norm", d),
		wk:       s.proj("wk", d, h, dk, d),
		wv:       s.proj("wv", d, h, dv, d),
		wg:       s.proj("wg", d, h, dv, d),
		wo:       s.proj("wo", h*dv, d, h, dv),
		mlpNorm:  s.ones("mlp_norm", d),
		mlpGate:  s.proj("mlp_gate", d, c.MLPHidden, d),
		mlpUp:    s.proj("mlp_up", d, c.MLPHidden, d),
		mlpDown:  s.proj("mlp_down", c.MLPHidden, d, c.MLPHidden),
	}
	if c.OutputNorm == "full" {
		p.outNorm = s.ones("out_norm", h*dv)
	} else {
		p.outNorm = s.ones("out_norm", dv)
	}
	if c.ConvWidth > 0 {
		p.convK = s.proj("conv_k", c.ConvWidth, h*dk, c.ConvWidth)
		p.convV = s.proj("conv_v", c.ConvWidth, h*dv, c.ConvWidth)
	}
	if c.Variant.HasAttention() {
		p.wqAttn = s.proj("wq_attn", d, h, dk, d)
	}
	switch c.Variant.LinearMixer() {
	case MixerMamba2:
		p.wqLinear = s.proj("wq_linear", d, h, dk, d)
		p.dtProj = s.proj("dt_proj", d, h, d)
		p.dtBias = s.random("dt_bias", dtBiasDraw, h)
		p.aLog = s.random("a_log", aLogDraw, h)
		p.dSkip = s.ones("d_skip", h)
	case MixerGDN:
		p.wqLinear = s.proj("wq_linear", d, h, dk, d)
		p.decayProj = s.proj("decay_proj", d, h, d)
		p.dtBias = s.random("dt_bias", dtBiasDraw, h)
		p.aLog = s.random("a_log", aLogDraw, h)
		p.betaProj = s.proj("beta_proj", d, h, d)
	}
	return p
}

// block is the layer, the only form of it: h [B, T, D] continued from the layer's memory st (zero values:
// the empty memory) → the new h and what the layer leaves. Every token computes the shared keys and values and
// writes both memories — the KV-cache rows (into st's caches when it has them) and the linear state — whatever
// its mode; the readout follows the mode. Attention reads the span's own keys causally from the empty memory,
// else the caches (the span's rows written first). The kernels follow the static T (layers): a one-token span
// is a decode step.
func (m *Model) block(p blockParams, h *Node, st LayerState, in spanInputs) (*Node, LayerSpan) {
	c := m.Config
	var out LayerSpan
	x := layers.RMSNorm(h, p.attnNorm, c.NormEps)

	// Shared keys and values, written to both memories by every token.
	kProj := layers.Project(x, p.wk, 1) // btd,hkd->bthk
	k, convK := m.sharedStream(kProj, p.convK, st.ConvK)
	v, convV := m.sharedStream(layers.Project(x, p.wv, 1), p.convV, st.ConvV)
	out.ConvK, out.ConvV = convK, convV

	var oAttn, oLinear *Node
	if c.Variant.LinearMixer() != NoLinear { // the linear state follows every token; its readout is a by-product
		q := layers.Project(x, p.wqLinear, 1)
		oLinear, out.Linear = m.linearMixer(p, x, q, k, v, in.valid, st.Linear, in.prefixes)
	}
	if c.Variant.HasAttention() {
		oAttn = m.attention(p, x, m.attentionKey(kProj, k), v, st, in, &out)
	}
	if !in.reads(c.Variant, Linear) {
		oLinear = nil
	}
	h = Add(h, m.output(p, x, selectReadout(in.modes, oAttn, oLinear)))
	return Add(h, layers.SwiGLU(layers.RMSNorm(h, p.mlpNorm, c.NormEps), p.mlpGate, p.mlpUp, p.mlpDown)), out
}

// attention computes the span's KV-cache rows (out.KRows, VRows; written into st's caches when it has them:
// out.KCache, VCache) and, when the span reads attention, the attention readout [B, T, H, V] (else nil):
// kAttn [B, T, H, K] is the key attention reads (attentionKey), before RoPE.
func (m *Model) attention(p blockParams, x, kAttn, v *Node, st LayerState, in spanInputs, out *LayerSpan) *Node {
	c := m.Config
	if c.RoPE {
		kAttn = layers.RoPE(kAttn, in.positions, c.RoPEBase)
	}
	out.KRows, out.VRows = kAttn, v
	if in.valid != nil { // padding writes zero rows: adding them leaves the cache as it is
		zero := ScalarZero(x.Graph(), x.DType())
		out.KRows, out.VRows = Where(in.valid, kAttn, zero), Where(in.valid, v, zero)
	}
	if st.KCache != nil {
		at := layers.CacheRows(in.positions, st.KCache)
		out.KCache = layers.CacheAppendRows(st.KCache, out.KRows, at)
		out.VCache = layers.CacheAppendRows(st.VCache, out.VRows, at)
	}
	if !in.reads(c.Variant, Attention) {
		return nil
	}
	q := layers.Project(x, p.wqAttn, 1)
	if c.RoPE {
		q = layers.RoPE(q, in.positions, c.RoPEBase)
	}
	if in.empty { // the span is the whole memory: causal attention over its own keys
		return m.causalAttention(q, kAttn, v)
	}
	kRead, vRead := out.KCache, out.VCache
	if l := kRead.Shape().Dim(2); in.keys > 0 && in.keys < l {
		kRead = Slice(kRead, AxisRange(), AxisRange(), AxisRange(0, in.keys))
		vRead = Slice(vRead, AxisRange(), AxisRange(), AxisRange(0, in.keys))
	}
	return layers.AttentionCached(q, kRead, vRead, AddScalar(in.positions, 1), layers.DefaultScale(c.KeyDim))
}

// attentionKey is the key attention reads and caches (before RoPE), for the shared key k and the projection
// proj = x W_K it came from (both [B, T, H, K]): k itself by default; proj with Config.AttentionKeySource
// "projection" (no conv, no activation); L2-normalised per head with Config.AttentionKeyNorm "l2" (as GDN
// reads its keys, linear.go).
func (m *Model) attentionKey(proj, k *Node) *Node {
	c := m.Config
	if c.AttentionKeySource == AttentionKeyProjection {
		k = proj
	}
	if c.AttentionKeyNorm == AttentionKeyL2 {
		k = layers.NormalizeL2(k, l2Eps)
	}
	return k
}

// sharedStream applies the causal depthwise conv (over time, per channel) and the activation to a shared
// projection proj [B, T, H, X], continued from the conv inputs before it, convState [B, W-1, E] (nil: zeros,
// the start of a sequence). Returns the activations [B, T, H, X] and the conv inputs concat(convState, proj)
// [B, W-1+T, E] (nil for W ≤ 1), whose rows a..a+W-2 are the conv state after the first a tokens.
func (m *Model) sharedStream(proj, convW, convState *Node) (out, inputs *Node) {
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
		if convState == nil {
			convState = Zeros(flat.Graph(), shapeOf(flat.DType(), d[0], c.ConvWidth-1, d[2]*d[3]))
		}
		inputs = Concatenate([]*Node{convState, flat}, 1)
	}
	if c.ConvActivation == "silu" {
		y = layers.SiLU(y)
	}
	return Reshape(y, d...), inputs
}

// selectReadout picks, per token, the attention or the linear readout ([B, T, H, V]) by modes ([B, T],
// 1 = attention); the only one built when the other is nil.
func selectReadout(modes, oAttn, oLinear *Node) *Node {
	switch {
	case oLinear == nil:
		return oAttn
	case oAttn == nil:
		return oLinear
	case modes == nil:
		panic(fmt.Errorf("oryx: a multi-mixer model needs a mode for every token (modes is nil)"))
	}
	return Where(Equal(modes, OnesLike(modes)), oAttn, oLinear)
}

// output is the shared output path W_O (RMSNorm(o) ⊙ SiLU(x W_G)), for o [B, T, H, V].
func (m *Model) output(p blockParams, x, o *Node) *Node {
	c := m.Config
	gate := layers.Project(x, p.wg, 1) // btd,hvd->bthv
	var y *Node
	if c.OutputNorm == "full" {
		d := o.Shape().Dimensions
		flat := []int{d[0], d[1], d[2] * d[3]}
		y = Reshape(layers.GatedRMSNorm(Reshape(o, flat...), Reshape(gate, flat...), p.outNorm, c.NormEps), d...)
	} else {
		y = layers.GatedRMSNorm(o, gate, p.outNorm, c.NormEps)
	}
	return layers.Project(y, p.wo, 2) // bthv,dhv->btd
}

// attentionLiveArrays is how many [B, H, chunk, T] arrays one attention chunk keeps alive (logits, biased
// logits, their exponential, the probabilities), for the AttentionMemBytes arithmetic.
const attentionLiveArrays = 4

// causalAttention is the empty memory's attention: dense, or in query blocks under AttentionMemBytes.
func (m *Model) causalAttention(q, k, v *Node) *Node {
	scale := layers.DefaultScale(m.Config.KeyDim)
	if m.AttentionMemBytes <= 0 {
		return layers.CausalAttention(q, k, v, scale)
	}
	d := q.Shape().Dimensions // [B, T, H, K]
	perRow := int64(attentionLiveArrays) * int64(d[0]*d[2]*d[1]) * int64(q.DType().Size())
	c := int(max(m.AttentionMemBytes/perRow, 1))
	if c > 16 {
		c -= c % 16 // few distinct chunk shapes
	}
	return layers.CausalAttentionQueryBlocks(q, k, v, scale, c)
}
