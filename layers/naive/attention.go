package naive

import "math"

// Attention is causal softmax attention (docs/mixers.md §2), query by query:
//
//	o_t = Σ_{s≤t} softmax_s(scale · q_t·k_s) v_s   (the row max subtracted before the exponentials)
//
// q, k [B, T, H, K], v [B, T, H, V] → [B, T, H, V]. The reference of layers.CausalAttention and the
// cached forms.
func Attention(d Dims, q, k, v []float64, scale float64) []float64 {
	out := make([]float64, d.B*d.T*d.H*d.V)
	for b := range d.B {
		for h := range d.H {
			o := attentionHead(d.vectors(q, b, h, d.K), d.vectors(k, b, h, d.K), d.vectors(v, b, h, d.V), scale)
			d.setVectors(out, b, h, d.V, o)
		}
	}
	return out
}

// attentionHead is causal attention on one head: q_t, k_t ∈ R^K, v_t ∈ R^V.
func attentionHead(q, k, v []Vector, scale float64) []Vector {
	o := make([]Vector, len(q))
	for t := range q {
		logits := make([]float64, t+1) // ℓ_s = scale · q_t·k_s, s ≤ t              [t+1]
		m := math.Inf(-1)
		for s := range t + 1 {
			logits[s] = scale * Dot(q[t], k[s])
			m = max(m, logits[s]) // m = max_s ℓ_s
		}
		var z float64 // z = Σ_s e^{ℓ_s − m}
		for s := range t + 1 {
			z += math.Exp(logits[s] - m)
		}
		o[t] = make(Vector, len(v[t]))
		for s := range t + 1 {
			p := math.Exp(logits[s]-m) / z // p_s = softmax_s(ℓ)
			o[t] = o[t].Add(v[s].Scale(p)) // o_t = Σ_{s≤t} p_s v_s                     [V]
		}
	}
	return o
}
