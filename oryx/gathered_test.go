package oryx

import (
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/testutil"
)

// TestLogitsGatheredMatchesLogits: computing attention only at the attention positions gives the same logits
// as the dense parallel forward with the same schedule, rows with different attention counts included.
func TestLogitsGatheredMatchesLogits(t *testing.T) {
	const n = 14
	for _, v := range []Variant{OryxTG, OryxTM} {
		for _, spec := range testutil.Sweep([]string{"A:2-4,A:9", "attention-last:3", "linear", "attention"}, 2) {
			t.Run(string(v)+"/"+spec, func(t *testing.T) {
				m, ctx := newTestModel(t, testConfig(v))
				tokens := randomTokens(31, 2, n, m.Config.Vocab)
				sched, err := ParseScheduleRows(spec, []int{n, n}, 0)
				require.NoError(t, err)
				if spec == "A:2-4,A:9" { // make the rows differ: row 1 gets one more attention token
					rows := [][]Mode{sched.Row(0), sched.Row(1)}
					rows[1][12] = Attention
					sched, err = NewSchedule(rows)
					require.NoError(t, err)
				}
				modes := [][]Mode{sched.Row(0), sched.Row(1)}
				want := parallelLogits(t, m, ctx, tokens, modes)
				exec, err := context.NewExec(backend.MustGet(), ctx, func(ctx *context.Context, tok, pos *Node) *Node {
					return m.LogitsGathered(ctx, tok, pos)
				})
				require.NoError(t, err)
				defer exec.Finalize()
				outs, err := exec.Exec(tensors.FromFlatDataAndDimensions(flatInt32(tokens), 2, n), sched.AttentionPositionsTensor())
				require.NoError(t, err)
				got := flatFloat64(outs[0])
				vocab := m.Config.Vocab
				for r := range 2 {
					require.LessOrEqual(t, testutil.RelErr(got[r*n*vocab:(r+1)*n*vocab], want[r]), 1e-12, "row %d", r)
				}
			})
		}
	}
}
