package layers

import (
	"fmt"
	"math"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/stretchr/testify/require"
)

// blkRoPERef rotates each pair (x_i, x_{i+D/2}) of x [B, T, H, D] by pos[b][t]·base^{-2i/D}.
func blkRoPERef(x blkArray, pos [][]int64, base float64) blkArray {
	nb, nt, nh, nd := x.dims[0], x.dims[1], x.dims[2], x.dims[3]
	half := nd / 2
	y := blkZeros(x.dims...)
	for b := range nb {
		for t := range nt {
			for h := range nh {
				for i := range half {
					a := float64(pos[b][t]) * math.Pow(base, -2*float64(i)/float64(nd))
					x1, x2 := x.at(b, t, h, i), x.at(b, t, h, i+half)
					y.set(x1*math.Cos(a)-x2*math.Sin(a), b, t, h, i)
					y.set(x2*math.Cos(a)+x1*math.Sin(a), b, t, h, i+half)
				}
			}
		}
	}
	return y
}

func blkRoPEFn(base float64) func(xs []*Node) []*Node {
	return func(xs []*Node) []*Node { return []*Node{RoPE(xs[0], xs[1], base)} }
}

func TestRoPEMatchesLoop(t *testing.T) {
	r := blkRNG(20)
	x := blkRandn(r, 2, 5, 3, 8)
	// Row 0 is a prompt from 0, row 1 a continuation from offset 17 (with a gap), as in batched decoding.
	pos := [][]int64{{0, 1, 2, 3, 4}, {17, 18, 19, 25, 4000}}
	pos32 := make([][]int32, len(pos))
	for b, row := range pos {
		for _, p := range row {
			pos32[b] = append(pos32[b], int32(p))
		}
	}
	for _, base := range []float64{10000, 500} {
		want := blkRoPERef(x, pos, base)
		blkRequireClose(t, want, blkExec(t, blkRoPEFn(base), x, pos)[0], 1e-12, fmt.Sprintf("base %g int64", base))
		blkRequireClose(t, want, blkExec(t, blkRoPEFn(base), x, pos32)[0], 1e-12, fmt.Sprintf("base %g int32", base))
		// float32 x: angles in float32, so the error grows with the position (4000·θ_0 has ~2e-4 absolute error).
		got32 := blkExec(t, func(xs []*Node) []*Node {
			return []*Node{ConvertDType(RoPE(ConvertDType(xs[0], dtypes.Float32), xs[1], base), dtypes.Float64)}
		}, x, pos32)[0]
		blkRequireClose(t, want, got32, 2e-3, fmt.Sprintf("base %g float32", base))
	}
}

// ⟨RoPE(q, m), RoPE(k, n)⟩ depends only on m − n.
func TestRoPERelativePosition(t *testing.T) {
	r := blkRNG(21)
	const nd = 16
	q, k := blkRandn(r, nd), blkRandn(r, nd)
	// Token i of the sequence is q (for the query copy) or k, at position pos[i].
	pos := []int64{0, 2, 5, 7, 100, 102, 1000, 1002, 3, 3}
	n := len(pos)
	tile := func(v blkArray) blkArray {
		a := blkZeros(1, n, 1, nd)
		for i := range n {
			copy(a.data[i*nd:], v.data)
		}
		return a
	}
	got := blkExec(t, func(xs []*Node) []*Node {
		return []*Node{RoPE(xs[0], xs[2], 10000), RoPE(xs[1], xs[2], 10000)}
	}, tile(q), tile(k), [][]int64{pos})
	dot := func(i, j int) float64 { // ⟨RoPE(q, pos[i]), RoPE(k, pos[j])⟩
		s := 0.0
		for d := range nd {
			s += got[0].at(0, i, 0, d) * got[1].at(0, j, 0, d)
		}
		return s
	}
	// Offset m − n = 2 at positions (2,0), (7,5), (102,100), (1002,1000).
	for _, p := range [][2]int{{3, 2}, {5, 4}, {7, 6}} {
		require.InDelta(t, dot(1, 0), dot(p[0], p[1]), 1e-9, "offset 2, pair %v", p)
	}
	// Offset 0 at positions 0, 3, 1000: equal to ⟨q, k⟩ itself.
	plain := 0.0
	for d := range nd {
		plain += q.data[d] * k.data[d]
	}
	for _, i := range []int{0, 8, 6} {
		require.InDelta(t, plain, dot(i, i), 1e-9, "offset 0 at position %d", pos[i])
	}
	// The property is not vacuous: offsets 2 and 4 (positions 7 and 3) give different scores.
	require.Greater(t, math.Abs(dot(1, 0)-dot(3, 8)), 1e-3)
}

