package backend

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/stretchr/testify/require"
)

// poolTestDots is the number of independent DotGenerals in poolTestGraph: more than SimpleGo's bounded pool
// holds (2 × parallelism goroutines) on this project's machines, so that every worker can be running one.
const poolTestDots = 8

// poolTestGraph returns, flattened and concatenated, poolTestDots independent batched DotGenerals of
// variants of x, each [4,320,64]×[4,64,320] (320×320 outputs: above SimpleGo's "large" threshold of 16
// blocks of 64×64 float32), the Erf of each (parallelized in chunks), and as many small batched DotGenerals
// ([4,32,64]×[4,64,32]). Each of the three ops splits its work into sub-tasks on the worker pool.
func poolTestGraph(x *Node) *Node {
	var outs []*Node
	small := Slice(x, AxisRange(), AxisRange(0, 32))
	for i := range poolTestDots {
		lhs := MulScalar(x, float64(i+1))
		rhs := Transpose(AddScalar(x, float64(i)), 1, 2)
		dot := Einsum("bik,bkj->bij", lhs, rhs)
		smallDot := Einsum("bik,bjk->bij", MulScalar(small, float64(i+1)), small)
		outs = append(outs, Reshape(dot, -1), Reshape(Erf(MulScalar(dot, 0.01)), -1), Reshape(smallDot, -1))
	}
	return Concatenate(outs, 0)
}

// runWithDeadline runs fn in a goroutine and fails the test if it does not return within d.
func runWithDeadline(t *testing.T, d time.Duration, what string, fn func() []float32) []float32 {
	t.Helper()
	done := make(chan []float32, 1)
	go func() { done <- fn() }()
	select {
	case out := <-done:
		return out
	case <-time.After(d):
		t.Fatalf("%s did not finish in %s: SimpleGo's worker pool deadlocked", what, d)
		return nil
	}
}

// TestSimpleGoBoundedPoolDoesNotDeadlock: ops running on SimpleGo workers (large and small DotGenerals, Erf)
// start their sub-tasks without waiting for a free worker, so a bounded pool ("go", "go:parallelism=1") runs
// several simultaneously ready large DotGenerals to the end, with the unbounded pool's results bit for bit.
func TestSimpleGoBoundedPoolDoesNotDeadlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]float32, 4*320*64)
	for i := range data {
		data[i] = rng.Float32()*2 - 1
	}
	run := func(config string) []float32 {
		input := tensors.FromFlatDataAndDimensions(data, 4, 320, 64) // one per backend: it keeps a device copy
		b, err := NewWithConfig(config)
		if err != nil { // not require: this runs outside the test's goroutine
			panic(err)
		}
		defer b.Finalize()
		exec := MustNewExec(b, poolTestGraph)
		var out []float32
		for range 3 { // several executions: the interleaving of the nodes varies
			out = tensors.MustCopyFlatData[float32](exec.MustExec1(input))
		}
		return out
	}
	want := runWithDeadline(t, 60*time.Second, "go:parallelism=-1", func() []float32 { return run("go:parallelism=-1") })
	for _, config := range []string{"go:parallelism=1", "go:parallelism=2", "go"} {
		t.Run(config, func(t *testing.T) {
			got := runWithDeadline(t, 60*time.Second, config, func() []float32 { return run(config) })
			require.Equal(t, want, got, fmt.Sprintf("%s differs from go:parallelism=-1", config))
		})
	}
}
