package backend

// Gradient (VJP) rules that replace or complete GoMLX v0.26.0's stock ones, so that models train on the
// pure-Go backend. The measurements behind each rule are summarised below
// and in docs/history.md §8.1.
//
// Why each rule exists:
//   - DotGeneral, Dot: the stock rules broadcast v against the other operand into a
//     [batch, lhsCross, rhsCross, contracting] temporary and ReduceSum it: O(M·N·K) memory and time
//     (17 GB for a [4096,512]×[512,2048] matmul). Here each operand's gradient is one DotGeneral.
//   - Slice: the stock rule uses Pad, which SimpleGo does not implement. Here the adjoint is rebuilt with
//     Concatenate of zero blocks.
//   - Rsqrt, Expm1, Clamp, Identity: no stock rule at all ("no gradient is defined").
//
// The rules read op parameters (axes, slice bounds) from unexported fields with reflect, which pins them to
// GoMLX's internal layout: gradients_test.go checks that every field read here still exists.

import (
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// Names of the unexported fields of GoMLX's nodeInputs* structs (gen_backend_ops.go) read by these rules.
const (
	fieldLHSContractingAxes = "lhsContractingAxes"
	fieldLHSBatchAxes       = "lhsBatchAxes"
	fieldRHSContractingAxes = "rhsContractingAxes"
	fieldRHSBatchAxes       = "rhsBatchAxes"
	fieldSliceStarts        = "starts"
	fieldSliceLimits        = "limits"
	fieldSliceStrides       = "strides"
)

var (
	installOnce sync.Once

	// stockVJPs holds the registry entries that InstallGradientFixes replaced (types that had no stock rule
	// are absent), so tests can compare against, or temporarily restore, GoMLX's own rules.
	stockVJPs map[graph.NodeType]graph.VJP
)

// fixedVJPs are the rules installed into graph.VJPRegistration.
var fixedVJPs = map[graph.NodeType]graph.VJP{
	graph.NodeTypeDotGeneral: singleOutput(dotGeneralGrad),
	graph.NodeTypeDot:        singleOutput(dotGrad),
	graph.NodeTypeSlice:      singleOutput(sliceGrad),
	graph.NodeTypeRsqrt:      singleOutput(rsqrtGrad),
	graph.NodeTypeExpm1:      singleOutput(expm1Grad),
	graph.NodeTypeClamp:      singleOutput(clampGrad),
	graph.NodeTypeIdentity:   singleOutput(identityGrad),
}

// InstallGradientFixes overwrites entries of GoMLX's process-global graph.VJPRegistration with the rules of
// this file. The map is shared by every graph in the process, so this must run once, before any gradient
// graph is built on the project's backend: NewWithConfig (under Get and New) and Setup call it, not an init(), so that importing
// the package leaves the registry alone (docs/library.md §4). Later calls are no-ops, so the saved stock rules stay GoMLX's.
func InstallGradientFixes() {
	installOnce.Do(func() {
		stockVJPs = make(map[graph.NodeType]graph.VJP, len(fixedVJPs))
		for nodeType, rule := range fixedVJPs {
			if stock, found := graph.VJPRegistration[nodeType]; found {
				stockVJPs[nodeType] = stock
			}
			graph.VJPRegistration[nodeType] = rule
		}
	})
}

// singleOutput adapts a rule for a single-output op to the registry's multi-output VJP signature.
func singleOutput(rule func(node, v *graph.Node) []*graph.Node) graph.VJP {
	return func(node *graph.Node, vjps []*graph.Node, _ shapes.Shape) []*graph.Node {
		return rule(node, vjps[0])
	}
}

// ---------------------------------------------------------------------------------------------------------
// Reading op parameters.

// opParam returns the unexported field `name` of the op-specific parameters struct of node (node.inputs,
// an interface holding a pointer to a nodeInputs* struct). It panics with an explanation, instead of the
// obscure reflect panic a zero Value would cause later, when GoMLX's internal layout has changed.
func opParam(node *graph.Node, name string) reflect.Value {
	inputs := reflect.ValueOf(node).Elem().FieldByName("inputs")
	if !inputs.IsValid() || inputs.Kind() != reflect.Interface || inputs.IsNil() {
		panic(layoutError(node, "inputs"))
	}
	params := inputs.Elem()
	if params.Kind() == reflect.Pointer {
		params = params.Elem()
	}
	if params.Kind() != reflect.Struct {
		panic(layoutError(node, "inputs"))
	}
	field := params.FieldByName(name)
	if !field.IsValid() {
		panic(layoutError(node, name))
	}
	return field
}

// intsParam reads an []int parameter of node (axes, slice bounds); see opParam.
func intsParam(node *graph.Node, name string) []int {
	field := opParam(node, name)
	if field.Kind() != reflect.Slice || field.Type().Elem().Kind() != reflect.Int {
		panic(fmt.Errorf("backend gradient fixes: field %q of the parameters of %s is a %s, not []int: "+
			"GoMLX's internal layout changed (these rules were written for GoMLX v0.26.0)", name, node, field.Type()))
	}
	values := make([]int, field.Len())
	for i := range values {
		values[i] = int(field.Index(i).Int())
	}
	return values
}

func layoutError(node *graph.Node, field string) error {
	return fmt.Errorf("backend gradient fixes: cannot read field %q of the parameters of %s: "+
		"GoMLX's internal node layout changed (these rules were written for GoMLX v0.26.0)", field, node)
}

// ---------------------------------------------------------------------------------------------------------
// DotGeneral and Dot.

// dotAxes classifies the axes of one DotGeneral operand. batch and contracting are in the op's pairing
// order (batch[i] pairs with the other operand's batch[i]); cross is ascending, as in the op's output.
type dotAxes struct {
	batch, contracting, cross []int
}

func newDotAxes(rank int, contracting, batch []int) dotAxes {
	var cross []int
	for axis := range rank {
		if !slices.Contains(contracting, axis) && !slices.Contains(batch, axis) {
			cross = append(cross, axis)
		}
	}
	return dotAxes{batch: batch, contracting: contracting, cross: cross}
}

// dotGeneralGrad: the output (and v) is laid out [batch…, lhs cross…, rhs cross…].
func dotGeneralGrad(node, v *graph.Node) []*graph.Node {
	lhs, rhs := node.Inputs()[0], node.Inputs()[1]
	lhsAxes := newDotAxes(lhs.Rank(), intsParam(node, fieldLHSContractingAxes), intsParam(node, fieldLHSBatchAxes))
	rhsAxes := newDotAxes(rhs.Rank(), intsParam(node, fieldRHSContractingAxes), intsParam(node, fieldRHSBatchAxes))
	return dotOperandsGrads(v, lhs, lhsAxes, rhs, rhsAxes)
}

// dotGrad handles Dot (vector·vector, matrix·vector, matrix·matrix), which is a DotGeneral contracting lhs's
// last axis with rhs's first, without batch axes. (The same form would cover vector·matrix, which SimpleGo's
// Dot rejects in the forward pass.)
func dotGrad(node, v *graph.Node) []*graph.Node {
	lhs, rhs := node.Inputs()[0], node.Inputs()[1]
	if lhs.Rank() < 1 || lhs.Rank() > 2 || rhs.Rank() < 1 || rhs.Rank() > 2 {
		panic(fmt.Errorf("backend gradient fixes: Dot gradient defined only for rank 1 or 2 operands, got %s · %s",
			lhs.Shape(), rhs.Shape()))
	}
	lhsAxes := newDotAxes(lhs.Rank(), []int{lhs.Rank() - 1}, nil)
	rhsAxes := newDotAxes(rhs.Rank(), []int{0}, nil)
	return dotOperandsGrads(v, lhs, lhsAxes, rhs, rhsAxes)
}

func dotOperandsGrads(v, lhs *graph.Node, lhsAxes dotAxes, rhs *graph.Node, rhsAxes dotAxes) []*graph.Node {
	numBatch := len(lhsAxes.batch)
	return []*graph.Node{
		dotOperandGrad(v, lhsAxes, rhs, rhsAxes, numBatch+len(lhsAxes.cross)),
		dotOperandGrad(v, rhsAxes, lhs, lhsAxes, numBatch),
	}
}

// dotOperandGrad returns the gradient for one DotGeneral operand ("this"), given the other operand:
//
//	grad = DotGeneral(v, other) contracting v's copy of other's cross axes (at otherCrossInV…) with other's
//	cross axes, batch with batch,
//
// laid out [batch…, this cross…, other's contracting axes in ascending order], then transposed to this
// operand's axis order. The largest tensor it creates is this operand's size: no broadcast products.
func dotOperandGrad(v *graph.Node, this dotAxes, other *graph.Node, otherAxes dotAxes, otherCrossInV int) *graph.Node {
	numBatch := len(this.batch)
	vBatch := iotaInts(0, numBatch)
	vContracting := iotaInts(otherCrossInV, len(otherAxes.cross))
	grad := graph.DotGeneral(v, vContracting, vBatch, other, otherAxes.cross, otherAxes.batch)
	return transposeUnlessIdentity(grad, dotGradPermutation(this, otherAxes))
}

// dotGradPermutation maps each axis of "this" operand to its position in the [batch…, this cross…,
// other contracting (ascending)…] gradient. Contracting axes come back in the other operand's axis order,
// not in the pairing order, hence the explicit lookup.
func dotGradPermutation(this, other dotAxes) []int {
	numBatch, numCross := len(this.batch), len(this.cross)
	perm := make([]int, numBatch+numCross+len(this.contracting))
	for i, axis := range this.batch {
		perm[axis] = i
	}
	for i, axis := range this.cross {
		perm[axis] = numBatch + i
	}
	for pos, otherAxis := range slices.Sorted(slices.Values(other.contracting)) {
		pair := slices.Index(other.contracting, otherAxis)
		perm[this.contracting[pair]] = numBatch + numCross + pos
	}
	return perm
}

// transposeUnlessIdentity skips the Transpose (a full copy on SimpleGo) when the permutation is a no-op.
func transposeUnlessIdentity(x *graph.Node, perm []int) *graph.Node {
	for i, axis := range perm {
		if i != axis {
			return graph.TransposeAllAxes(x, perm...)
		}
	}
	return x
}

func iotaInts(start, n int) []int {
	values := make([]int, n)
	for i := range values {
		values[i] = start + i
	}
	return values
}

// ---------------------------------------------------------------------------------------------------------
// Slice.

// sliceGrad scatters v back into an input-shaped zero tensor by concatenating zero blocks before and after
// the sliced range, axis by axis (SimpleGo has no Pad). Strided slices (stride > 1 on an axis that keeps
// more than one element) are not supported and panic, naming the slice.
func sliceGrad(node, v *graph.Node) []*graph.Node {
	x := node.Inputs()[0]
	starts := intsParam(node, fieldSliceStarts)
	strides := intsParam(node, fieldSliceStrides)
	_ = intsParam(node, fieldSliceLimits) // Not needed (v's shape gives the extent), but checked like the others.
	grad := v
	for axis, dim := range x.Shape().Dimensions {
		kept := v.Shape().Dimensions[axis]
		if strides[axis] > 1 && kept > 1 {
			panic(fmt.Errorf("backend gradient fixes: gradient of strided slice %s (input %s, strides %v) is not "+
				"supported on this backend (SimpleGo has no Pad); slice with stride 1 on differentiated paths",
				node, x.Shape(), strides))
		}
		grad = padAxisWithZeros(grad, axis, starts[axis], dim-starts[axis]-kept)
	}
	return []*graph.Node{grad}
}

// padAxisWithZeros concatenates `before` and `after` zeros to x along axis.
func padAxisWithZeros(x *graph.Node, axis, before, after int) *graph.Node {
	if before == 0 && after == 0 {
		return x
	}
	parts := make([]*graph.Node, 0, 3)
	if before > 0 {
		parts = append(parts, zerosAlong(x, axis, before))
	}
	parts = append(parts, x)
	if after > 0 {
		parts = append(parts, zerosAlong(x, axis, after))
	}
	return graph.Concatenate(parts, axis)
}

// zerosAlong returns zeros shaped like x except for dimension n on axis.
func zerosAlong(x *graph.Node, axis, n int) *graph.Node {
	shape := x.Shape().Clone()
	shape.Dimensions[axis] = n
	return graph.Zeros(x.Graph(), shape)
}

// ---------------------------------------------------------------------------------------------------------
// Element-wise ops without a stock rule.

// rsqrtGrad: d/dx x^(-1/2) = -1/2 · x^(-3/2) = -1/2 · rsqrt(x)/x, reusing the forward rsqrt(x) node.
func rsqrtGrad(node, v *graph.Node) []*graph.Node {
	x := node.Inputs()[0]
	return []*graph.Node{graph.Mul(v, graph.MulScalar(graph.Div(node, x), -0.5))}
}

// expm1Grad: d/dx (e^x - 1) = e^x. Exp(x) rather than node+1 keeps full precision where e^x is large.
func expm1Grad(node, v *graph.Node) []*graph.Node {
	return []*graph.Node{graph.Mul(v, graph.Exp(node.Inputs()[0]))}
}

// clampGrad (inputs min, x, max) passes v where min ≤ x ≤ max, else 0. "Inside" is tested as clamp(x) == x,
// which for min ≤ max is the same condition, reuses the forward node and needs no broadcasting of scalar
// bounds. The bounds get no gradient (nil): they are treated as constants, as in graph.Clip's typical use.
func clampGrad(node, v *graph.Node) []*graph.Node {
	x := node.Inputs()[1]
	inside := graph.Equal(node, x)
	return []*graph.Node{nil, graph.Where(inside, v, graph.ScalarZero(node.Graph(), v.DType())), nil}
}

// identityGrad: graph.Identity passes v through. StopGradient and IdentityWithCustomGradient nodes are also
// Identity nodes, but GoMLX handles them before consulting the registry, so they keep their behaviour.
func identityGrad(_, v *graph.Node) []*graph.Node {
	return []*graph.Node{v}
}
