package layers

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/stretchr/testify/require"
)

// TestGatherRowsAndCacheRows: GatherRows picks each row's own positions, CacheRows clamps positions to the
// cache's last row, and both name a bad argument.
func TestGatherRowsAndCacheRows(t *testing.T) {
	// x [2, 3, 2]: x[b, t, e] = 100b + 10t + e.
	var xs []float64
	for b := range 2 {
		for i := range 3 {
			xs = append(xs, float64(100*b+10*i), float64(100*b+10*i+1))
		}
	}
	out := mustExecGraph(t, dtypes.Float64, func(in []*Node) []*Node {
		idx := ConvertDType(in[1], dtypes.Int32)
		cache := Zeros(in[0].Graph(), shapes.Make(dtypes.Float64, 2, 1, 4, 1))
		return []*Node{GatherRows(in[0], idx), ConvertDType(CacheRows(Mul(idx, Const(idx.Graph(), int32(2))), cache), dtypes.Float64)}
	}, in{xs, []int{2, 3, 2}}, in{[]float64{2, 0, 1, 1}, []int{2, 2}})
	require.Equal(t, []float64{20, 21, 0, 1, 110, 111, 110, 111}, out[0], "x[0, 2], x[0, 0], x[1, 1], x[1, 1]")
	require.Equal(t, []float64{3, 0, 2, 2}, out[1], "positions 4, 0, 2, 2 clamped to the rows 0..3")

	_, err := execGraph(dtypes.Float64, func(in []*Node) []*Node {
		return []*Node{GatherRows(in[0], ConvertDType(in[1], dtypes.Int32))}
	}, in{xs, []int{2, 3, 2}}, in{[]float64{0, 1, 2}, []int{3, 1}})
	require.ErrorContains(t, err, "GatherRows: idx must have shape [B, N] with B of x")
	_, err = execGraph(dtypes.Float64, func(in []*Node) []*Node {
		return []*Node{CacheRows(in[1], in[0])}
	}, in{xs, []int{2, 3, 2}}, in{[]float64{0, 1}, []int{1, 2}})
	require.ErrorContains(t, err, "CacheRows: positions must be an integer tensor")
}
