package layers

import (
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// DefaultConvWidth is the width W of the short causal convolution after the K and V projections (the
// Mamba-2 and Gated DeltaNet default).
const DefaultConvWidth = 4

// CausalConv1D is a depthwise (one filter per channel) causal 1-D convolution over the sequence axis:
//
//	y_t[e] = Σ_{j=0}^{W-1} weight[e, j] · x_{t-W+1+j}[e] + bias[e]
//
// so tap W-1 multiplies the current token and tap 0 the token W-1 steps back.
//
// x: [B, T, E]; weight: [E, W]; bias: [E] or nil (no bias); state: [B, W-1, E], the W-1 inputs that precede
// x (oldest first), or nil for zeros (start of a sequence). Returns y [B, T, E] and newState [B, W-1, E], the
// last W-1 rows of concat(state, x): the state to pass with the next part of the sequence, so a prefill
// split in parts (of any lengths, even T < W-1) gives the same result as one pass. For W = 1 the
// convolution has no memory: state (nil or [B, 0, E]) is ignored and newState is a zero-row [B, 0, E] tensor,
// so generic decode loops can still pass it around.
//
// It is computed densely as W shifted slices of concat(state, x) times the W taps: the pure-Go backend's
// grouped ConvGeneral panics and conv gradients need Reverse/Pad, while slices, concatenation and
// multiply-adds are differentiable everywhere (with the project's Slice gradient, see internal/backend).
func CausalConv1D(x, weight, bias, state *Node) (y, newState *Node) {
	convValidate(checker{fn: "CausalConv1D"}, x, false, weight, bias, state)
	return convApply(x, weight, bias, state)
}

// CausalConv1DStep is CausalConv1D for one new token (decode): x [B, E]; weight [E, W]; bias [E] or nil;
// state [B, W-1, E] (nil for zeros). Returns y [B, E] and newState [B, W-1, E] (the state shifted by one
// with x appended), equal to CausalConv1D on the token as a length-1 sequence.
func CausalConv1DStep(x, weight, bias, state *Node) (y, newState *Node) {
	convValidate(checker{fn: "CausalConv1DStep"}, x, true, weight, bias, state)
	b, e := x.Shape().Dim(0), x.Shape().Dim(1)
	y, newState = convApply(Reshape(x, b, 1, e), weight, bias, state)
	return Reshape(y, b, e), newState
}

// convValidate checks the arguments of CausalConv1D (x [B, T, E]) or CausalConv1DStep (x [B, E]).
func convValidate(c checker, x *Node, step bool, weight, bias, state *Node) {
	xa, wa, ba, sa := arg{"x", x}, arg{"weight", weight}, arg{"bias", bias}, arg{"state", state}
	c.notNil(xa, wa)
	if step {
		c.rank(xa, 2, "[B, E]")
	} else {
		c.rank(xa, 3, "[B, T, E]")
	}
	c.rank(wa, 2, "[E, W]")
	c.float(xa, wa, ba, sa)
	dims := x.Shape().Dimensions
	b, e := dims[0], dims[len(dims)-1]
	c.dims(wa, "[E, W] with E of x", e, -1)
	w := weight.Shape().Dim(1)
	c.positive("W (weight.Dim(1))", w)
	if !step {
		c.positive("T (x.Dim(1))", dims[1])
	}
	if bias != nil {
		c.dims(ba, "[E] with E of x", e)
	}
	if state != nil {
		c.dims(sa, "[B, W-1, E] with B, E of x and W of weight", b, w-1, e)
	}
}

// convApply is CausalConv1D on validated arguments.
func convApply(x, weight, bias, state *Node) (y, newState *Node) {
	g, dt := x.Graph(), x.DType()
	b, t, e := x.Shape().Dim(0), x.Shape().Dim(1), x.Shape().Dim(2)
	w := weight.Shape().Dim(1)

	// xp row r holds x_{r-(W-1)}: the W-1 remembered inputs, then x. Tap j of output t reads
	// x_{t-W+1+j} = xp[t+j], so tap j over all t is the stride-1 slice xp[j : j+T].
	xp := x
	if w > 1 {
		if state == nil {
			state = Zeros(g, shapes.Make(dt, b, w-1, e))
		}
		xp = Concatenate([]*Node{state, x}, 1) // [B, W-1+T, E]
	}
	for j := range w {
		tap := Reshape(Slice(weight, AxisRange(), AxisRange(j, j+1)), 1, 1, e)
		term := Mul(Slice(xp, AxisRange(), AxisRange(j, j+t), AxisRange()), tap)
		if y == nil {
			y = term
		} else {
			y = Add(y, term)
		}
	}
	if bias != nil {
		y = Add(y, Reshape(bias, 1, 1, e))
	}

	if w == 1 {
		// The backend cannot slice or concatenate zero-row tensors, so build the empty state directly.
		return y, Zeros(g, shapes.Make(dt, b, 0, e))
	}
	return y, Slice(xp, AxisRange(), AxisRange(t, t+w-1), AxisRange()) // last W-1 rows
}
