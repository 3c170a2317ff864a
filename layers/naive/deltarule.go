package naive

import "math"

// GatedDeltaRule is Gated DeltaNet's recurrence (docs/mixers.md §4a), token by token from the state s0 (nil:
// zeros), computed literally as the matrix product (not in the u-form the chunked code and the step use):
//
//	S_t = exp(g_t)(I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ,   o_t = scale · S_tᵀ q_t
//
// q, k [B, T, H, K], v [B, T, H, V], g, beta [B, T, H], s0 [B, H, K, V] → out [B, T, H, V] and the final
// state [B, H, K, V]. The reference of layers.GatedDeltaRule and layers.GatedDeltaRuleStep.
func GatedDeltaRule(d Dims, q, k, v, g, beta, s0 []float64, scale float64) (out, final []float64) {
	return d.linearMixer(q, k, v, s0, func(q, k, v []Vector, b, h int, S Matrix) ([]Vector, Matrix) {
		return deltaRuleHead(q, k, v, d.scalars(g, b, h), d.scalars(beta, b, h), S, scale)
	})
}

// deltaRuleHead is the gated delta rule on one head: q_t, k_t ∈ R^K, v_t ∈ R^V, g_t, β_t ∈ R, S ∈ R^{K×V}.
func deltaRuleHead(q, k, v []Vector, g, beta []float64, S Matrix, scale float64) (o []Vector, final Matrix) {
	o = make([]Vector, len(q))
	I := Identity(len(k[0]))
	for t := range q {
		alpha := math.Exp(g[t])                          // α_t = e^{g_t} ∈ (0, 1]
		erase := I.Sub(Outer(k[t], k[t]).Scale(beta[t])) // I − β_t k_t k_tᵀ                   [K, K]
		write := Outer(k[t], v[t]).Scale(beta[t])        // β_t k_t v_tᵀ                         [K, V]
		S = erase.Mul(S).Scale(alpha).Add(write)         // S_t = α_t (I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ
		o[t] = S.TMulVec(q[t]).Scale(scale)              // o_t = scale · S_tᵀ q_t               [V]
	}
	return o, S
}
