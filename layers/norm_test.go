package layers

import (
	"fmt"
	"math"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/stretchr/testify/require"
)

func blkSiLURef(v float64) float64 { return v / (1 + math.Exp(-v)) }

// blkRowsRef applies f to each last-axis row of x (f gets the row and writes the output row).
func blkRowsRef(x blkArray, f func(row, out []float64)) blkArray {
	d := x.dims[len(x.dims)-1]
	y := blkZeros(x.dims...)
	for o := 0; o < len(x.data); o += d {
		f(x.data[o:o+d], y.data[o:o+d])
	}
	return y
}

func blkRMSNormRef(x blkArray, weight *blkArray, eps float64) blkArray {
	return blkRowsRef(x, func(row, out []float64) {
		ms := 0.0
		for _, v := range row {
			ms += v * v
		}
		ms /= float64(len(row))
		for i, v := range row {
			out[i] = v / math.Sqrt(ms+eps)
			if weight != nil {
				out[i] *= weight.data[i]
			}
		}
	})
}

func blkL2Ref(x blkArray, eps float64) blkArray {
	return blkRowsRef(x, func(row, out []float64) {
		s := 0.0
		for _, v := range row {
			s += v * v
		}
		for i, v := range row {
			out[i] = v / math.Sqrt(s+eps)
		}
	})
}

func TestRMSNormMatchesLoop(t *testing.T) {
	r := blkRNG(10)
	for _, dims := range [][]int{{5}, {2, 3, 8}, {2, 3, 2, 4}} {
		d := dims[len(dims)-1]
		x, w, gate := blkRandn(r, dims...), blkRandn(r, d), blkRandn(r, dims...)
		for _, eps := range []float64{0, 1e-6, 0.5} {
			name := fmt.Sprintf("dims=%v eps=%g", dims, eps)
			got := blkExec(t, func(xs []*Node) []*Node {
				return []*Node{RMSNorm(xs[0], xs[1], eps), RMSNorm(xs[0], nil, eps), GatedRMSNorm(xs[0], xs[2], xs[1], eps),
					GatedRMSNorm(xs[0], xs[2], nil, eps)}
			}, x, w, gate)
			blkRequireClose(t, blkRMSNormRef(x, &w, eps), got[0], 1e-12, name+" RMSNorm")
			blkRequireClose(t, blkRMSNormRef(x, nil, eps), got[1], 1e-12, name+" RMSNorm no weight")
			for k, wp := range []*blkArray{&w, nil} {
				want := blkRMSNormRef(x, wp, eps)
				for i := range want.data {
					want.data[i] *= blkSiLURef(gate.data[i])
				}
				blkRequireClose(t, want, got[2+k], 1e-12, fmt.Sprintf("%s GatedRMSNorm weight=%v", name, wp != nil))
			}
		}
	}
}

func TestSiLUAndNormalizeL2MatchLoop(t *testing.T) {
	r := blkRNG(11)
	x := blkRandn(r, 2, 3, 7)
	for i := range 7 { // a zero row: NormalizeL2 must keep it 0 (no NaN) thanks to eps
		x.set(0, 1, 2, i)
	}
	got := blkExec(t, func(xs []*Node) []*Node {
		return []*Node{SiLU(xs[0]), NormalizeL2(xs[0], 1e-6)}
	}, x)
	silu := blkRowsRef(x, func(row, out []float64) {
		for i, v := range row {
			out[i] = blkSiLURef(v)
		}
	})
	blkRequireClose(t, silu, got[0], 1e-12, "SiLU")
	blkRequireClose(t, blkL2Ref(x, 1e-6), got[1], 1e-12, "NormalizeL2")
	for i := range 7 {
		require.Equal(t, 0.0, got[1].at(1, 2, i))
	}
}

// 16-bit inputs are normalised in float32 and come back in their own dtype.
func TestNormBFloat16(t *testing.T) {
	r := blkRNG(12)
	x, w := blkRandn(r, 2, 16), blkRandn(r, 16)
	for i := range x.data {
		x.data[i] *= 100 // Σx² ≈ 1.6e5: fine in float32, coarse in bfloat16
	}
	got := blkExec(t, func(xs []*Node) []*Node {
		x16, w16 := ConvertDType(xs[0], dtypes.BFloat16), ConvertDType(xs[1], dtypes.BFloat16)
		y, l2 := RMSNorm(x16, w16, 1e-6), NormalizeL2(x16, 1e-6)
		require.Equal(t, dtypes.BFloat16, y.DType())
		require.Equal(t, dtypes.BFloat16, l2.DType())
		return []*Node{ConvertDType(y, dtypes.Float64), ConvertDType(l2, dtypes.Float64)}
	}, x, w)
	blkRequireClose(t, blkRMSNormRef(x, &w, 1e-6), got[0], 3e-2, "RMSNorm bf16")
	blkRequireClose(t, blkL2Ref(x, 1e-6), got[1], 1e-2, "NormalizeL2 bf16")
}

