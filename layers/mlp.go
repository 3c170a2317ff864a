package layers

import (
	. "github.com/gomlx/gomlx/pkg/core/graph"
)

// SwiGLU is the gated MLP of Llama-style blocks:
//
//	y = (SiLU(x·wGate) ⊙ (x·wUp)) · wDown
//
// x: [..., D] (any rank ≥ 1); wGate, wUp: [F, D]; wDown: [D, F] — weights in the [out, in] layout of
// PyTorch's Linear, which the pure-Go backend multiplies without re-laying the weight out on every call
// (its matmul wants the contracted axis last on both sides). Returns [..., D]. The products are DotGenerals
// over x's last axis, so leading axes need no reshape.
func SwiGLU(x, wGate, wUp, wDown *Node) *Node {
	c := checker{fn: "SwiGLU"}
	xa, ga, ua, da := arg{"x", x}, arg{"wGate", wGate}, arg{"wUp", wUp}, arg{"wDown", wDown}
	c.notNil(xa, ga, ua, da)
	if x.Rank() < 1 {
		argError(c.fn, "x must have rank ≥ 1 ([..., D]), got scalar %s", xa)
	}
	c.rank(ga, 2, "[F, D]")
	c.float(xa, ga, ua, da)
	d, f := x.Shape().Dim(-1), wGate.Shape().Dim(0)
	c.dims(ga, "[F, D] with D the last dim of x", -1, d)
	c.dims(ua, "[F, D] like wGate", f, d)
	c.dims(da, "[D, F] with F of wGate, D of x", d, f)

	h := Mul(SiLU(mlpProject(x, wGate)), mlpProject(x, wUp)) // [..., F]
	return mlpProject(h, wDown)
}

// mlpProject contracts x's last axis with w's last: [..., D] × [F, D] → [..., F].
func mlpProject(x, w *Node) *Node {
	return DotGeneral(x, []int{-1}, nil, w, []int{1}, nil)
}
