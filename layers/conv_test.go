package layers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/layers/naive"
	"github.com/stretchr/testify/require"
)

// ---- Test helpers shared by conv_test.go, norm_test.go, rope_test.go and mlp_test.go (prefix blk). ----

// blkArray is a row-major float64 host array, the currency of the plain-loop references.
type blkArray struct {
	dims []int
	data []float64
}

func blkZeros(dims ...int) blkArray {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return blkArray{dims: slices.Clone(dims), data: make([]float64, n)}
}

// blkRandn is an array of standard normal values from r.
func blkRandn(r *rand.Rand, dims ...int) blkArray {
	a := blkZeros(dims...)
	for i := range a.data {
		a.data[i] = r.NormFloat64()
	}
	return a
}

func blkRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6f727978)) }

func (a blkArray) off(idx ...int) int {
	o := 0
	for i, d := range a.dims {
		o = o*d + idx[i]
	}
	return o
}
func (a blkArray) at(idx ...int) float64     { return a.data[a.off(idx...)] }
func (a blkArray) set(v float64, idx ...int) { a.data[a.off(idx...)] = v }

func (a blkArray) tensor() *tensors.Tensor {
	return tensors.FromFlatDataAndDimensions(slices.Clone(a.data), a.dims...)
}

// blkSliceAxis1 returns rows [from, to) of axis 1.
func (a blkArray) sliceAxis1(from, to int) blkArray {
	inner := 1
	for _, d := range a.dims[2:] {
		inner *= d
	}
	dims := slices.Clone(a.dims)
	dims[1] = to - from
	out := blkZeros(dims...)
	for b := 0; b < a.dims[0]; b++ {
		src := a.data[(b*a.dims[1]+from)*inner : (b*a.dims[1]+to)*inner]
		copy(out.data[b*dims[1]*inner:], src)
	}
	return out
}

// blkExecArgs converts blkArrays to tensors and passes anything else (tensors, Go slices) through.
func blkExecArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if arr, ok := a.(blkArray); ok {
			out[i] = arr.tensor()
		} else {
			out[i] = a
		}
	}
	return out
}

// blkExec builds and runs fn once on the project backend and returns its (float64) outputs.
func blkExec(t testing.TB, fn func(xs []*Node) []*Node, args ...any) []blkArray {
	t.Helper()
	e, err := NewExec(backend.MustGet(), fn)
	require.NoError(t, err)
	defer e.Finalize()
	outs, err := e.Exec(blkExecArgs(args)...)
	require.NoError(t, err)
	return blkFromTensors(t, outs)
}

func blkFromTensors(t testing.TB, outs []*tensors.Tensor) []blkArray {
	t.Helper()
	res := make([]blkArray, len(outs))
	for i, o := range outs {
		require.Equal(t, dtypes.Float64, o.DType(), "output %d", i)
		res[i] = blkArray{dims: slices.Clone(o.Shape().Dimensions), data: tensors.MustCopyFlatData[float64](o)}
	}
	return res
}

// blkRequireClose checks shapes and values, with |got − want| ≤ tol·(1 + |want|).
func blkRequireClose(t testing.TB, want, got blkArray, tol float64, what string) {
	t.Helper()
	require.Equal(t, want.dims, got.dims, "%s: dims", what)
	for i := range want.data {
		if d := math.Abs(got.data[i] - want.data[i]); !(d <= tol*(1+math.Abs(want.data[i]))) {
			require.Failf(t, "values differ", "%s: flat index %d of %v: want %.12g, got %.12g (|diff| %.3g, tol %.1g)",
				what, i, want.dims, want.data[i], got.data[i], d, tol)
		}
	}
}

