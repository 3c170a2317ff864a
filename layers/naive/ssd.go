package naive

import "math"

// SSD is Mamba-2's state-space dual recurrence (docs/mixers.md §3a), token by token from the state s0 (nil:
// zeros):
//
//	S_t = exp(g_t) S_{t−1} + k_t v_tᵀ,   o_t = S_tᵀ q_t
//
// q, k [B, T, H, K], v [B, T, H, V], g [B, T, H] (log decay ≤ 0), s0 [B, H, K, V] → out [B, T, H, V] and the
// final state [B, H, K, V]. The reference of layers.SSD and layers.SSDStep.
func SSD(d Dims, q, k, v, g, s0 []float64) (out, final []float64) {
	return d.linearMixer(q, k, v, s0, func(q, k, v []Vector, b, h int, S Matrix) ([]Vector, Matrix) {
		return ssdHead(q, k, v, d.scalars(g, b, h), S)
	})
}

// ssdHead is SSD on one head: q_t, k_t ∈ R^K, v_t ∈ R^V, g_t ∈ R, the state S ∈ R^{K×V}.
func ssdHead(q, k, v []Vector, g []float64, S Matrix) (o []Vector, final Matrix) {
	o = make([]Vector, len(q))
	for t := range q {
		alpha := math.Exp(g[t])                   // α_t = e^{g_t} ∈ (0, 1]
		S = S.Scale(alpha).Add(Outer(k[t], v[t])) // S_t = α_t S_{t−1} + k_t v_tᵀ          [K, V]
		o[t] = S.TMulVec(q[t])                    // o_t = S_tᵀ q_t                        [V]
	}
	return o, S
}
