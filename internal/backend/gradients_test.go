package backend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/stretchr/testify/require"
)

// The rules are checked three ways: against central finite differences of a weighted-sum loss (float64),
// against GoMLX's stock rule on the same node where one exists and runs on SimpleGo, and structurally (no
// node of the gradient graph is larger than the op's operands/output: no broadcast outer products).

const (
	fdEpsilon   = 1e-6
	fdTolerance = 1e-6 // relative, with an absolute floor at magnitude 1
)

// gradCase is a function of float64 inputs whose gradient is checked.
type gradCase struct {
	name string
	dims [][]int
	fn   func(xs []*Node) *Node
	// values optionally fills input i (n elements); the default is uniform in [-1, 1).
	values func(rng *rand.Rand, i, n int) []float64
}

func gradBackend(t *testing.T) backends.Backend {
	t.Helper()
	b, err := New()
	require.NoError(t, err)
	return b
}

// lossWeights are fixed, distinct, non-trivial weights shaped like x, so that the loss sum(x·w) gives every
// output element a different adjoint.
func lossWeights(x *Node) *Node {
	if x.IsScalar() {
		return Scalar(x.Graph(), x.DType(), 1.3)
	}
	return Cos(AddScalar(MulScalar(IotaFull(x.Graph(), x.Shape()), 0.731), 0.3))
}

func weightedLoss(out *Node) *Node { return ReduceAllSum(Mul(out, lossWeights(out))) }

func (c gradCase) inputs() [][]float64 {
	rng := rand.New(rand.NewPCG(42, uint64(len(c.name))))
	flats := make([][]float64, len(c.dims))
	for i, dims := range c.dims {
		n := shapes.Make(dtypes.Float64, dims...).Size()
		if c.values != nil {
			flats[i] = c.values(rng, i, n)
			continue
		}
		flats[i] = make([]float64, n)
		for j := range flats[i] {
			flats[i][j] = 2*rng.Float64() - 1
		}
	}
	return flats
}

func (c gradCase) args(flats [][]float64) []any {
	args := make([]any, len(flats))
	for i, flat := range flats {
		args[i] = tensors.FromFlatDataAndDimensions(slices.Clone(flat), c.dims[i]...)
	}
	return args
}

// checkGradient compares the installed rules with central finite differences, and checks that the gradient
// graph holds no node larger than the largest input or output of c.fn.
func checkGradient(t *testing.T, b backends.Backend, c gradCase) {
	t.Helper()
	flats := c.inputs()
	var maxNode, maxOperand int
	grads := MustNewExec(b, func(xs []*Node) []*Node {
		out := c.fn(xs)
		grads := Gradient(weightedLoss(out), xs...)
		maxOperand = out.Shape().Size()
		for _, x := range xs {
			maxOperand = max(maxOperand, x.Shape().Size())
		}
		for _, node := range out.Graph().Nodes() {
			maxNode = max(maxNode, node.Shape().Size())
		}
		return grads
	}).MustExec(c.args(flats)...)
	require.LessOrEqual(t, maxNode, maxOperand, "%s: gradient graph has a node larger than its operands", c.name)

	want := finiteDifferences(b, c, flats)
	for i, grad := range grads {
		got := tensors.MustCopyFlatData[float64](grad)
		requireClose(t, want[i], got, fdTolerance, "%s: input #%d vs finite differences", c.name, i)
	}
}

// finiteDifferences returns d loss / d input by central differences, one element at a time.
func finiteDifferences(b backends.Backend, c gradCase, flats [][]float64) [][]float64 {
	lossExec := MustNewExec(b, func(xs []*Node) *Node { return weightedLoss(c.fn(xs)) })
	defer lossExec.Finalize()
	loss := func() float64 { return lossExec.MustExec(c.args(flats)...)[0].Value().(float64) }
	return testutil.FiniteDiffGrad(loss, flats, fdEpsilon)
}