// blkFiniteDiff checks graph.Gradient of a scalar loss built from fn's outputs against central finite
// differences. The loss is Σ_k Σ out_k ⊙ R_k with fixed random R_k, so every output element matters with a
// different weight. wrt lists the indices of the (float64 blkArray) args to differentiate.
func blkFiniteDiff(t testing.TB, fn func(xs []*Node) []*Node, args []any, wrt []int, tol float64) {
	t.Helper()
	loss := func(xs []*Node) *Node {
		var total *Node
		for k, o := range fn(xs) {
			if o.Shape().Size() == 0 {
				continue // e.g. the zero-row state of a width-1 conv
			}
			r := blkRandn(blkRNG(uint64(1000+k)), o.Shape().Dimensions...)
			term := ReduceAllSum(Mul(o, ConstTensor(o.Graph(), r.tensor())))
			if total == nil {
				total = term
			} else {
				total = Add(total, term)
			}
		}
		return total
	}
	b := backend.MustGet()
	gradExec, err := NewExec(b, func(xs []*Node) []*Node {
		nodes := make([]*Node, len(wrt))
		for i, w := range wrt {
			nodes[i] = xs[w]
		}
		return Gradient(loss(xs), nodes...)
	})
	require.NoError(t, err)
	defer gradExec.Finalize()
	gradsT, err := gradExec.Exec(blkExecArgs(args)...)
	require.NoError(t, err)
	grads := blkFromTensors(t, gradsT)

	lossExec, err := NewExec(b, loss)
	require.NoError(t, err)
	defer lossExec.Finalize()
	eval := func(args []any) float64 {
		out, err := lossExec.Exec(blkExecArgs(args)...)
		require.NoError(t, err)
		return tensors.MustCopyFlatData[float64](out[0])[0]
	}
	const h = 1e-6
	for i, w := range wrt {
		x := args[w].(blkArray)
		numeric := blkZeros(x.dims...)
		for j := range x.data {
			perturbed := slices.Clone(args)
			xp := blkArray{dims: x.dims, data: slices.Clone(x.data)}
			perturbed[w] = xp
			xp.data[j] = x.data[j] + h
			plus := eval(perturbed)
			xp.data[j] = x.data[j] - h
			minus := eval(perturbed)
			numeric.data[j] = (plus - minus) / (2 * h)
		}
		blkRequireClose(t, numeric, grads[i], tol, fmt.Sprintf("gradient wrt arg %d", w))
	}
}

// blkPanicMsg builds a graph with build and returns the message of the panic it must raise.
func blkPanicMsg(t testing.TB, build func(g *Graph)) string {
	t.Helper()
	g := NewGraph(backend.MustGet(), "blkBadInput")
	var msg string
	func() {
		defer func() {
			if r := recover(); r != nil {
				msg = fmt.Sprint(r)
			}
		}()
		build(g)
	}()
	require.NotEmpty(t, msg, "expected the graph builder to panic")
	return msg
}

// blkParam is a graph parameter of the given dtype and dims.
func blkParam(g *Graph, name string, dt dtypes.DType, dims ...int) *Node {
	return Parameter(g, name, shapes.Make(dt, dims...))
}

// ---- CausalConv1D ----

// blkConvRef is the convolution's reference (naive.CausalConv1D) on blkArrays. bias and state may be nil.
func blkConvRef(x, weight blkArray, bias, state *blkArray) (y, newState blkArray) {
	nb, nt, ne, nw := x.dims[0], x.dims[1], x.dims[2], weight.dims[1]
	var b, s []float64
	if bias != nil {
		b = bias.data
	}
	if state != nil {
		s = state.data
	}
	yd, sd := naive.CausalConv1D(nb, nt, ne, nw, x.data, weight.data, b, s)
	return blkArray{dims: []int{nb, nt, ne}, data: yd}, blkArray{dims: []int{nb, nw - 1, ne}, data: sd}
}

// blkConvFn wraps CausalConv1D for blkExec: xs = x, weight[, bias][, state].
func blkConvFn(withBias, withState bool) func(xs []*Node) []*Node {
	return func(xs []*Node) []*Node {
		x, w, rest := xs[0], xs[1], xs[2:]
		var bias, state *Node
		if withBias {
			bias, rest = rest[0], rest[1:]
		}
		if withState {
			state = rest[0]
		}
		y, s := CausalConv1D(x, w, bias, state)
		return []*Node{y, s}
	}
}

func TestCausalConv1DMatchesLoop(t *testing.T) {
	const nb, ne = 2, 3
	r := blkRNG(1)
	for _, nw := range []int{1, 2, 4} {
		for _, nt := range []int{1, 2, 7, 33} {
			for _, withBias := range []bool{false, true} {
				for _, withState := range []bool{false, true} {
					name := fmt.Sprintf("W=%d/T=%d/bias=%v/state=%v", nw, nt, withBias, withState)
					x, w := blkRandn(r, nb, nt, ne), blkRandn(r, ne, nw)
					args := []any{x, w}
					var bias, state *blkArray
					if withBias {
						b := blkRandn(r, ne)
						bias, args = &b, append(args, b)
					}
					if withState {
						if nw == 1 && !backend.IsPureGo(backend.MustGet()) {
							// go-xla v0.1.4 panics on a zero-sized host buffer (FromFlatDataWithDimensions
							// indexes element 0; reproduced by internal/backend/xla_test.go), so a width-1 conv's
							// zero-row state cannot be passed in on XLA.
							continue
						}
						if nw == 1 { // a width-1 conv has a zero-row state: pass it as a tensor
							args = append(args, tensors.FromShape(shapes.Make(dtypes.Float64, nb, 0, ne)))
						} else {
							s := blkRandn(r, nb, nw-1, ne)
							state, args = &s, append(args, s)
						}
					}
					wantY, wantS := blkConvRef(x, w, bias, state)
					got := blkExec(t, blkConvFn(withBias, withState), args...)
					blkRequireClose(t, wantY, got[0], 1e-12, name+" y")
					blkRequireClose(t, wantS, got[1], 0, name+" newState")
				}
			}
		}
	}
}

