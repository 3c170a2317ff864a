package layers

import (
	. "github.com/gomlx/gomlx/pkg/core/graph"
)

// SwiGLU is the gated MLP of Llama-style blocks:
//
//	y = (SiLU(x·wGate) ⊙ (x·wUp)) · wDown
//
// x: [..., D] (any rank ≥ 1); wGate, wUp: [D, F]; wDown: [F, D]. Returns [..., D]. The products are
// DotGenerals over x's last axis, so leading axes need no reshape.
func SwiGLU(x, wGate, wUp, wDown *Node) *Node {
	c := checker{fn: "SwiGLU"}
	xa, ga, ua, da := arg{"x", x}, arg{"wGate", wGate}, arg{"wUp", wUp}, arg{"wDown", wDown}
	c.notNil(xa, ga, ua, da)
	if x.Rank() < 1 {
		argError(c.fn, "x must have rank ≥ 1 ([..., D]), got scalar %s", xa)
	}
	c.rank(ga, 2, "[D, F]")
	c.float(xa, ga, ua, da)
	d, f := x.Shape().Dim(-1), wGate.Shape().Dim(1)
	c.dims(ga, "[D, F] with D the last dim of x", d, -1)
	c.dims(ua, "[D, F] like wGate", d, f)
	c.dims(da, "[F, D] with F of wGate, D of x", f, d)

	h := Mul(SiLU(mlpProject(x, wGate)), mlpProject(x, wUp)) // [..., F]
	return mlpProject(h, wDown)
}

// mlpProject contracts x's last axis with w's first: [..., D] × [D, F] → [..., F].
func mlpProject(x, w *Node) *Node {
	return DotGeneral(x, []int{-1}, nil, w, []int{0}, nil)
}
