package layers

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/layers/naive"
)

// TestParallelBackendIsDeterministic: the default backend runs graph nodes concurrently; results (forward and
// gradients) must still be bit-identical from run to run and equal to one-node-at-a-time execution.
func TestParallelBackendIsDeterministic(t *testing.T) {
	m := newMixerData(51, naive.Dims{B: 2, T: 150, H: 2, K: 16, V: 16}, dataOpts{withState: true, unitKeys: true})
	fn := func(x []*Node) []*Node {
		out, final := NewGatedDeltaRule(x[0], x[1], x[2], x[3], x[4]).InitialState(x[5]).Chunk(32).Done()
		loss := Add(ReduceAllSum(Mul(out, out)), ReduceAllSum(final))
		return append([]*Node{out, final}, Gradient(loss, x[0], x[1], x[2], x[3], x[4], x[5])...)
	}
	runOn := func(config string) [][]float32 {
		be, err := backend.NewWithConfig(config)
		require.NoError(t, err)
		args := make([]any, 0, 6) // tensors are bound to one backend instance: fresh ones for each
		for _, x := range m.inputs() {
			args = append(args, toTensor(x, dtypes.Float32))
		}
		exec := MustNewExec(be, fn)
		defer exec.Finalize()
		outs := exec.MustExec(args...)
		res := make([][]float32, len(outs))
		for i, o := range outs {
			res[i] = tensors.MustCopyFlatData[float32](o)
		}
		return res
	}
	first := runOn(backend.DefaultConfig)
	require.Equal(t, first, runOn(backend.DefaultConfig), "two runs of the default (parallel) backend")
	require.Equal(t, first, runOn("go:ops_sequential"), "parallel vs sequential node execution")
}
