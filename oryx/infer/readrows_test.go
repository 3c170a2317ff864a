package infer

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/tensordata"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// TestReadRows: the cache rows a step reads are the smallest power of two ≥ the tokens it needs, at least
// minReadRows, and the whole cache (0) once that reaches the capacity.
func TestReadRows(t *testing.T) {
	for _, c := range []struct{ n, capacity, want int }{
		{1, 16, 0}, {84, 256, 0}, {84, 16384, 256}, {256, 16384, 256}, {257, 16384, 512}, {8193, 16384, 0},
		{8192, 16384, 8192}, {300, 600, 512}, {513, 600, 0}, {1, 257, 256},
	} {
		require.Equal(t, c.want, readRows(c.n, c.capacity), "n %d, capacity %d", c.n, c.capacity)
	}
}

// TestBucketedReadsMatchWholeCache: a decode step and a verify pass that read only the cache rows in use (the
// bucket readRows picks: 256, then 512 rows of a 600-row cache) give the logits and the state of the same
// graphs reading the whole cache, for rows of different lengths and switching modes (float64, Oryx-TG and the
// Transformer); the engine's own steps cross the buckets on the way.
func TestBucketedReadsMatchWholeCache(t *testing.T) {
	const capacity = 600
	for _, v := range []oryx.Variant{oryx.OryxTG, oryx.Transformer} {
		t.Run(string(v), func(t *testing.T) {
			m, ctx := genTestModel(t, v)
			e, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
			require.NoError(t, err)
			lengths := []int{250, 200}
			tokens := oryxtest.RandomTokens(9, 2, 520, m.Config.Vocab)
			modes := oryxtest.ModesFor(m, oryxtest.SwitchingModes(10, 2, 520))
			prompts, promptModes := make([][]int32, 2), [][]oryx.Mode(nil)
			for r := range prompts {
				prompts[r] = tokens[r][:lengths[r]]
			}
			if modes != nil {
				promptModes = [][]oryx.Mode{modes[0][:lengths[0]], modes[1][:lengths[1]]}
			}
			_, err = e.Prefill(prompts, promptModes)
			require.NoError(t, err)
			seen := map[int]bool{}
			for i := 0; e.pos[0] < 520; i++ {
				md := []oryx.Mode{oryx.Attention, oryx.Attention}
				if modes != nil {
					md = []oryx.Mode{modes[0][e.pos[0]], modes[1][e.pos[1]]}
				}
				col := []int32{tokens[0][e.pos[0]], tokens[1][e.pos[1]]}
				keys := readRows(max(e.pos[0], e.pos[1])+1, capacity)
				if keys > 0 && (i%16 == 0 || !seen[keys]) { // the bucket against the whole cache, same state
					seen[keys] = true
					bucket, whole := runStep(t, e, keys, col, md), runStep(t, e, 0, col, md)
					for j := range whole {
						require.LessOrEqual(t, testutil.RelErr(bucket[j], whole[j]), 1e-12, "step at %v, output %d", e.pos, j)
					}
					vk := readRows(max(e.pos[0], e.pos[1])+3, capacity)
					if i%64 == 0 && v == oryx.OryxTG && vk > 0 { // the verify pass of speculative decoding, 3 tokens
						vb, vw := runVerify(t, e, vk), runVerify(t, e, 0)
						for j := range vw {
							require.LessOrEqual(t, testutil.RelErr(vb[j], vw[j]), 1e-12, "verify at %v, output %d", e.pos, j)
						}
					}
				}
				_, err := e.Step(col, md)
				require.NoError(t, err)
			}
			require.True(t, seen[256] && seen[512], "the steps crossed both buckets: %v", seen)
			require.Contains(t, e.steps, 0, "past 512 tokens the step reads the whole cache")
		})
	}
}

// runStep runs the step graph reading keys cache rows on the engine's state without donating it (the state
// is left as it is) and returns every output as float64.
func runStep(t *testing.T, e *Engine, keys int, tokens []int32, modes []oryx.Mode) [][]float64 {
	t.Helper()
	exec, err := e.stepExec(keys)
	require.NoError(t, err)
	md := make([]int32, e.batch)
	for b, m := range modes {
		md[b] = int32(m)
	}
	args := []any{tensors.FromFlatDataAndDimensions(append([]int32(nil), tokens...), e.batch), tensors.FromFlatDataAndDimensions(md, e.batch)}
	for _, s := range e.state {
		args = append(args, s)
	}
	outs, err := exec.Exec(args...)
	require.NoError(t, err)
	return float64s(outs)
}

// runVerify runs the verify graph reading keys cache rows on 3 tokens per row (the second row feeds 2) in
// attention mode, without donating the state, and returns every output as float64.
func runVerify(t *testing.T, e *Engine, keys int) [][]float64 {
	t.Helper()
	x, err := e.speculativeExecs()
	require.NoError(t, err)
	exec, err := e.verifyExec(x, keys)
	require.NoError(t, err)
	tok, md := []int32{1, 2, 3, 4, 5, 6}, []int32{1, 1, 1, 1, 0, 1}
	args := []any{tensors.FromFlatDataAndDimensions(tok, e.batch, 3), tensors.FromFlatDataAndDimensions(md, e.batch, 3),
		tensors.FromFlatDataAndDimensions([]int32{3, 2}, e.batch)}
	for _, s := range e.state {
		args = append(args, s)
	}
	outs, err := exec.Exec(args...)
	require.NoError(t, err)
	return float64s(outs)
}

// float64s copies tensors to float64 host slices and frees them.
func float64s(ts []*tensors.Tensor) [][]float64 {
	out := make([][]float64, len(ts))
	for i, t := range ts {
		out[i] = tensordata.Float64s(t)
		t.FinalizeAll()
	}
	return out
}