func TestRoPEStepMatchesRoPE(t *testing.T) {
	r := blkRNG(22)
	x := blkRandn(r, 3, 2, 6)
	pos := []int32{0, 9, 123}
	want := blkRoPERef(blkArray{dims: []int{3, 1, 2, 6}, data: x.data}, [][]int64{{0}, {9}, {123}}, 10000)
	want.dims = []int{3, 2, 6}
	got := blkExec(t, func(xs []*Node) []*Node { return []*Node{RoPEStep(xs[0], xs[1], 10000)} }, x, pos)
	blkRequireClose(t, want, got[0], 1e-12, "RoPEStep")
}

func TestRoPEGradient(t *testing.T) {
	r := blkRNG(23)
	x := blkRandn(r, 2, 3, 2, 4)
	pos := [][]int32{{0, 1, 2}, {5, 6, 40}}
	blkFiniteDiff(t, blkRoPEFn(10000), []any{x, pos}, []int{0}, 1e-6)
	t.Run("Step", func(t *testing.T) {
		blkFiniteDiff(t, func(xs []*Node) []*Node { return []*Node{RoPEStep(xs[0], xs[1], 100)} },
			[]any{blkRandn(r, 2, 2, 4), []int64{3, 11}}, []int{0}, 1e-6)
	})
}

func TestRoPEBadInputs(t *testing.T) {
	f64, i32 := dtypes.Float64, dtypes.Int32
	for _, c := range []struct {
		name  string
		build func(g *Graph)
		want  []string
	}{
		{"D odd", func(g *Graph) {
			RoPE(blkParam(g, "x", f64, 2, 5, 3, 7), blkParam(g, "p", i32, 2, 5), 10000)
		}, []string{"RoPE", "x must have an even", "[2 5 3 7]"}},
		{"step D odd", func(g *Graph) {
			RoPEStep(blkParam(g, "x", f64, 2, 3, 5), blkParam(g, "p", i32, 2), 10000)
		}, []string{"RoPEStep", "even", "[2 3 5]"}},
		{"x rank", func(g *Graph) {
			RoPE(blkParam(g, "x", f64, 2, 5, 8), blkParam(g, "p", i32, 2, 5), 10000)
		}, []string{"RoPE", "x must have rank 4", "[B, T, H, D]"}},
		{"positions shape", func(g *Graph) {
			RoPE(blkParam(g, "x", f64, 2, 5, 3, 8), blkParam(g, "p", i32, 2, 4), 10000)
		}, []string{"RoPE", "positions", "[2 4]"}},
		{"positions float", func(g *Graph) {
			RoPE(blkParam(g, "x", f64, 2, 5, 3, 8), blkParam(g, "p", f64, 2, 5), 10000)
		}, []string{"RoPE", "positions must be int32 or int64"}},
		{"positions nil", func(g *Graph) {
			RoPE(blkParam(g, "x", f64, 2, 5, 3, 8), nil, 10000)
		}, []string{"RoPE", "positions", "nil"}},
		{"x integer", func(g *Graph) {
			RoPE(blkParam(g, "x", i32, 2, 5, 3, 8), blkParam(g, "p", i32, 2, 5), 10000)
		}, []string{"RoPE", "x must be a float"}},
		{"base", func(g *Graph) {
			RoPE(blkParam(g, "x", f64, 2, 5, 3, 8), blkParam(g, "p", i32, 2, 5), 0)
		}, []string{"RoPE", "base"}},
		{"step positions", func(g *Graph) {
			RoPEStep(blkParam(g, "x", f64, 2, 3, 8), blkParam(g, "p", i32, 2, 1), 10000)
		}, []string{"RoPEStep", "positions", "[2 1]"}},
	} {
		msg := blkPanicMsg(t, c.build)
		for _, w := range c.want {
			require.Contains(t, msg, w, c.name)
		}
	}
}
