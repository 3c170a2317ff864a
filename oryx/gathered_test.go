package oryx_test

import (
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/tensordata"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// TestLogitsGatheredMatchesLogits: computing attention only at the attention positions gives the same logits
// as the dense parallel forward with the same schedule, rows with different attention counts included.
func TestLogitsGatheredMatchesLogits(t *testing.T) {
	const n = 14
	for _, v := range []oryx.Variant{oryx.OryxTG, oryx.OryxTM} {
		for _, spec := range testutil.Sweep([]string{"A:2-4,A:9", "attention-last:3", "linear", "attention"}, 2) {
			t.Run(string(v)+"/"+spec, func(t *testing.T) {
				m, ctx := oryxtest.NewModel(t, oryxtest.Config(v))
				tokens := oryxtest.RandomTokens(31, 2, n, m.Config.Vocab)
				parsed, err := schedule.ParseSpec(spec)
				require.NoError(t, err)
				sched, err := parsed.Schedule(2, n, 0)
				require.NoError(t, err)
				if spec == "A:2-4,A:9" { // make the rows differ: row 1 gets one more attention token
					rows := [][]oryx.Mode{sched.Row(0), sched.Row(1)}
					rows[1][12] = oryx.Attention
					sched, err = schedule.NewSchedule(rows)
					require.NoError(t, err)
				}
				modes := [][]oryx.Mode{sched.Row(0), sched.Row(1)}
				want := oryxtest.ParallelLogits(t, m, ctx, tokens, modes)
				exec, err := context.NewExec(backend.MustGet(), ctx, func(ctx *context.Context, tok, pos *Node) *Node {
					return m.LogitsGathered(ctx, tok, pos)
				})
				require.NoError(t, err)
				defer exec.Finalize()
				outs, err := exec.Exec(tensors.FromFlatDataAndDimensions(oryxtest.FlatInt32(tokens), 2, n), sched.AttentionPositionsTensor())
				require.NoError(t, err)
				got := tensordata.Float64s(outs[0])
				vocab := m.Config.Vocab
				for r := range 2 {
					require.LessOrEqual(t, testutil.RelErr(got[r*n*vocab:(r+1)*n*vocab], want[r]), 1e-12, "row %d", r)
				}
			})
		}
	}
}
