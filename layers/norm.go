package layers

import (
	"math"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
)

// RMSNorm normalises x over its last axis by the root mean square and scales by weight:
//
//	y = x / sqrt(mean(x²) + eps) · weight
//
// x: [..., D] (any rank ≥ 1); weight: [D] or nil (no scale); eps ≥ 0. Returns x's shape and dtype. For 16-bit
// floats the statistics are computed in float32 (the sum of squares would lose precision in bfloat16), and the
// result is converted back before the weight is applied, as in Llama. Division by Sqrt rather than Rsqrt keeps
// it differentiable with stock GoMLX gradients.
func RMSNorm(x, weight *Node, eps float64) *Node {
	normValidate(checker{fn: "RMSNorm"}, x, nil, weight, eps)
	return normRMS(x, weight, eps)
}

// GatedRMSNorm is the shared output path's norm: RMSNorm(x)·weight ⊙ SiLU(gate).
//
// The norm comes BEFORE the gate (y_t = W_O(RMSNorm(o_t) ⊙ SiLU(W_G x_t)), docs/model.md §3.8), as in Mamba-2's
// RMSNormGated with norm_before_gate=True: the mixer output o is normalised on its own, so attention readouts and
// recurrent readouts — whose scales differ — reach the gate and W_O at the same scale, whichever mode ran.
//
// x, gate: [..., D] of the same shape and dtype; weight: [D] or nil; eps ≥ 0. Returns x's shape. The norm is
// over the last axis only: pass [B, T, H, D] with weight [D] for a per-head norm, [B, T, H·D] for full width.
func GatedRMSNorm(x, gate, weight *Node, eps float64) *Node {
	c := checker{fn: "GatedRMSNorm"}
	c.notNil(arg{"x", x}, arg{"gate", gate})
	normValidate(c, x, gate, weight, eps)
	return Mul(normRMS(x, weight, eps), SiLU(gate))
}

// SiLU (a.k.a. swish) is x·σ(x), elementwise, for any float x.
func SiLU(x *Node) *Node {
	c := checker{fn: "SiLU"}
	xa := arg{"x", x}
	c.notNil(xa)
	c.float(xa)
	return Mul(x, Sigmoid(x))
}

// NormalizeL2 scales x to unit L2 norm over its last axis:
//
//	y = x / sqrt(Σ x² + eps)
//
// x: [..., D]; eps ≥ 0 (Gated DeltaNet uses 1e-6 on its keys and queries, so that a zero vector stays zero
// instead of becoming NaN). Returns x's shape; 16-bit floats are normalised in float32.
//
// It is not named L2Normalize because graph.L2Normalize exists and this package dot-imports graph: the two
// names would collide (and GoMLX's version has a different formula: no eps, a zero vector maps to zero).
func NormalizeL2(x *Node, eps float64) *Node {
	normValidate(checker{fn: "NormalizeL2"}, x, nil, nil, eps)
	dt := x.DType()
	xc := normUpcast(x)
	y := Div(xc, Sqrt(AddScalar(ReduceAndKeep(Square(xc), ReduceSum, -1), eps)))
	return ConvertDType(y, dt)
}

// normValidate checks x [..., D] (float, rank ≥ 1), an optional gate of x's shape, an optional weight [D] and eps.
func normValidate(c checker, x, gate, weight *Node, eps float64) {
	xa, ga, wa := arg{"x", x}, arg{"gate", gate}, arg{"weight", weight}
	c.notNil(xa)
	if x.Rank() < 1 {
		argError(c.fn, "x must have rank ≥ 1 ([..., D]), got scalar %s", xa)
	}
	c.float(xa, ga, wa)
	if gate != nil {
		c.dims(ga, "of x", x.Shape().Dimensions...)
	}
	if weight != nil {
		c.dims(wa, "[D] with D the last dim of x", x.Shape().Dim(-1))
	}
	if !(eps >= 0) || math.IsInf(eps, 0) {
		argError(c.fn, "eps must be finite and ≥ 0, got %g", eps)
	}
}

// normRMS is RMSNorm on validated arguments.
func normRMS(x, weight *Node, eps float64) *Node {
	dt := x.DType()
	xc := normUpcast(x)
	y := ConvertDType(Div(xc, Sqrt(AddScalar(ReduceAndKeep(Square(xc), ReduceMean, -1), eps))), dt)
	if weight != nil {
		y = Mul(y, ExpandLeftToRank(weight, x.Rank()))
	}
	return y
}

// normUpcast returns x in float32 when it is a 16-bit float (for the reductions), else x itself.
func normUpcast(x *Node) *Node {
	if x.DType().IsFloat16() {
		return ConvertDType(x, dtypes.Float32)
	}
	return x
}