// A prefill split in parts, each part starting from the previous part's state, equals one pass — also when
// parts are shorter than the state (T < W-1).
func TestCausalConv1DPrefillInParts(t *testing.T) {
	const nb, ne, nt = 2, 3, 9
	r := blkRNG(2)
	for _, nw := range []int{2, 4} {
		x, w, bias := blkRandn(r, nb, nt, ne), blkRandn(r, ne, nw), blkRandn(r, ne)
		whole := blkExec(t, blkConvFn(true, false), x, w, bias)
		for _, parts := range [][]int{{4, 5}, {1, 8}, {1, 1, 1, 6}, {2, 2, 5}} {
			var state *blkArray
			from := 0
			for _, n := range parts {
				part := x.sliceAxis1(from, from+n)
				var got []blkArray
				if state == nil {
					got = blkExec(t, blkConvFn(true, false), part, w, bias)
				} else {
					got = blkExec(t, blkConvFn(true, true), part, w, bias, *state)
				}
				what := fmt.Sprintf("W=%d parts=%v part at %d", nw, parts, from)
				blkRequireClose(t, whole[0].sliceAxis1(from, from+n), got[0], 1e-12, what)
				state = &got[1]
				from += n
			}
			blkRequireClose(t, whole[1], *state, 0, fmt.Sprintf("W=%d parts=%v final state", nw, parts))
		}
	}
}

// Decoding token by token with CausalConv1DStep equals the parallel form, outputs and states.
func TestCausalConv1DStepMatchesParallel(t *testing.T) {
	const nb, ne, nt = 2, 3, 6
	r := blkRNG(3)
	for _, nw := range []int{1, 2, 4} {
		x, w, bias := blkRandn(r, nb, nt, ne), blkRandn(r, ne, nw), blkRandn(r, ne)
		state := blkRandn(r, nb, nw-1, ne)
		var want []blkArray
		if nw == 1 {
			want = blkExec(t, blkConvFn(true, false), x, w, bias)
		} else {
			want = blkExec(t, blkConvFn(true, true), x, w, bias, state)
		}

		step, err := NewExec(backend.MustGet(), func(xs []*Node) []*Node {
			var s *Node
			if len(xs) > 3 {
				s = xs[3]
			}
			y, ns := CausalConv1DStep(xs[0], xs[1], xs[2], s)
			return []*Node{y, ns}
		})
		require.NoError(t, err)
		for tok := range nt {
			xt := x.sliceAxis1(tok, tok+1)
			xt.dims = []int{nb, ne}
			args := []any{xt, w, bias}
			if nw > 1 {
				args = append(args, state)
			}
			outs, err := step.Exec(blkExecArgs(args)...)
			require.NoError(t, err)
			got := blkFromTensors(t, outs)
			wantY := want[0].sliceAxis1(tok, tok+1)
			wantY.dims = []int{nb, ne}
			blkRequireClose(t, wantY, got[0], 1e-12, fmt.Sprintf("W=%d token %d", nw, tok))
			require.Equal(t, []int{nb, nw - 1, ne}, got[1].dims)
			state = got[1]
		}
		step.Finalize()
		blkRequireClose(t, want[1], state, 0, fmt.Sprintf("W=%d final state", nw))
	}
}

func TestCausalConv1DGradient(t *testing.T) {
	r := blkRNG(4)
	for _, c := range []struct{ nt, nw int }{{5, 3}, {2, 4}, {3, 1}} {
		t.Run(fmt.Sprintf("T=%d/W=%d", c.nt, c.nw), func(t *testing.T) {
			x, w, bias := blkRandn(r, 2, c.nt, 3), blkRandn(r, 3, c.nw), blkRandn(r, 3)
			if c.nw == 1 {
				blkFiniteDiff(t, blkConvFn(true, false), []any{x, w, bias}, []int{0, 1, 2}, 1e-6)
				return
			}
			state := blkRandn(r, 2, c.nw-1, 3)
			blkFiniteDiff(t, blkConvFn(true, true), []any{x, w, bias, state}, []int{0, 1, 2, 3}, 1e-6)
		})
	}
	t.Run("Step", func(t *testing.T) {
		x, w, bias, state := blkRandn(r, 2, 3), blkRandn(r, 3, 4), blkRandn(r, 3), blkRandn(r, 2, 3, 3)
		blkFiniteDiff(t, func(xs []*Node) []*Node {
			y, s := CausalConv1DStep(xs[0], xs[1], xs[2], xs[3])
			return []*Node{y, s}
		}, []any{x, w, bias, state}, []int{0, 1, 2, 3}, 1e-6)
	})
}

