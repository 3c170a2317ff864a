package layers

import "math"

// Token-by-token references for the mixers, as plain Go loops over float64 slices, written from the
// recurrences alone (no chunking, no graph code): the oracles for the chunked forms and the steps.
//
// Layouts (row-major flat slices): vectors [B, T, H, D], scalars [B, T, H], states [B, H, K, V].

type dims struct{ B, T, H, K, V int }

func (d dims) vec(b, t, h, i, n int) int { return ((b*d.T+t)*d.H+h)*n + i }
func (d dims) sca(b, t, h int) int       { return (b*d.T+t)*d.H + h }
func (d dims) st(b, h, i, j int) int     { return ((b*d.H+h)*d.K+i)*d.V + j }

// refSSD: S_t = exp(g_t) S_{t−1} + k_t v_tᵀ, o_t = S_tᵀ q_t.
func refSSD(d dims, q, k, v, g, s0 []float64) (out, final []float64) {
	out = make([]float64, d.B*d.T*d.H*d.V)
	final = make([]float64, d.B*d.H*d.K*d.V)
	if s0 != nil {
		copy(final, s0)
	}
	for b := range d.B {
		for h := range d.H {
			for t := range d.T {
				a := math.Exp(g[d.sca(b, t, h)])
				for i := range d.K {
					for j := range d.V {
						s := &final[d.st(b, h, i, j)]
						*s = a**s + k[d.vec(b, t, h, i, d.K)]*v[d.vec(b, t, h, j, d.V)]
					}
				}
				for j := range d.V {
					var o float64
					for i := range d.K {
						o += final[d.st(b, h, i, j)] * q[d.vec(b, t, h, i, d.K)]
					}
					out[d.vec(b, t, h, j, d.V)] = o
				}
			}
		}
	}
	return
}

// refGDN: S_t = exp(g_t)(I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ, o_t = scale · S_tᵀ q_t, computed literally
// as the matrix product (not in the u-form used by the chunked code).
func refGDN(d dims, q, k, v, g, beta, s0 []float64, scale float64) (out, final []float64) {
	out = make([]float64, d.B*d.T*d.H*d.V)
	final = make([]float64, d.B*d.H*d.K*d.V)
	if s0 != nil {
		copy(final, s0)
	}
	next := make([]float64, d.K*d.V)
	for b := range d.B {
		for h := range d.H {
			for t := range d.T {
				a, be := math.Exp(g[d.sca(b, t, h)]), beta[d.sca(b, t, h)]
				for i := range d.K {
					for j := range d.V {
						// row i of (I − β k kᵀ) times S, column j
						var s float64
						for l := range d.K {
							m := -be * k[d.vec(b, t, h, i, d.K)] * k[d.vec(b, t, h, l, d.K)]
							if l == i {
								m++
							}
							s += m * final[d.st(b, h, l, j)]
						}
						next[i*d.V+j] = a*s + be*k[d.vec(b, t, h, i, d.K)]*v[d.vec(b, t, h, j, d.V)]
					}
				}
				for i := range d.K {
					for j := range d.V {
						final[d.st(b, h, i, j)] = next[i*d.V+j]
					}
				}
				for j := range d.V {
					var o float64
					for i := range d.K {
						o += final[d.st(b, h, i, j)] * q[d.vec(b, t, h, i, d.K)]
					}
					out[d.vec(b, t, h, j, d.V)] = scale * o
				}
			}
		}
	}
	return
}

// refAttention: o_t = Σ_{s≤t} softmax_s(scale · q_t·k_s) v_s, with the row max subtracted.
func refAttention(d dims, q, k, v []float64, scale float64) []float64 {
	out := make([]float64, d.B*d.T*d.H*d.V)
	logits := make([]float64, d.T)
	for b := range d.B {
		for h := range d.H {
			for t := range d.T {
				m := math.Inf(-1)
				for s := 0; s <= t; s++ {
					var l float64
					for i := range d.K {
						l += q[d.vec(b, t, h, i, d.K)] * k[d.vec(b, s, h, i, d.K)]
					}
					logits[s] = scale * l
					m = max(m, logits[s])
				}
				var z float64
				for s := 0; s <= t; s++ {
					logits[s] = math.Exp(logits[s] - m)
					z += logits[s]
				}
				for j := range d.V {
					var o float64
					for s := 0; s <= t; s++ {
						o += logits[s] / z * v[d.vec(b, s, h, j, d.V)]
					}
					out[d.vec(b, t, h, j, d.V)] = o
				}
			}
		}
	}
	return out
}
