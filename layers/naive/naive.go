// Package naive holds the token-by-token reference forms of the mixers of package layers, as plain Go loops
// over float64 slices written from the recurrences alone (no chunking, no graph code): the oracles the
// chunked forms, the scans and the one-token steps of package layers are tested against, and the shortest
// statement of what each mixer computes. (flash-linear-attention ships naive.py beside chunk.py for the same
// reason.) They are slow — O(T·K·V) per head for the linear mixers, O(T²) for attention — and meant for
// tests and for reading.
//
// Layouts (row-major flat slices): vectors [B, T, H, D], per-token scalars [B, T, H], states [B, H, K, V];
// the shape glossary is package layers'.
package naive

import "math"

// Dims are the sizes of a reference computation: batch B, tokens T, heads H, key dim K, value dim V.
type Dims struct{ B, T, H, K, V int }

// Vec is the flat index of element i of the n-wide vector of (batch b, token t, head h) in a [B, T, H, n]
// slice.
func (d Dims) Vec(b, t, h, i, n int) int { return ((b*d.T+t)*d.H+h)*n + i }

// Scalar is the flat index of (batch b, token t, head h) in a [B, T, H] slice.
func (d Dims) Scalar(b, t, h int) int { return (b*d.T+t)*d.H + h }

// State is the flat index of element (i, j) of head h's state of batch b in a [B, H, K, V] slice.
func (d Dims) State(b, h, i, j int) int { return ((b*d.H+h)*d.K+i)*d.V + j }

// SSD is Mamba-2's state-space dual recurrence, token by token from the state s0 (nil: zeros):
//
//	S_t = exp(g_t) S_{t−1} + k_t v_tᵀ,   o_t = S_tᵀ q_t
//
// q, k [B, T, H, K], v [B, T, H, V], g [B, T, H] (log decay ≤ 0), s0 [B, H, K, V] → out [B, T, H, V] and the
// final state [B, H, K, V]. The reference of layers.SSD and layers.SSDStep.
func SSD(d Dims, q, k, v, g, s0 []float64) (out, final []float64) {
	out = make([]float64, d.B*d.T*d.H*d.V)
	final = make([]float64, d.B*d.H*d.K*d.V)
	if s0 != nil {
		copy(final, s0)
	}
	for b := range d.B {
		for h := range d.H {
			for t := range d.T {
				a := math.Exp(g[d.Scalar(b, t, h)])
				for i := range d.K {
					for j := range d.V {
						s := &final[d.State(b, h, i, j)]
						*s = a**s + k[d.Vec(b, t, h, i, d.K)]*v[d.Vec(b, t, h, j, d.V)]
					}
				}
				for j := range d.V {
					var o float64
					for i := range d.K {
						o += final[d.State(b, h, i, j)] * q[d.Vec(b, t, h, i, d.K)]
					}
					out[d.Vec(b, t, h, j, d.V)] = o
				}
			}
		}
	}
	return
}

// GatedDeltaRule is Gated DeltaNet's recurrence, token by token from the state s0 (nil: zeros), computed
// literally as the matrix product (not in the u-form the chunked code uses):
//
//	S_t = exp(g_t)(I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ,   o_t = scale · S_tᵀ q_t
//
// q, k [B, T, H, K], v [B, T, H, V], g, beta [B, T, H], s0 [B, H, K, V] → out [B, T, H, V] and the final
// state [B, H, K, V]. The reference of layers.GatedDeltaRule and layers.GatedDeltaRuleStep.
func GatedDeltaRule(d Dims, q, k, v, g, beta, s0 []float64, scale float64) (out, final []float64) {
	out = make([]float64, d.B*d.T*d.H*d.V)
	final = make([]float64, d.B*d.H*d.K*d.V)
	if s0 != nil {
		copy(final, s0)
	}
	next := make([]float64, d.K*d.V)
	for b := range d.B {
		for h := range d.H {
			for t := range d.T {
				a, be := math.Exp(g[d.Scalar(b, t, h)]), beta[d.Scalar(b, t, h)]
				for i := range d.K {
					for j := range d.V {
						// row i of (I − β k kᵀ) times S, column j
						var s float64
						for l := range d.K {
							m := -be * k[d.Vec(b, t, h, i, d.K)] * k[d.Vec(b, t, h, l, d.K)]
							if l == i {
								m++
							}
							s += m * final[d.State(b, h, l, j)]
						}
						next[i*d.V+j] = a*s + be*k[d.Vec(b, t, h, i, d.K)]*v[d.Vec(b, t, h, j, d.V)]
					}
				}
				for i := range d.K {
					for j := range d.V {
						final[d.State(b, h, i, j)] = next[i*d.V+j]
					}
				}
				for j := range d.V {
					var o float64
					for i := range d.K {
						o += final[d.State(b, h, i, j)] * q[d.Vec(b, t, h, i, d.K)]
					}
					out[d.Vec(b, t, h, j, d.V)] = scale * o
				}
			}
		}
	}
	return
}

// Attention is causal softmax attention, query by query:
//
//	o_t = Σ_{s≤t} softmax_s(scale · q_t·k_s) v_s   (the row max subtracted before the exponentials)
//
// q, k [B, T, H, K], v [B, T, H, V] → [B, T, H, V]. The reference of layers.CausalAttention and the
// cached forms.
func Attention(d Dims, q, k, v []float64, scale float64) []float64 {
	out := make([]float64, d.B*d.T*d.H*d.V)
	logits := make([]float64, d.T)
	for b := range d.B {
		for h := range d.H {
			for t := range d.T {
				m := math.Inf(-1)
				for s := 0; s <= t; s++ {
					var l float64
					for i := range d.K {
						l += q[d.Vec(b, t, h, i, d.K)] * k[d.Vec(b, s, h, i, d.K)]
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
						o += logits[s] / z * v[d.Vec(b, s, h, j, d.V)]
					}
					out[d.Vec(b, t, h, j, d.V)] = o
				}
			}
		}
	}
	return out
}