// checkAgainstStock applies the installed and the stock rule of nodeType to every such node of c.fn's graph
// (with v = lossWeights) and requires equal results.
func checkAgainstStock(t *testing.T, b backends.Backend, c gradCase, nodeType NodeType) {
	t.Helper()
	InstallGradientFixes()
	fixed, stock := fixedVJPs[nodeType], stockVJPs[nodeType]
	require.NotNil(t, stock, "no stock rule saved for %s", nodeType)
	results := MustNewExec(b, func(xs []*Node) []*Node {
		out := c.fn(xs)
		var pairs []*Node
		for _, node := range slices.Clone(out.Graph().Nodes()) {
			if node.Type() != nodeType {
				continue
			}
			vjps := []*Node{lossWeights(node)}
			scalar := shapes.Make(node.DType())
			fixedGrads, stockGrads := fixed(node, vjps, scalar), stock(node, vjps, scalar)
			for k := range fixedGrads {
				pairs = append(pairs, fixedGrads[k], stockGrads[k])
			}
		}
		require.NotEmpty(t, pairs, "%s: no %s node in the graph", c.name, nodeType)
		return pairs
	}).MustExec(c.args(c.inputs())...)
	for k := 0; k < len(results); k += 2 {
		requireClose(t, tensors.MustCopyFlatData[float64](results[k+1]), tensors.MustCopyFlatData[float64](results[k]),
			1e-12, "%s: operand #%d vs stock rule", c.name, k/2)
	}
}

func requireClose(t *testing.T, want, got []float64, tol float64, msgAndArgs ...any) {
	t.Helper()
	require.Len(t, got, len(want), msgAndArgs...)
	for i := range want {
		if diff := math.Abs(want[i] - got[i]); diff > tol*max(1, math.Abs(want[i])) {
			require.Failf(t, "values differ", "%s\nelement %d: want %.12g, got %.12g (diff %.3g)\nwant=%v\ngot =%v",
				fmt.Sprintf(msgAndArgs[0].(string), msgAndArgs[1:]...), i, want[i], got[i], diff, want, got)
		}
	}
}

func einsumCase(equation string, lhsDims, rhsDims []int) gradCase {
	return gradCase{name: "Einsum " + equation, dims: [][]int{lhsDims, rhsDims},
		fn: func(xs []*Node) *Node { return Einsum(equation, xs[0], xs[1]) }}
}

func dotGeneralCase(name string, lhsDims, lhsContracting, lhsBatch, rhsDims, rhsContracting, rhsBatch []int) gradCase {
	return gradCase{name: "DotGeneral " + name, dims: [][]int{lhsDims, rhsDims},
		fn: func(xs []*Node) *Node {
			return DotGeneral(xs[0], lhsContracting, lhsBatch, xs[1], rhsContracting, rhsBatch)
		}}
}

func dotGeneralCases() []gradCase {
	return []gradCase{
		einsumCase("ij,jk->ik", []int{3, 4}, []int{4, 5}),
		einsumCase("bij,bjk->bik", []int{2, 3, 4}, []int{2, 4, 5}),
		einsumCase("bid,bjd->bij", []int{2, 3, 4}, []int{2, 5, 4}),
		einsumCase("bihd,bjhd->bihj", []int{2, 3, 2, 4}, []int{2, 5, 2, 4}),
		einsumCase("bihj,bjhd->bihd", []int{2, 3, 2, 5}, []int{2, 5, 2, 4}),
		einsumCase("abc,cde->abde", []int{2, 3, 4}, []int{4, 2, 3}),
		einsumCase("bij,bj->bi", []int{2, 3, 4}, []int{2, 4}), // rhs has no cross axes
		einsumCase("bi,bi->b", []int{3, 4}, []int{3, 4}),      // neither operand has cross axes
		einsumCase("i,j->ij", []int{3}, []int{4}),             // no contracting axes (outer product)
		// Batch axes in odd positions and paired out of order: lhs axes 3↔rhs 1, lhs 1↔rhs 3.
		dotGeneralCase("odd batch axes", []int{4, 2, 3, 5}, []int{2}, []int{3, 1},
			[]int{3, 5, 6, 2}, []int{0}, []int{1, 3}),
		dotGeneralCase("two contracting axes", []int{3, 4, 5}, []int{1, 2}, nil,
			[]int{4, 5, 6}, []int{0, 1}, nil),
		dotGeneralCase("permuted contracting axes (lhs)", []int{3, 4, 5}, []int{2, 1}, nil,
			[]int{5, 4, 6}, []int{0, 1}, nil),
		dotGeneralCase("permuted contracting axes (rhs)", []int{4, 3, 5}, []int{0, 2}, nil,
			[]int{6, 5, 4}, []int{2, 1}, nil),
		dotGeneralCase("batch last, contracting first", []int{4, 3, 2}, []int{0}, []int{2},
			[]int{2, 5, 4}, []int{2}, []int{0}),
	}
}

