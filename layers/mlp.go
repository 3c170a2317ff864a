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
// (its matmul wants the contracted axis last on both sides). Returns [..., D]. The products are Projects over
// x's last axis (a few rows on XLA take the weight-first form).
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

	h := Mul(SiLU(Project(x, wGate, 1)), Project(x, wUp, 1)) // [..., F]
	return Project(h, wDown, 1)
}
