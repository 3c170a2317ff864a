package naive

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The references are the tests' oracles; these tests check them against other statements of the same math,
// each derived independently of the code under test.

func randn(r *rand.Rand, n int, scale float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = scale * r.NormFloat64()
	}
	return x
}

func requireClose(t *testing.T, what string, want, got []float64, tol float64) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if math.Abs(want[i]-got[i]) > tol {
			t.Fatalf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

type problem struct {
	d                    Dims
	q, k, v, g, beta, s0 []float64
}

func newProblem(seed uint64, d Dims) problem {
	r := rand.New(rand.NewPCG(seed, 3))
	n := d.B * d.T * d.H
	p := problem{d: d, q: randn(r, n*d.K, 0.5), k: randn(r, n*d.K, 0.5), v: randn(r, n*d.V, 1),
		g: make([]float64, n), beta: make([]float64, n), s0: randn(r, d.B*d.H*d.K*d.V, 1)}
	for i := range p.g {
		p.g[i] = -0.3 * r.Float64()
		p.beta[i] = r.Float64()
	}
	return p
}

// TestSSDIsLinearAttentionWithoutDecay: with g = 0 and a zero initial state, SSD is linear attention,
// o_t = Σ_{s≤t} (q_t·k_s) v_s (its dual, quadratic form).
func TestSSDIsLinearAttentionWithoutDecay(t *testing.T) {
	p := newProblem(1, Dims{B: 2, T: 9, H: 2, K: 3, V: 4})
	d := p.d
	got, _ := SSD(d, p.q, p.k, p.v, make([]float64, d.B*d.T*d.H), nil)
	want := make([]float64, len(got))
	for b := range d.B {
		for h := range d.H {
			for tt := range d.T {
				for s := 0; s <= tt; s++ {
					var qk float64
					for i := range d.K {
						qk += p.q[d.Vec(b, tt, h, i, d.K)] * p.k[d.Vec(b, s, h, i, d.K)]
					}
					for j := range d.V {
						want[d.Vec(b, tt, h, j, d.V)] += qk * p.v[d.Vec(b, s, h, j, d.V)]
					}
				}
			}
		}
	}
	requireClose(t, "o", want, got, 1e-12)
}

// TestGatedDeltaRuleIsTheUForm: the matrix recurrence equals the u-form of layers.GatedDeltaRuleStep,
// S' = α S, u = β (v − S'ᵀ k), S = S' + k uᵀ, o = scale · Sᵀ q, written here on flat slices.
func TestGatedDeltaRuleIsTheUForm(t *testing.T) {
	p := newProblem(2, Dims{B: 2, T: 11, H: 2, K: 4, V: 3})
	d, scale := p.d, 0.6
	gotO, gotS := GatedDeltaRule(d, p.q, p.k, p.v, p.g, p.beta, p.s0, scale)
	wantO := make([]float64, len(gotO))
	wantS := append([]float64(nil), p.s0...)
	for b := range d.B {
		for h := range d.H {
			for tt := range d.T {
				a, be := math.Exp(p.g[d.Scalar(b, tt, h)]), p.beta[d.Scalar(b, tt, h)]
				for i := range d.K {
					for j := range d.V {
						wantS[d.State(b, h, i, j)] *= a
					}
				}
				u := make([]float64, d.V)
				for j := range d.V {
					var sk float64
					for i := range d.K {
						sk += wantS[d.State(b, h, i, j)] * p.k[d.Vec(b, tt, h, i, d.K)]
					}
					u[j] = be * (p.v[d.Vec(b, tt, h, j, d.V)] - sk)
				}
				for i := range d.K {
					for j := range d.V {
						wantS[d.State(b, h, i, j)] += p.k[d.Vec(b, tt, h, i, d.K)] * u[j]
					}
				}
				for j := range d.V {
					var o float64
					for i := range d.K {
						o += wantS[d.State(b, h, i, j)] * p.q[d.Vec(b, tt, h, i, d.K)]
					}
					wantO[d.Vec(b, tt, h, j, d.V)] = scale * o
				}
			}
		}
	}
	requireClose(t, "o", wantO, gotO, 1e-12)
	requireClose(t, "S", wantS, gotS, 1e-12)
}

// TestGatedDeltaRuleWithoutWritesDecaysLikeSSD: with β = 0 nothing is erased or written, so the state only
// decays, as SSD's does with v = 0; the outputs differ by the scale.
func TestGatedDeltaRuleWithoutWritesDecaysLikeSSD(t *testing.T) {
	p := newProblem(3, Dims{B: 1, T: 7, H: 3, K: 3, V: 2})
	d, scale := p.d, 0.5
	gdnO, gdnS := GatedDeltaRule(d, p.q, p.k, p.v, p.g, make([]float64, len(p.beta)), p.s0, scale)
	ssdO, ssdS := SSD(d, p.q, p.k, make([]float64, len(p.v)), p.g, p.s0)
	requireClose(t, "o", Vector(ssdO).Scale(scale), gdnO, 1e-12)
	requireClose(t, "S", ssdS, gdnS, 1e-12)
}

// TestAttentionLimits: the first query reads only the first value; keys all alike give the mean of the
// values so far.
func TestAttentionLimits(t *testing.T) {
	p := newProblem(4, Dims{B: 1, T: 5, H: 1, K: 3, V: 2})
	d := p.d
	o := Attention(d, p.q, p.k, p.v, 0.7)
	requireClose(t, "o_0", p.v[:d.V], o[:d.V], 1e-15)
	same := make([]float64, len(p.k))
	for i := range same {
		same[i] = p.k[i%d.K]
	}
	o = Attention(d, p.q, same, p.v, 0.7)
	for tt := range d.T {
		for j := range d.V {
			var mean float64
			for s := 0; s <= tt; s++ {
				mean += p.v[d.Vec(0, s, 0, j, d.V)] / float64(tt+1)
			}
			requireClose(t, "o", []float64{mean}, []float64{o[d.Vec(0, tt, 0, j, d.V)]}, 1e-12)
		}
	}
}

// TestCausalConv1DInParts: a prefill cut in two, the second part from the first's state, equals one pass
// (also for a part shorter than the state); a width-1 convolution is w·x + bias.
func TestCausalConv1DInParts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	const B, T, E, W = 2, 9, 3, 4
	x, w, bias, state := randn(r, B*T*E, 1), randn(r, E*W, 1), randn(r, E, 1), randn(r, B*(W-1)*E, 1)
	y, s := CausalConv1D(B, T, E, W, x, w, bias, state)
	for _, cut := range []int{1, 2, 5} {
		part := func(from, to int) []float64 {
			var out []float64
			for b := range B {
				out = append(out, x[(b*T+from)*E:(b*T+to)*E]...)
			}
			return out
		}
		y1, s1 := CausalConv1D(B, cut, E, W, part(0, cut), w, bias, state)
		y2, s2 := CausalConv1D(B, T-cut, E, W, part(cut, T), w, bias, s1)
		var joined []float64
		for b := range B {
			joined = append(joined, y1[b*cut*E:(b+1)*cut*E]...)
			joined = append(joined, y2[b*(T-cut)*E:(b+1)*(T-cut)*E]...)
		}
		requireClose(t, "y", y, joined, 1e-12)
		requireClose(t, "state", s, s2, 0)
	}
	y, _ = CausalConv1D(B, T, E, 1, x, w[:E], bias, nil)
	for i := range y {
		e := i % E
		requireClose(t, "y", []float64{w[e]*x[i] + bias[e]}, []float64{y[i]}, 1e-15)
	}
}

// TestMatrix: the matrix helpers on a worked example.
func TestMatrix(t *testing.T) {
	a := Outer(Vector{1, 2}, Vector{3, 4, 5}) // [[3 4 5] [6 8 10]]
	requireClose(t, "a", []float64{3, 4, 5, 6, 8, 10}, a.data, 0)
	requireClose(t, "aᵀx", []float64{15, 20, 25}, a.TMulVec(Vector{1, 2}), 0)
	m := Identity(2).Scale(2).Sub(Outer(Vector{1, 0}, Vector{0, 1})) // [[2 −1] [0 2]]
	requireClose(t, "m a", []float64{0, 0, 0, 12, 16, 20}, m.Mul(a).data, 0)
	requireClose(t, "a + a", []float64{6, 8, 10, 12, 16, 20}, a.Add(a).data, 0)
	if got := Dot(Vector{1, 2, 3}, Vector{4, 5, 6}); got != 32 {
		t.Fatalf("Dot = %v, want 32", got)
	}
	requireClose(t, "x − y", []float64{-3, -3}, Vector{1, 2}.Sub(Vector{4, 5}), 0)
}