func dotCases() []gradCase {
	dot := func(xs []*Node) *Node { return Dot(xs[0], xs[1]) }
	return []gradCase{
		{name: "Dot vec·vec", dims: [][]int{{4}, {4}}, fn: dot},
		{name: "Dot mat·vec", dims: [][]int{{3, 4}, {4}}, fn: dot},
		{name: "Dot mat·mat", dims: [][]int{{3, 4}, {4, 5}}, fn: dot},
	}
}

func TestDotGeneralGradient(t *testing.T) {
	b := gradBackend(t)
	for _, c := range dotGeneralCases() {
		t.Run(c.name, func(t *testing.T) {
			checkGradient(t, b, c)
			checkAgainstStock(t, b, c, NodeTypeDotGeneral)
		})
	}
}

func TestDotGradient(t *testing.T) {
	b := gradBackend(t)
	for _, c := range dotCases() {
		t.Run(c.name, func(t *testing.T) {
			checkGradient(t, b, c)
			checkAgainstStock(t, b, c, NodeTypeDot)
		})
	}
}

// TestMatMulGradientIsCheap: with the stock rule a [512,256]×[256,512] gradient builds [512,256,512]
// temporaries (0.5 GB in f32, seconds of broadcasting); with the fix it is three matmuls.
func TestMatMulGradientIsCheap(t *testing.T) {
	b := gradBackend(t)
	const m, k, n = 512, 256, 512
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(dims ...int) *tensors.Tensor {
		flat := make([]float32, dims[0]*dims[1])
		for i := range flat {
			flat[i] = rng.Float32() - 0.5
		}
		return tensors.FromFlatDataAndDimensions(flat, dims...)
	}
	var maxNode int
	start := time.Now()
	diffs := MustNewExec(b, func(lhs, rhs *Node) []*Node {
		out := Dot(lhs, rhs)
		w := lossWeights(out)
		grads := Gradient(ReduceAllSum(Mul(out, w)), lhs, rhs)
		for _, node := range out.Graph().Nodes() {
			maxNode = max(maxNode, node.Shape().Size())
		}
		wantLHS := DotGeneral(w, []int{1}, nil, rhs, []int{1}, nil) // w·rhsᵀ
		wantRHS := DotGeneral(lhs, []int{0}, nil, w, []int{0}, nil) // lhsᵀ·w
		return []*Node{ReduceAllMax(Abs(Sub(grads[0], wantLHS))), ReduceAllMax(Abs(Sub(grads[1], wantRHS)))}
	}).MustExec(random(m, k), random(k, n))
	elapsed := time.Since(start)
	t.Logf("[%d,%d]x[%d,%d] forward+gradient (incl. compile): %s", m, k, k, n, elapsed)
	require.LessOrEqual(t, maxNode, m*n, "gradient graph materialised a temporary larger than the operands")
	require.Less(t, elapsed, 10*time.Second)
	for _, diff := range diffs {
		require.Less(t, diff.Value().(float32), float32(1e-3))
	}
}