func TestNormGradients(t *testing.T) {
	r := blkRNG(13)
	x, w, gate := blkRandn(r, 2, 3, 5), blkRandn(r, 5), blkRandn(r, 2, 3, 5)
	t.Run("RMSNorm", func(t *testing.T) {
		blkFiniteDiff(t, func(xs []*Node) []*Node { return []*Node{RMSNorm(xs[0], xs[1], 1e-6)} },
			[]any{x, w}, []int{0, 1}, 1e-6)
	})
	t.Run("GatedRMSNorm", func(t *testing.T) {
		blkFiniteDiff(t, func(xs []*Node) []*Node { return []*Node{GatedRMSNorm(xs[0], xs[1], xs[2], 1e-6)} },
			[]any{x, gate, w}, []int{0, 1, 2}, 1e-6)
	})
	t.Run("SiLU", func(t *testing.T) {
		blkFiniteDiff(t, func(xs []*Node) []*Node { return []*Node{SiLU(xs[0])} }, []any{x}, []int{0}, 1e-6)
	})
	t.Run("NormalizeL2", func(t *testing.T) {
		blkFiniteDiff(t, func(xs []*Node) []*Node { return []*Node{NormalizeL2(xs[0], 1e-6)} }, []any{x}, []int{0}, 1e-6)
	})
}

func TestNormBadInputs(t *testing.T) {
	f64, f32 := dtypes.Float64, dtypes.Float32
	for _, c := range []struct {
		name  string
		build func(g *Graph)
		want  []string
	}{
		{"RMSNorm weight dim", func(g *Graph) {
			RMSNorm(blkParam(g, "x", f64, 2, 8), blkParam(g, "w", f64, 4), 1e-6)
		}, []string{"RMSNorm", "weight", "[4]", "[8]"}},
		{"RMSNorm weight rank", func(g *Graph) {
			RMSNorm(blkParam(g, "x", f64, 2, 8), blkParam(g, "w", f64, 2, 8), 1e-6)
		}, []string{"RMSNorm", "weight", "[2 8]"}},
		{"RMSNorm weight dtype", func(g *Graph) {
			RMSNorm(blkParam(g, "x", f64, 2, 8), blkParam(g, "w", f32, 8), 1e-6)
		}, []string{"RMSNorm", "weight", "dtype"}},
		{"RMSNorm scalar", func(g *Graph) {
			RMSNorm(blkParam(g, "x", f64), nil, 1e-6)
		}, []string{"RMSNorm", "x must have rank"}},
		{"RMSNorm negative eps", func(g *Graph) {
			RMSNorm(blkParam(g, "x", f64, 2, 8), nil, -1)
		}, []string{"RMSNorm", "eps"}},
		{"RMSNorm integer", func(g *Graph) {
			RMSNorm(blkParam(g, "x", dtypes.Int32, 2, 8), nil, 1e-6)
		}, []string{"RMSNorm", "x must be a float"}},
		{"GatedRMSNorm gate shape", func(g *Graph) {
			GatedRMSNorm(blkParam(g, "x", f64, 2, 8), blkParam(g, "z", f64, 2, 4), nil, 1e-6)
		}, []string{"GatedRMSNorm", "gate", "[2 4]", "[2 8]"}},
		{"GatedRMSNorm nil gate", func(g *Graph) {
			GatedRMSNorm(blkParam(g, "x", f64, 2, 8), nil, nil, 1e-6)
		}, []string{"GatedRMSNorm", "gate", "nil"}},
		{"GatedRMSNorm gate dtype", func(g *Graph) {
			GatedRMSNorm(blkParam(g, "x", f64, 2, 8), blkParam(g, "z", f32, 2, 8), nil, 1e-6)
		}, []string{"GatedRMSNorm", "gate", "dtype"}},
		{"SiLU nil", func(g *Graph) { SiLU(nil) }, []string{"SiLU", "x", "nil"}},
		{"SiLU integer", func(g *Graph) { SiLU(blkParam(g, "x", dtypes.Int64, 3)) }, []string{"SiLU", "x must be a float"}},
		{"NormalizeL2 eps", func(g *Graph) {
			NormalizeL2(blkParam(g, "x", f64, 3), math.NaN())
		}, []string{"NormalizeL2", "eps"}},
	} {
		msg := blkPanicMsg(t, c.build)
		for _, w := range c.want {
			require.Contains(t, msg, w, c.name)
		}
	}
}
