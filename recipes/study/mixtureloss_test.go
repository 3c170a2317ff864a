package study

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// TestScoreMaskedRows: each row's mean loss over its trained positions equals the one computed from the
// parallel forward's float64 logits (log-softmax at the masked positions), in each mode, for masked and
// unmasked (nil mask) rows.
func TestScoreMaskedRows(t *testing.T) {
	m, ctx := oryxtest.NewModel(t, oryxtest.Config(oryx.OryxTG))
	seqs := oryxtest.RandomTokens(3, 3, 9, m.Config.Vocab)
	masks := [][]bool{{false, true, false, false, true, true, false, false}, nil, {true, false, false, false, false, false, false, false}}
	sc, err := oryx.NewScorer(backend.MustGet(), ctx, m, 0)
	require.NoError(t, err)
	defer sc.Finalize()
	for _, mode := range []oryx.Mode{oryx.Attention, oryx.Linear} {
		got, err := scoreMaskedRows(sc, m, seqs, masks, mode)
		require.NoError(t, err)
		inputs := make([][]int32, len(seqs))
		for i, s := range seqs {
			inputs[i] = s[:8]
		}
		logits := oryxtest.ParallelLogits(t, m, ctx, inputs, oryxtest.ConstModes(3, 8, mode))
		v := m.Config.Vocab
		for i, s := range seqs {
			var sum float64
			var n int
			for j := 0; j < 8; j++ {
				if masks[i] != nil && !masks[i][j] {
					continue
				}
				row := logits[i][j*v : (j+1)*v]
				mx := math.Inf(-1)
				for _, x := range row {
					mx = math.Max(mx, x)
				}
				var z float64
				for _, x := range row {
					z += math.Exp(x - mx)
				}
				sum += mx + math.Log(z) - row[s[j+1]]
				n++
			}
			require.InDelta(t, sum/float64(n), got[i], 1e-9, "mode %v row %d", mode, i)
		}
	}
}