func TestSliceGradient(t *testing.T) {
	b := gradBackend(t)
	slice := func(specs ...SliceAxisSpec) func(xs []*Node) *Node {
		return func(xs []*Node) *Node { return Slice(xs[0], specs...) }
	}
	cases := []gradCase{
		{name: "1D middle", dims: [][]int{{6}}, fn: slice(AxisRange(1, 4))},
		{name: "1D prefix", dims: [][]int{{6}}, fn: slice(AxisRange(0, 2))},
		{name: "1D suffix", dims: [][]int{{6}}, fn: slice(AxisRange(3))},
		{name: "2D both axes", dims: [][]int{{4, 5}}, fn: slice(AxisRange(1, 3), AxisRange(2))},
		{name: "3D mixed", dims: [][]int{{3, 4, 5}}, fn: slice(AxisRange(), AxisRange(0, 2), AxisRange(1, -1))},
		{name: "full (no-op)", dims: [][]int{{3, 4}}, fn: slice()},
		{name: "single element", dims: [][]int{{3, 4}}, fn: slice(AxisElem(2), AxisElem(-1))},
		{name: "stride on one-element axis", dims: [][]int{{3, 4}}, fn: slice(AxisRange(1, 2).Stride(2))},
		{name: "Split and recombine", dims: [][]int{{2, 6}}, fn: func(xs []*Node) *Node {
			parts := Split(xs[0], 1, 3)
			return Concatenate([]*Node{Mul(parts[2], parts[0]), parts[1]}, 1)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkGradient(t, b, c) })
	}
}

func TestStridedSliceGradientPanicsClearly(t *testing.T) {
	b := gradBackend(t)
	g := NewGraph(b, "strided")
	defer g.Finalize()
	x := Parameter(g, "x", shapes.Make(dtypes.Float64, 4, 6))
	y := Slice(x, AxisRange(), AxisRange().Stride(2))
	msg := panicMessage(func() { Gradient(ReduceAllSum(y), x) })
	require.Contains(t, msg, "strided slice")
	require.Contains(t, msg, "strides [1 2]")
	require.Contains(t, msg, "Slice(") // names the node
}

func panicMessage(fn func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	fn()
	return "(no panic)"
}

func TestElementwiseGradients(t *testing.T) {
	b := gradBackend(t)
	positive := func(rng *rand.Rand, _, n int) []float64 {
		values := make([]float64, n)
		for i := range values {
			values[i] = 0.3 + 2*rng.Float64()
		}
		return values
	}
	// Clamp inputs keep |x - bound| > 0.05 so finite differences never straddle the kink.
	clampValues := []float64{-1.5, -0.95, -0.3, 0, 0.4, 0.75, 0.85, 1.2, 2}
	clampInput := func(_ *rand.Rand, _, n int) []float64 { return clampValues[:n] }
	cases := []gradCase{
		{name: "Rsqrt", dims: [][]int{{2, 3}}, values: positive, fn: func(xs []*Node) *Node { return Rsqrt(xs[0]) }},
		{name: "Expm1", dims: [][]int{{2, 3}}, fn: func(xs []*Node) *Node { return Expm1(xs[0]) }},
		{name: "Identity", dims: [][]int{{2, 3}}, fn: func(xs []*Node) *Node { return Mul(Identity(xs[0]), xs[0]) }},
		{name: "Clip scalar bounds", dims: [][]int{{9}}, values: clampInput, fn: func(xs []*Node) *Node {
			return Clip(xs[0], Scalar(xs[0].Graph(), dtypes.Float64, -0.9), Scalar(xs[0].Graph(), dtypes.Float64, 0.8))
		}},
		{name: "Clamp tensor bounds", dims: [][]int{{9}}, values: clampInput, fn: func(xs []*Node) *Node {
			g := xs[0].Graph()
			lo := Const(g, []float64{-2, -1, -1, -0.1, 0, 0.7, 0.9, 1, 1})
			hi := Const(g, []float64{-1, 1, 1, 0.1, 1, 0.8, 1, 1.1, 3})
			return Clamp(lo, xs[0], hi)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkGradient(t, b, c) })
	}
}

