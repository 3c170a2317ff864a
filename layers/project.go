package layers

import (
	. "github.com/gomlx/gomlx/pkg/core/graph"
)

// projectFewRows is the most rows for which Project puts the weight on the left of the product on XLA.
const projectFewRows = 16

// Project multiplies x [R..., I...] by a weight w [O..., I...] stored with its output axes first and its
// inAxes input axes last (the layout of PyTorch's Linear), contracting the last inAxes axes of both:
// → [R..., O...].
//
// The kernel follows the static number of rows (the product of R...). For a few rows — a decode step, a verify
// pass — on XLA the weight is the left operand (w·xᵀ, the small result transposed back): XLA CPU then runs a
// matrix-vector product on the weight as stored, where with the weight on the right it first copies the whole
// weight into the layout its matrix-vector kernel wants, on every call (the 130m decode step copied 72 weight
// matrices, ~360 MB, per token; optimised HLO: 72 copies → 0). Otherwise, and always on the pure-Go backend
// (whose matmul wants the contracted axes last on both operands, as stored), x is the left operand: one
// DotGeneral, what Einsum("btd,hkd->bthk", x, w) builds.
func Project(x, w *Node, inAxes int) *Node {
	c := checker{fn: "Project"}
	xa, wa := arg{"x", x}, arg{"w", w}
	c.notNil(xa, wa)
	c.float(xa, wa)
	if inAxes < 1 || inAxes > x.Rank() || inAxes > w.Rank() {
		argError(c.fn, "inAxes %d must be in [1, min(rank(x), rank(w))] for x %s and w %s", inAxes, xa, wa)
	}
	xd, wd := x.Shape().Dimensions, w.Shape().Dimensions
	lead, in, out := xd[:len(xd)-inAxes], xd[len(xd)-inAxes:], wd[:len(wd)-inAxes]
	for i, d := range wd[len(wd)-inAxes:] {
		if d != in[i] {
			argError(c.fn, "the last %d axes of w %s must be those of x %s", inAxes, wa, xa)
		}
	}
	xAxes, wAxes := make([]int, inAxes), make([]int, inAxes)
	for i := range inAxes {
		xAxes[i], wAxes[i] = len(lead)+i, len(out)+i
	}
	rows, size, outSize := product(lead), product(in), product(out)
	if rows > projectFewRows || onPureGo(x.Graph()) {
		return DotGeneral(x, xAxes, nil, w, wAxes, nil)
	}
	y := DotGeneral(Reshape(w, outSize, size), []int{1}, nil, Reshape(x, rows, size), []int{1}, nil) // [O, R]
	return Reshape(TransposeAllAxes(y, 1, 0), append(append([]int{}, lead...), out...)...)
}

// product multiplies dims (1 for none).
func product(dims []int) int {
	p := 1
	for _, d := range dims {
		p *= d
	}
	return p
}
