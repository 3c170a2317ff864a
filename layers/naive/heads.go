package naive

// Cutting the flat [B, T, H, D] layouts into one sequence per (batch row, head), and writing results back.

// vectors returns the T vectors x_0 … x_{T−1} of width n of (batch b, head h) in x [B, T, H, n].
func (d Dims) vectors(x []float64, b, h, n int) []Vector {
	out := make([]Vector, d.T)
	for t := range d.T {
		out[t] = Vector(x[d.Vec(b, t, h, 0, n) : d.Vec(b, t, h, 0, n)+n])
	}
	return out
}

// scalars returns the T scalars of (batch b, head h) in x [B, T, H].
func (d Dims) scalars(x []float64, b, h int) []float64 {
	out := make([]float64, d.T)
	for t := range d.T {
		out[t] = x[d.Scalar(b, t, h)]
	}
	return out
}

// setVectors writes the T vectors of (batch b, head h), width n, into out [B, T, H, n].
func (d Dims) setVectors(out []float64, b, h, n int, xs []Vector) {
	for t, x := range xs {
		copy(out[d.Vec(b, t, h, 0, n):], x)
	}
}

// state returns head h's K×V state of batch b in s [B, H, K, V], the zero state when s is nil.
func (d Dims) state(s []float64, b, h int) Matrix {
	m := Zeros(d.K, d.V)
	if s != nil {
		copy(m.data, s[d.State(b, h, 0, 0):d.State(b, h, 0, 0)+d.K*d.V])
	}
	return m
}

// setState writes head h's state of batch b into s [B, H, K, V].
func (d Dims) setState(s []float64, b, h int, m Matrix) {
	copy(s[d.State(b, h, 0, 0):], m.data)
}

// linearMixer runs one head's recurrence (q, k [T][K], v [T][V], scalars per token, S₀ [K, V] → o [T][V]
// and the final state) over every (batch row, head) of the flat layouts.
func (d Dims) linearMixer(q, k, v, s0 []float64, head func(q, k, v []Vector, b, h int, S Matrix) ([]Vector, Matrix)) (out, final []float64) {
	out = make([]float64, d.B*d.T*d.H*d.V)
	final = make([]float64, d.B*d.H*d.K*d.V)
	for b := range d.B {
		for h := range d.H {
			o, S := head(d.vectors(q, b, h, d.K), d.vectors(k, b, h, d.K), d.vectors(v, b, h, d.V), b, h, d.state(s0, b, h))
			d.setVectors(out, b, h, d.V, o)
			d.setState(final, b, h, S)
		}
	}
	return out, final
}