// TestClampGradientAtBounds: x exactly on a bound counts as inside (gradient v), and the bounds get none.
func TestClampGradientAtBounds(t *testing.T) {
	b := gradBackend(t)
	grads := MustExecOnceN(b, func(x, lo, hi *Node) []*Node {
		return Gradient(ReduceAllSum(Clamp(lo, x, hi)), x, lo, hi)
	}, []float64{-1, 1, -2, 2, 0}, -1.0, 1.0)
	require.Equal(t, []float64{1, 1, 0, 0, 1}, grads[0].Value())
	require.Equal(t, 0.0, grads[1].Value())
	require.Equal(t, 0.0, grads[2].Value())
}

// TestIdentityFixKeepsStopAndCustomGradients: StopGradient and IdentityWithCustomGradient are Identity
// nodes too; overriding Identity's rule must not change them.
func TestIdentityFixKeepsStopAndCustomGradients(t *testing.T) {
	b := gradBackend(t)
	grads := MustExecOnceN(b, func(x *Node) []*Node {
		stopped := Gradient(ReduceAllSum(Mul(StopGradient(x), x)), x)[0]
		custom := Gradient(ReduceAllSum(IdentityWithCustomGradient(x, func(_, v *Node) *Node {
			return MulScalar(v, 3)
		})), x)[0]
		return []*Node{stopped, custom}
	}, []float64{2, 5})
	require.Equal(t, []float64{2, 5}, grads[0].Value())
	require.Equal(t, []float64{3, 3}, grads[1].Value())
}

func TestInstallGradientFixesIsIdempotent(t *testing.T) {
	InstallGradientFixes()
	InstallGradientFixes() // a second call must not re-save our own rules as "stock"
	for nodeType, rule := range fixedVJPs {
		require.Equal(t, funcPointer(rule), funcPointer(VJPRegistration[nodeType]), "%s not installed", nodeType)
		if stock, found := stockVJPs[nodeType]; found {
			require.NotEqual(t, funcPointer(rule), funcPointer(stock), "%s: stock rule overwritten", nodeType)
		}
	}
	for _, nodeType := range []NodeType{NodeTypeDotGeneral, NodeTypeDot, NodeTypeSlice} {
		require.Contains(t, stockVJPs, nodeType)
	}
}

func funcPointer(fn VJP) uintptr { return reflect.ValueOf(fn).Pointer() }

// TestReflectedFieldsExist fails loudly when a GoMLX upgrade renames the unexported parameters read by the
// rules, instead of letting the gradients break at training time.
func TestReflectedFieldsExist(t *testing.T) {
	b := gradBackend(t)
	g := NewGraph(b, "fields")
	defer g.Finalize()
	lhs := Parameter(g, "lhs", shapes.Make(dtypes.Float32, 2, 3, 4))
	rhs := Parameter(g, "rhs", shapes.Make(dtypes.Float32, 2, 4, 5))
	dot := DotGeneral(lhs, []int{2}, []int{0}, rhs, []int{1}, []int{0})
	slice := Slice(lhs, AxisRange(1), AxisRange(0, 2), AxisRange().Stride(2))
	require.Equal(t, NodeTypeDotGeneral, dot.Type())
	require.Equal(t, NodeTypeSlice, slice.Type())

	require.Equal(t, []int{2}, intsParam(dot, fieldLHSContractingAxes))
	require.Equal(t, []int{0}, intsParam(dot, fieldLHSBatchAxes))
	require.Equal(t, []int{1}, intsParam(dot, fieldRHSContractingAxes))
	require.Equal(t, []int{0}, intsParam(dot, fieldRHSBatchAxes))
	require.Equal(t, []int{1, 0, 0}, intsParam(slice, fieldSliceStarts))
	require.Equal(t, []int{2, 2, 4}, intsParam(slice, fieldSliceLimits))
	require.Equal(t, []int{1, 1, 2}, intsParam(slice, fieldSliceStrides))

	msg := panicMessage(func() { intsParam(dot, "noSuchField") })
	require.Contains(t, msg, `"noSuchField"`)
	require.Contains(t, msg, "GoMLX v0.26.0")
}
