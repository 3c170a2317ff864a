package xla_test

import (
	"testing"

	"github.com/gomlx/go-xla/pkg/pjrt"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/stretchr/testify/require"
)

// TestBufferDonor: a donated parameter is updated in place (the output reuses the input's device buffer), and
// the same executable run without donation leaves its input untouched.
func TestBufferDonor(t *testing.T) {
	const n = 1 << 16
	exec := graph.MustNewExec(backend, func(state, x *graph.Node) *graph.Node {
		return graph.Add(state, x)
	})
	defer exec.Finalize()
	ones := make([]float32, n)
	for i := range ones {
		ones[i] = 1
	}
	pointer := func(x *tensors.Tensor) uintptr {
		buf, err := x.Buffer(backend, 0)
		require.NoError(t, err)
		ptr, err := buf.(*pjrt.Buffer).UnsafePointer()
		require.NoError(t, err)
		return uintptr(ptr)
	}

	// Donated: the first call builds the graph and marks the donated parameter as a buffer donor.
	state := tensors.FromFlatDataAndDimensions(ones, n)
	state.MustMaterializeOnDevice(backend, false, 0)
	for step := range 3 {
		before := pointer(state)
		donated, err := graph.DonateTensorBuffer(state, backend, 0)
		require.NoError(t, err)
		state = exec.MustExec(donated, float32(2))[0]
		require.Equalf(t, before, pointer(state), "step %d: the output was not written into the donated buffer", step)
	}
	require.Equal(t, float32(7), tensors.MustCopyFlatData[float32](state)[n-1])

	// Not donated: the input keeps its value.
	input := tensors.FromFlatDataAndDimensions(ones, n)
	input.MustMaterializeOnDevice(backend, false, 0)
	out := exec.MustExec(input, float32(2))[0]
	require.NotEqual(t, pointer(input), pointer(out))
	require.Equal(t, float32(1), tensors.MustCopyFlatData[float32](input)[0])
	require.Equal(t, float32(3), tensors.MustCopyFlatData[float32](out)[0])
}
