package layers

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/layers/naive"
)

// Test harness of the mixer tests: flat float64 inputs, graph execution in float32 or float64, errors.

// in is one graph input: flat float64 data and its dimensions.
type in struct {
	data []float64
	dims []int
}

func toTensor(x in, dtype dtypes.DType) *tensors.Tensor {
	if dtype == dtypes.Float32 {
		f := make([]float32, len(x.data))
		for i, v := range x.data {
			f[i] = float32(v)
		}
		return tensors.FromFlatDataAndDimensions(f, x.dims...)
	}
	return tensors.FromFlatDataAndDimensions(append([]float64(nil), x.data...), x.dims...)
}

func fromTensor(t *tensors.Tensor) []float64 {
	switch t.DType() {
	case dtypes.Float32:
		f := tensors.MustCopyFlatData[float32](t)
		out := make([]float64, len(f))
		for i, v := range f {
			out[i] = float64(v)
		}
		return out
	case dtypes.Float64:
		return tensors.MustCopyFlatData[float64](t)
	}
	panic("unexpected dtype " + t.DType().String())
}

// execGraph builds fn over the inputs (converted to dtype) and returns its outputs as float64, or an error.
func execGraph(dtype dtypes.DType, fn func(x []*Node) []*Node, ins ...in) ([][]float64, error) {
	exec, err := NewExec(backend.MustGet(), fn)
	if err != nil {
		return nil, err
	}
	defer exec.Finalize()
	args := make([]any, len(ins))
	for i, x := range ins {
		args[i] = toTensor(x, dtype)
	}
	outs, err := exec.Exec(args...)
	if err != nil {
		return nil, err
	}
	res := make([][]float64, len(outs))
	for i, o := range outs {
		res[i] = fromTensor(o)
		o.FinalizeAll()
	}
	return res, nil
}

func mustExecGraph(t testing.TB, dtype dtypes.DType, fn func(x []*Node) []*Node, ins ...in) [][]float64 {
	t.Helper()
	res, err := execGraph(dtype, fn, ins...)
	require.NoError(t, err)
	return res
}

func tolerance(dtype dtypes.DType) float64 {
	if dtype == dtypes.Float32 {
		return 1e-4
	}
	return 1e-9
}

// mixerData is one random mixer problem.
type mixerData struct {
	d                    naive.Dims
	q, k, v, g, beta, s0 []float64
}

type dataOpts struct {
	withState    bool
	strongDecay  bool // g ≈ −20: the state forgets within a token
	nearParallel bool // keys with pairwise cosine ≈ 0.99 (ill-conditioned in-chunk solve)
	unitKeys     bool // L2-normalised q and k, as GDN callers do
}

func randn(r *rand.Rand, n int, scale float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = r.NormFloat64() * scale
	}
	return x
}

func newMixerData(seed uint64, d naive.Dims, o dataOpts) *mixerData {
	r := rand.New(rand.NewPCG(seed, 7))
	m := &mixerData{d: d}
	nv, ns := d.B*d.T*d.H, d.B*d.T*d.H
	m.q = randn(r, nv*d.K, 1/math.Sqrt(float64(d.K)))
	m.k = randn(r, nv*d.K, 1/math.Sqrt(float64(d.K)))
	m.v = randn(r, nv*d.V, 1)
	if o.nearParallel {
		base := randn(r, d.K, 1)
		for t := 0; t < nv; t++ {
			for i := range d.K {
				m.k[t*d.K+i] = base[i] + 0.08*r.NormFloat64()
			}
		}
	}
	if o.unitKeys || o.nearParallel {
		normalizeRows(m.q, d.K)
		normalizeRows(m.k, d.K)
	}
	m.g = make([]float64, ns)
	m.beta = make([]float64, ns)
	for i := range m.g {
		if o.strongDecay {
			m.g[i] = -18 - 4*r.Float64()
		} else {
			m.g[i] = -0.5 * r.Float64() * r.Float64()
		}
		m.beta[i] = 1 / (1 + math.Exp(-2*r.NormFloat64()))
	}
	if o.withState {
		m.s0 = randn(r, d.B*d.H*d.K*d.V, 1)
	}
	return m
}

func normalizeRows(x []float64, n int) {
	for r := 0; r < len(x); r += n {
		var s float64
		for _, v := range x[r : r+n] {
			s += v * v
		}
		s = math.Sqrt(s)
		for i := r; i < r+n; i++ {
			x[i] /= s
		}
	}
}

func (m *mixerData) vecs(x []float64, n int) in { return in{x, []int{m.d.B, m.d.T, m.d.H, n}} }
func (m *mixerData) scas(x []float64) in        { return in{x, []int{m.d.B, m.d.T, m.d.H}} }
func (m *mixerData) state() in                  { return in{m.s0, []int{m.d.B, m.d.H, m.d.K, m.d.V}} }

// inputs returns q, k, v, g, beta (and s0 when present) as graph inputs.
func (m *mixerData) inputs() []in {
	ins := []in{m.vecs(m.q, m.d.K), m.vecs(m.k, m.d.K), m.vecs(m.v, m.d.V), m.scas(m.g), m.scas(m.beta)}
	if m.s0 != nil {
		ins = append(ins, m.state())
	}
	return ins
}

// initial returns the s0 node from the inputs built by inputs(), or nil.
func initial(x []*Node) *Node {
	if len(x) > 5 {
		return x[5]
	}
	return nil
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 99)) }
