// Package tensordata copies tensors' data to the host in the one element type the callers compute with: the
// model's scorer, the inference engine and the tests read logits and states of any float dtype as float64.
package tensordata

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// Float64s copies a float64, float32 or int32 tensor to a float64 slice (row-major); it panics on another
// dtype.
func Float64s(t *tensors.Tensor) []float64 {
	switch t.DType() {
	case dtypes.Float64:
		return tensors.MustCopyFlatData[float64](t)
	case dtypes.Float32:
		return convertSlice(tensors.MustCopyFlatData[float32](t))
	case dtypes.Int32:
		return convertSlice(tensors.MustCopyFlatData[int32](t))
	}
	panic(fmt.Errorf("tensordata.Float64s: unexpected dtype %s", t.DType()))
}

func convertSlice[T float32 | int32](x []T) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// FinalizeAll frees the device and host memory of every tensor of ts now rather than at garbage collection.
func FinalizeAll(ts []*tensors.Tensor) {
	for _, t := range ts {
		t.FinalizeAll()
	}
}
