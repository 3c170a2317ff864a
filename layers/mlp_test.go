package layers

import (
	"fmt"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/stretchr/testify/require"
)

// blkSwiGLURef computes (SiLU(x·wGate) ⊙ (x·wUp))·wDown row by row over x's last axis.
func blkSwiGLURef(x, wGate, wUp, wDown blkArray) blkArray {
	nf, nd := wGate.dims[0], wGate.dims[1]
	return blkRowsRef(x, func(row, out []float64) {
		for o := range nd {
			out[o] = 0
		}
		for f := range nf {
			g, u := 0.0, 0.0
			for d := range nd {
				g += row[d] * wGate.at(f, d)
				u += row[d] * wUp.at(f, d)
			}
			h := blkSiLURef(g) * u
			for o := range nd {
				out[o] += h * wDown.at(o, f)
			}
		}
	})
}

func TestSwiGLUMatchesLoop(t *testing.T) {
	r := blkRNG(30)
	const nd, nf = 6, 10
	wg, wu, wd := blkRandn(r, nf, nd), blkRandn(r, nf, nd), blkRandn(r, nd, nf)
	for _, dims := range [][]int{{nd}, {4, nd}, {2, 3, nd}} {
		x := blkRandn(r, dims...)
		got := blkExec(t, func(xs []*Node) []*Node { return []*Node{SwiGLU(xs[0], xs[1], xs[2], xs[3])} }, x, wg, wu, wd)
		blkRequireClose(t, blkSwiGLURef(x, wg, wu, wd), got[0], 1e-12, fmt.Sprintf("x %v", dims))
	}
}

func TestSwiGLUGradient(t *testing.T) {
	r := blkRNG(31)
	x, wg, wu, wd := blkRandn(r, 2, 3, 4), blkRandn(r, 5, 4), blkRandn(r, 5, 4), blkRandn(r, 4, 5)
	blkFiniteDiff(t, func(xs []*Node) []*Node { return []*Node{SwiGLU(xs[0], xs[1], xs[2], xs[3])} },
		[]any{x, wg, wu, wd}, []int{0, 1, 2, 3}, 1e-6)
}

func TestSwiGLUBadInputs(t *testing.T) {
	f64, f32 := dtypes.Float64, dtypes.Float32
	for _, c := range []struct {
		name  string
		build func(g *Graph)
		want  []string
	}{
		{"wGate D", func(g *Graph) {
			SwiGLU(blkParam(g, "x", f64, 2, 6), blkParam(g, "g", f64, 10, 5), blkParam(g, "u", f64, 10, 6), blkParam(g, "d", f64, 6, 10))
		}, []string{"SwiGLU", "wGate", "[10 5]"}},
		{"wUp F", func(g *Graph) {
			SwiGLU(blkParam(g, "x", f64, 2, 6), blkParam(g, "g", f64, 10, 6), blkParam(g, "u", f64, 9, 6), blkParam(g, "d", f64, 6, 10))
		}, []string{"SwiGLU", "wUp", "[9 6]"}},
		{"wDown", func(g *Graph) {
			SwiGLU(blkParam(g, "x", f64, 2, 6), blkParam(g, "g", f64, 10, 6), blkParam(g, "u", f64, 10, 6), blkParam(g, "d", f64, 10, 6))
		}, []string{"SwiGLU", "wDown", "[10 6]"}},
		{"wUp rank", func(g *Graph) {
			SwiGLU(blkParam(g, "x", f64, 2, 6), blkParam(g, "g", f64, 10, 6), blkParam(g, "u", f64, 60), blkParam(g, "d", f64, 6, 10))
		}, []string{"SwiGLU", "wUp", "[60]"}},
		{"wGate rank", func(g *Graph) {
			SwiGLU(blkParam(g, "x", f64, 2, 6), blkParam(g, "g", f64, 1, 6, 10), blkParam(g, "u", f64, 10, 6), blkParam(g, "d", f64, 6, 10))
		}, []string{"SwiGLU", "wGate must have rank 2"}},
		{"dtype", func(g *Graph) {
			SwiGLU(blkParam(g, "x", f64, 2, 6), blkParam(g, "g", f64, 10, 6), blkParam(g, "u", f64, 10, 6), blkParam(g, "d", f32, 6, 10))
		}, []string{"SwiGLU", "wDown", "dtype"}},
		{"nil", func(g *Graph) {
			SwiGLU(blkParam(g, "x", f64, 2, 6), nil, blkParam(g, "u", f64, 10, 6), blkParam(g, "d", f64, 6, 10))
		}, []string{"SwiGLU", "wGate", "nil"}},
		{"scalar x", func(g *Graph) {
			SwiGLU(blkParam(g, "x", f64), blkParam(g, "g", f64, 10, 6), blkParam(g, "u", f64, 10, 6), blkParam(g, "d", f64, 6, 10))
		}, []string{"SwiGLU", "x must have rank"}},
	} {
		msg := blkPanicMsg(t, c.build)
		for _, w := range c.want {
			require.Contains(t, msg, w, c.name)
		}
	}
}
