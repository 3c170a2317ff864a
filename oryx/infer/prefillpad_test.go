package infer

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// TestPrefillPaddingInvariant: Prefill pads a batch to a multiple of prefillBucket tokens (one compiled graph
// for nearby lengths); the padding changes neither the logits nor any part of the state — KV caches, linear
// states, conv inputs, positions — against the same prefill padded only to its longest prompt.
func TestPrefillPaddingInvariant(t *testing.T) {
	const capacity = 80 // > prefillBucket: prompts of 5 and 9 tokens are padded to 64
	require.Equal(t, 64, prefillLength(9, capacity))
	require.Equal(t, 20, prefillLength(9, 20), "never beyond the capacity")
	require.Equal(t, 128, prefillLength(65, capacity+100))
	for _, v := range oryxtest.SweepVariants() {
		t.Run(string(v), func(t *testing.T) {
			m, ctx := oryxtest.NewModel(t, oryxtest.Config(v))
			tokens := oryxtest.RandomTokens(5, 2, 9, m.Config.Vocab)
			prompts := [][]int32{tokens[0][:5], tokens[1]}
			modes := oryxtest.ModesFor(m, oryxtest.SwitchingModes(6, 2, 9))
			if modes != nil {
				modes[0] = modes[0][:5]
			}
			e, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
			require.NoError(t, err)
			tight, err := e.prefillPadded(prompts, modes, 9)
			require.NoError(t, err)
			tightLogits, tightState := e.LastLogits(), copyState(e.state)
			padded, err := e.Prefill(prompts, modes)
			require.NoError(t, err)
			require.Equal(t, tight, padded)
			for r := range 2 {
				require.LessOrEqual(t, testutil.RelErr(e.LastLogits()[r], tightLogits[r]), 1e-10, "row %d logits", r)
			}
			got := copyState(e.state)
			require.Len(t, got, len(tightState))
			for i := range got {
				require.LessOrEqual(t, testutil.RelErr(got[i], tightState[i]), 1e-10, "state tensor %d", i)
			}
		})
	}
}

// copyState copies each state tensor's values as float64 (positions included).
func copyState(st []*tensors.Tensor) [][]float64 {
	out := make([][]float64, len(st))
	for i, t := range st {
		switch t.DType() {
		case dtypes.Float64:
			out[i] = tensors.MustCopyFlatData[float64](t)
		case dtypes.Float32:
			for _, x := range tensors.MustCopyFlatData[float32](t) {
				out[i] = append(out[i], float64(x))
			}
		case dtypes.Int32:
			for _, x := range tensors.MustCopyFlatData[int32](t) {
				out[i] = append(out[i], float64(x))
			}
		default:
			panic("copyState: state tensor of dtype " + t.DType().String())
		}
	}
	return out
}