func TestCausalConv1DBadInputs(t *testing.T) {
	f64, f32 := dtypes.Float64, dtypes.Float32
	for _, c := range []struct {
		name  string
		build func(g *Graph)
		want  []string
	}{
		{"weight E mismatch", func(g *Graph) {
			CausalConv1D(blkParam(g, "x", f64, 2, 5, 3), blkParam(g, "w", f64, 4, 4), nil, nil)
		}, []string{"CausalConv1D", "weight", "[4 4]", "[3 *]"}},
		{"x rank", func(g *Graph) {
			CausalConv1D(blkParam(g, "x", f64, 5, 3), blkParam(g, "w", f64, 3, 4), nil, nil)
		}, []string{"CausalConv1D", "x must have rank 3", "[B, T, E]"}},
		{"weight rank", func(g *Graph) {
			CausalConv1D(blkParam(g, "x", f64, 2, 5, 3), blkParam(g, "w", f64, 3), nil, nil)
		}, []string{"CausalConv1D", "weight must have rank 2", "[E, W]"}},
		{"state rows", func(g *Graph) {
			CausalConv1D(blkParam(g, "x", f64, 2, 5, 3), blkParam(g, "w", f64, 3, 4), nil, blkParam(g, "s", f64, 2, 4, 3))
		}, []string{"CausalConv1D", "state", "[B, W-1, E]", "[2 4 3]"}},
		{"state batch", func(g *Graph) {
			CausalConv1D(blkParam(g, "x", f64, 2, 5, 3), blkParam(g, "w", f64, 3, 4), nil, blkParam(g, "s", f64, 1, 3, 3))
		}, []string{"CausalConv1D", "state", "[1 3 3]"}},
		{"bias shape", func(g *Graph) {
			CausalConv1D(blkParam(g, "x", f64, 2, 5, 3), blkParam(g, "w", f64, 3, 4), blkParam(g, "b", f64, 4), nil)
		}, []string{"CausalConv1D", "bias", "[4]"}},
		{"bias dtype", func(g *Graph) {
			CausalConv1D(blkParam(g, "x", f64, 2, 5, 3), blkParam(g, "w", f64, 3, 4), blkParam(g, "b", f32, 3), nil)
		}, []string{"CausalConv1D", "bias", "dtype", "Float32"}},
		{"weight dtype", func(g *Graph) {
			CausalConv1D(blkParam(g, "x", f32, 2, 5, 3), blkParam(g, "w", f64, 3, 4), nil, nil)
		}, []string{"CausalConv1D", "weight", "dtype"}},
		{"x integer", func(g *Graph) {
			CausalConv1D(blkParam(g, "x", dtypes.Int32, 2, 5, 3), blkParam(g, "w", f64, 3, 4), nil, nil)
		}, []string{"CausalConv1D", "x must be a float"}},
		{"nil weight", func(g *Graph) {
			CausalConv1D(blkParam(g, "x", f64, 2, 5, 3), nil, nil, nil)
		}, []string{"CausalConv1D", "weight", "nil"}},
		{"step x rank", func(g *Graph) {
			CausalConv1DStep(blkParam(g, "x", f64, 2, 1, 3), blkParam(g, "w", f64, 3, 4), nil, nil)
		}, []string{"CausalConv1DStep", "x must have rank 2", "[B, E]"}},
		{"step state", func(g *Graph) {
			CausalConv1DStep(blkParam(g, "x", f64, 2, 3), blkParam(g, "w", f64, 3, 4), nil, blkParam(g, "s", f64, 2, 3, 2))
		}, []string{"CausalConv1DStep", "state", "[2 3 2]"}},
		{"step state dtype", func(g *Graph) {
			CausalConv1DStep(blkParam(g, "x", f64, 2, 3), blkParam(g, "w", f64, 3, 4), nil, blkParam(g, "s", f32, 2, 3, 3))
		}, []string{"CausalConv1DStep", "state", "dtype"}},
	} {
		msg := blkPanicMsg(t, c.build)
		for _, w := range c.want {
			require.Contains(t, msg, w, c.name)
		}
	}
}
