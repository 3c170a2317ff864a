package layers

import (
	"math"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
)

// RoPE applies rotary position embeddings in the "rotate half" convention (GPT-NeoX, Hugging Face Llama):
// for i < D/2, with θ_i = base^{-2i/D} and p the token's absolute position, the pair (x_i, x_{i+D/2}) is
// rotated by the angle p·θ_i:
//
//	y_i       = x_i·cos(p·θ_i) − x_{i+D/2}·sin(p·θ_i)
//	y_{i+D/2} = x_{i+D/2}·cos(p·θ_i) + x_i·sin(p·θ_i)
//
// so ⟨RoPE(q, m), RoPE(k, n)⟩ depends on m − n only.
//
// x: [B, T, H, D] with D even; positions: [B, T] int32 or int64, the absolute position of every token (so rows
// with different prompt lengths or decode offsets are handled in one call); base > 0 (10000 in Llama 2 / GPT-NeoX). Returns x's shape.
// The angles are computed in float64 for float64 x and in float32 otherwise (also for bfloat16 x, whose
// 8-bit mantissa could not hold p·θ), then cos/sin are converted to x's dtype.
func RoPE(x, positions *Node, base float64) *Node {
	c := checker{fn: "RoPE"}
	xa, pa := arg{"x", x}, arg{"positions", positions}
	c.notNil(xa, pa)
	c.rank(xa, 4, "[B, T, H, D]")
	c.float(xa)
	d := x.Shape().Dimensions
	ropeValidate(c, xa, pa, base)
	c.dims(pa, "[B, T] with B, T of x", d[0], d[1])
	return ropeApply(x, positions, base)
}

// RoPEStep is RoPE for one token per batch row (decode): x [B, H, D] with D even; positions [B] int32 or
// int64. Returns [B, H, D], equal to RoPE on the token as a length-1 sequence.
func RoPEStep(x, positions *Node, base float64) *Node {
	c := checker{fn: "RoPEStep"}
	xa, pa := arg{"x", x}, arg{"positions", positions}
	c.notNil(xa, pa)
	c.rank(xa, 3, "[B, H, D]")
	c.float(xa)
	d := x.Shape().Dimensions
	ropeValidate(c, xa, pa, base)
	c.dims(pa, "[B] with B of x", d[0])
	y := ropeApply(Reshape(x, d[0], 1, d[1], d[2]), Reshape(positions, d[0], 1), base)
	return Reshape(y, d...)
}

// ropeValidate checks what RoPE and RoPEStep share: an even head dim, integer positions, a valid base.
func ropeValidate(c checker, xa, pa arg, base float64) {
	if dim := xa.node.Shape().Dim(-1); dim%2 != 0 || dim == 0 {
		argError(c.fn, "x must have an even, positive head dim D (rotated in pairs (x_i, x_{i+D/2})), got %s", xa)
	}
	if dt := pa.node.DType(); dt != dtypes.Int32 && dt != dtypes.Int64 {
		argError(c.fn, "positions must be int32 or int64, got %s", pa)
	}
	if !(base > 0) || math.IsInf(base, 0) {
		argError(c.fn, "base must be finite and > 0, got %g", base)
	}
}

// ropeApply is RoPE on validated arguments: x [B, T, H, D], positions [B, T].
func ropeApply(x, positions *Node, base float64) *Node {
	g, dt := x.Graph(), x.DType()
	d := x.Shape().Dimensions
	b, t, half := d[0], d[1], d[3]/2

	angleDT := dtypes.Float32
	if dt == dtypes.Float64 {
		angleDT = dtypes.Float64
	}
	invFreq := make([]float64, half) // θ_i, computed on the host in float64
	for i := range invFreq {
		invFreq[i] = math.Pow(base, -2*float64(i)/float64(d[3]))
	}
	theta := ConstAsDType(g, angleDT, invFreq)
	angles := Mul(Reshape(ConvertDType(positions, angleDT), b, t, 1), Reshape(theta, 1, 1, half)) // [B, T, D/2]
	cos := ConvertDType(Reshape(Cos(angles), b, t, 1, half), dt)                                  // [B, T, 1, D/2]
	sin := ConvertDType(Reshape(Sin(angles), b, t, 1, half), dt)

	x1 := Slice(x, AxisRange(), AxisRange(), AxisRange(), AxisRange(0, half))      // x_i, i < D/2
	x2 := Slice(x, AxisRange(), AxisRange(), AxisRange(), AxisRange(half, 2*half)) // x_{i+D/2}
	return Concatenate([]*Node{
		Sub(Mul(x1, cos), Mul(x2, sin)),
		Add(Mul(x2, cos), Mul(x1, sin)),
	}, -1)
}
