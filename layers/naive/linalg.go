package naive

// The vectors and matrices the references are written with: just enough to write each equation as it reads.

// Vector is a column vector.
type Vector []float64

// Dot is aᵀb.
func Dot(a, b Vector) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// Scale is c·a.
func (a Vector) Scale(c float64) Vector {
	out := make(Vector, len(a))
	for i := range a {
		out[i] = c * a[i]
	}
	return out
}

// Add is a + b.
func (a Vector) Add(b Vector) Vector {
	out := make(Vector, len(a))
	for i := range a {
		out[i] = a[i] + b[i]
	}
	return out
}

// Sub is a − b.
func (a Vector) Sub(b Vector) Vector { return a.Add(b.Scale(-1)) }

// Matrix is a dense Rows×Cols matrix, row-major.
type Matrix struct {
	Rows, Cols int
	data       []float64
}

// Zeros is the r×c zero matrix.
func Zeros(r, c int) Matrix { return Matrix{r, c, make([]float64, r*c)} }

// Identity is the n×n identity.
func Identity(n int) Matrix {
	m := Zeros(n, n)
	for i := range n {
		m.Set(i, i, 1)
	}
	return m
}

// At is element (i, j).
func (m Matrix) At(i, j int) float64 { return m.data[i*m.Cols+j] }

// Set sets element (i, j) to x.
func (m Matrix) Set(i, j int, x float64) { m.data[i*m.Cols+j] = x }

// Outer is a bᵀ, len(a)×len(b).
func Outer(a, b Vector) Matrix {
	m := Zeros(len(a), len(b))
	for i := range a {
		for j := range b {
			m.Set(i, j, a[i]*b[j])
		}
	}
	return m
}

// Scale is c·m.
func (m Matrix) Scale(c float64) Matrix {
	out := Zeros(m.Rows, m.Cols)
	for i, x := range m.data {
		out.data[i] = c * x
	}
	return out
}

// Add is m + n.
func (m Matrix) Add(n Matrix) Matrix {
	out := Zeros(m.Rows, m.Cols)
	for i := range m.data {
		out.data[i] = m.data[i] + n.data[i]
	}
	return out
}

// Sub is m − n.
func (m Matrix) Sub(n Matrix) Matrix {
	out := Zeros(m.Rows, m.Cols)
	for i := range m.data {
		out.data[i] = m.data[i] - n.data[i]
	}
	return out
}

// Mul is the matrix product m n.
func (m Matrix) Mul(n Matrix) Matrix {
	out := Zeros(m.Rows, n.Cols)
	for i := range m.Rows {
		for j := range n.Cols {
			var s float64
			for l := range m.Cols {
				s += m.At(i, l) * n.At(l, j)
			}
			out.Set(i, j, s)
		}
	}
	return out
}

// TMulVec is mᵀ x, the readout of a key-first state: (mᵀx)_j = Σ_i m_ij x_i.
func (m Matrix) TMulVec(x Vector) Vector {
	out := make(Vector, m.Cols)
	for j := range m.Cols {
		var s float64
		for i := range m.Rows {
			s += m.At(i, j) * x[i]
		}
		out[j] = s
	}
	return out
}
