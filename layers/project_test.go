package layers

import (
	"fmt"
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/testutil"
)

// TestProjectMatchesEinsum: Project equals the einsum it stands for — whichever operand order its kernel takes
// (on XLA the weight is the left operand for up to projectFewRows rows) — for one, a few and many rows, one and
// two contracted axes, both dtypes.
func TestProjectMatchesEinsum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	random := func(dims ...int) in {
		x := make([]float64, product(dims))
		for i := range x {
			x[i] = r.NormFloat64()
		}
		return in{x, dims}
	}
	for _, dtype := range testDTypes {
		for _, rows := range []int{1, 3, 40} {
			t.Run(fmt.Sprintf("%s/rows=%d", dtype, rows), func(t *testing.T) {
				x, w1 := random(1, rows, 12), random(5, 7, 12)   // btd,hkd->bthk
				y, w2 := random(1, rows, 5, 7), random(12, 5, 7) // bthv,dhv->btd
				got := mustExecGraph(t, dtype, func(n []*Node) []*Node {
					return []*Node{Project(n[0], n[1], 1), Einsum("btd,hkd->bthk", n[0], n[1]),
						Project(n[2], n[3], 2), Einsum("bthv,dhv->btd", n[2], n[3])}
				}, x, w1, y, w2)
				require.LessOrEqual(t, testutil.RelErr(got[0], got[1]), tolerance(dtype))
				require.LessOrEqual(t, testutil.RelErr(got[2], got[3]), tolerance(dtype))
			})
		}
	}
}
