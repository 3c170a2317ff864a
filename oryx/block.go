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

// blockMemory is what one layer leaves behind after a parallel pass: the KV-cache rows for every token,
// the linear state after the last valid token, and the conv inputs before it.
type blockMemory struct {
	k, v         *Node // [B, T, H, K] (RoPE applied), [B, T, H, V]
	linear       *Node // [B, H, K, V]
	convK, convV *Node // [B, W-1, H·K], [B, W-1, H·V]
}

// sequenceInputs are the per-token inputs every block of a parallel pass shares.
type sequenceInputs struct {
	modes     *Node // [B, T] int32, 1 = attention; nil for single-mixer variants
	positions *Node // [B, T] int32
	valid     *Node // [B, T] bool marking real tokens of a padded prefill (nil = all)
	// only, when set, puts every token in one mode and builds only that readout (LogitsInMode); modes is nil.
	only *Mode
	// cache asks every layer for its keys and values (blockMemory.k, v) even when only excludes the attention
	// readout: an all-linear prefill still fills the KV cache (Model.PrefillAllLinear).
	cache bool
}

// computes reports whether the block builds the readout of mode (the variant has it, and only does not
// exclude it).
func (in sequenceInputs) computes(v Variant, mode Mode) bool {
	if in.only != nil && *in.only != mode {
		return false
	}
	if mode == Attention {
		return v.HasAttention()
	}
	return v.LinearMixer() != NoLinear
}

// block is the parallel form: h [B, T, D] → the new h and the layer's memory.
func (m *Model) block(p blockParams, h *Node, in sequenceInputs) (*Node, blockMemory) {
	c := m.Config
	var mem blockMemory
	x := layers.RMSNorm(h, p.attnNorm, c.NormEps)

	// Shared keys and values, written to both memories by every token.
	var k, v *Node
	kProj := Einsum("btd,hkd->bthk", x, p.wk)
	k, mem.convK = m.sharedStream(kProj, p.convK, in.valid)
	v, mem.convV = m.sharedStream(Einsum("btd,hvd->bthv", x, p.wv), p.convV, in.valid)

	var oAttn, oLinear *Node
	if in.computes(c.Variant, Linear) {
		q := Einsum("btd,hkd->bthk", x, p.wqLinear)
		oLinear, mem.linear = m.linearMixer(p, x, q, k, v, in.valid, nil)
	}
	readAttention := in.computes(c.Variant, Attention)
	if readAttention || (in.cache && c.Variant.HasAttention()) {
		kAttn := m.attentionKey(kProj, k)
		if c.RoPE {
			kAttn = layers.RoPE(kAttn, in.positions, c.RoPEBase)
		}
		mem.k, mem.v = kAttn, v
		if readAttention { // else the KV cache's keys and values only (an all-linear prefill)
			q := Einsum("btd,hkd->bthk", x, p.wqAttn)
			if c.RoPE {
				q = layers.RoPE(q, in.positions, c.RoPEBase)
			}
			oAttn = m.causalAttention(q, kAttn, v)
		}
	}
	h = Add(h, m.output(p, x, selectReadout(in.modes, oAttn, oLinear)))
	return Add(h, layers.SwiGLU(layers.RMSNorm(h, p.mlpNorm, c.NormEps), p.mlpGate, p.mlpUp, p.mlpDown)), mem
}

// attentionKey is the key attention reads and caches (before RoPE), for the shared key k and the projection
// proj = x W_K it came from (both [B, T, H, K], or [B, H, K] in decoding): k itself by default; proj with
// Config.AttentionKeySource "projection" (no conv, no activation); L2-normalised per head with
// Config.AttentionKeyNorm "l2" (as GDN reads its keys, linear.go).
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

// rowIndices turns idx [B, N] into Gather/Scatter indices [B, N, 2] = (b, idx[b, n]).
func rowIndices(idx *Node) *Node {
	b, n := idx.Shape().Dim(0), idx.Shape().Dim(1)
	batch := Iota(idx.Graph(), shapeInt(b, n, 1), 0)
	return Concatenate([]*Node{ConvertDType(batch, idx.DType()), ExpandAxes(idx, -1)}, -1)
}

// gatherRows picks x[b, idx[b, n]] for x [B, T, ...] → [B, N, ...].
func gatherRows(x, idx *Node) *Node { return Gather(x, rowIndices(idx)) }

// sharedStream applies the causal depthwise conv (over time, per channel) and the activation to a shared
// projection [B, T, H, X], and returns it with the conv state after the last valid token.
func (m *Model) sharedStream(proj, convW, valid *Node) (out, convState *Node) {
	c := m.Config
	if c.ConvWidth == 0 {
		return proj, nil
	}
	d := proj.Shape().Dimensions
	flat := Reshape(proj, d[0], d[1], d[2]*d[3])
	y, state := layers.CausalConv1D(flat, convW, nil, nil)
	if valid != nil && c.ConvWidth > 1 {
		state = lastValidRows(flat, valid, c.ConvWidth-1)
	}
	if c.ConvActivation == "silu" {
		y = layers.SiLU(y)
	}
	return Reshape(y, d...), state
}

// lastValidRows returns, for each batch row b, the n rows of x [B, T, E] that end at its last valid token
// ([B, n, E], zeros before the start), via a one-hot selection matmul: the conv state after a prompt that
// is shorter than the padded batch.
func lastValidRows(x, valid *Node, n int) *Node {
	g := x.Graph()
	b, t := x.Shape().Dim(0), x.Shape().Dim(1)
	length := ReduceSum(ConvertDType(valid, dtypeInt), 1) // [B]
	row := Iota(g, shapeInt(b, n, t), 1)                  // j
	col := Iota(g, shapeInt(b, n, t), 2)                  // t
	want := Add(Sub(Reshape(length, b, 1, 1), Const(g, int32(n))), row)
	sel := ConvertDType(Equal(col, want), x.DType())
	return Einsum("bjt,bte->bje", sel, x)
}

// selectReadout picks, per token, the attention or the linear readout ([B, T, H, V], or [B, H, V] in
// decoding) by modes ([B, T] or [B], 1 = attention).
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

// output is the shared output path W_O (RMSNorm(o) ⊙ SiLU(x W_G)), for o [B, T, H, V] (or [B, H, V]).
func (m *Model) output(p blockParams, x, o *Node) *Node {
	c := m.Config
	var gate *Node
	if o.Rank() == 4 {
		gate = Einsum("btd,hvd->bthv", x, p.wg)
	} else {
		gate = Einsum("bd,hvd->bhv", x, p.wg)
	}
	var y *Node
	if c.OutputNorm == "full" {
		d := o.Shape().Dimensions
		flat := append(append([]int{}, d[:len(d)-2]...), d[len(d)-2]*d[len(d)-1])
		y = Reshape(layers.GatedRMSNorm(Reshape(o, flat...), Reshape(gate, flat...), p.outNorm, c.NormEps), d...)
	} else {
		y = layers.GatedRMSNorm(o, gate, p.outNorm, c.NormEps)
	}
	if o.Rank() == 4 {
		return Einsum("bthv,dhv->btd", y, p.wo)
	}
	return Einsum("bhv,dhv->bd", y, p.wo)
}

// attentionLiveArrays is how many [B, H, chunk, T] arrays one attention chunk keeps alive (logits, biased
// logits, their exponential, the probabilities), for the AttentionMemBytes arithmetic.
const attentionLiveArrays = 4

// causalAttention is the parallel form's attention: dense, or in query blocks under AttentionMemBytes.
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
