package infer

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// TestPrefillSegmentsMatchPrefill: a batch read in segments, each continued from the state the previous one
// left (segmentGraph), ends with the logits and the whole state — KV caches, linear states, conv
// inputs, positions — of one Prefill: every variant, ragged rows (the short one ends two segments before the
// other and then sits out with no tokens), switching and all-linear modes (the graph without the attention
// readout), segments that are a multiple of the linear chunk (8), that are not (6), and shorter than the conv's
// W-1 inputs (2), the attention reading the whole cache or only the rows filled so far (in steps of 8 or 4,
// as the pure-Go backend does in steps of segmentKeyStep). Float64.
func TestPrefillSegmentsMatchPrefill(t *testing.T) {
	const capacity = 30
	for _, v := range oryxtest.SweepVariants() {
		for _, linear := range []bool{false, true} {
			m, ctx := oryxtest.NewModel(t, oryxtest.Config(v))
			if linear && !m.Config.Variant.IsMultiMixer() {
				continue
			}
			t.Run(fmt.Sprintf("%s/linear=%v", v, linear), func(t *testing.T) {
				tokens := oryxtest.RandomTokens(11, 2, 23, m.Config.Vocab)
				prompts := [][]int32{tokens[0], tokens[1][:5]}
				modes := oryxtest.ModesFor(m, oryxtest.SwitchingModes(12, 2, 23))
				if linear {
					modes = oryxtest.ConstModes(2, 23, oryx.Linear)
				}
				if modes != nil {
					modes[1] = modes[1][:5]
				}
				e, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
				require.NoError(t, err)
				_, err = e.prefillPadded(prompts, modes, 23)
				require.NoError(t, err)
				want, wantState := e.LastLogits(), copyState(e.state)
				for _, c := range testutil.Sweep([]struct{ seg, keys int }{{6, 8}, {8, 0}, {2, 4}}, 1) {
					seg := c.seg
					e.segmentKeys = c.keys // the attention reads the cache rows filled so far, in steps of keys
					var progress []int
					e.PrefillProgress = func(done, total int) {
						require.Equal(t, 23, total)
						progress = append(progress, done)
					}
					got, err := e.prefillSegments(prompts, modes, 23, seg)
					require.Equal(t, (23+seg-1)/seg, len(progress), "one progress call a segment")
					require.Equal(t, 23, progress[len(progress)-1])
					require.NoError(t, err)
					require.Len(t, got, 2)
					for r := range 2 {
						require.LessOrEqual(t, testutil.RelErr(e.LastLogits()[r], want[r]), 1e-10, "segments of %d: row %d logits", seg, r)
					}
					state := copyState(e.state)
					require.Len(t, state, len(wantState))
					for i := range state {
						require.LessOrEqual(t, testutil.RelErr(state[i], wantState[i]), 1e-10, "segments of %d: state tensor %d", seg, i)
					}
				}
			})
		}
	}
}

// TestPrefillChoosesSegments: Prefill reads a batch in one graph up to prefillOneShotMax tokens and in segments
// beyond; the segment length follows the attention bound — prefillSegmentMax for all-linear reads, fewer rows
// when [B, H, S, L] logits would exceed it — and PrefillBytes estimates what the engine will run.
func TestPrefillChoosesSegments(t *testing.T) {
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	const l = 40000
	require.Equal(t, prefillSegmentMax, segmentLength(cfg, 1, l, false, PrefillAttentionMemBytes, 4))
	seg := segmentLength(cfg, 1, l, true, PrefillAttentionMemBytes, 4)
	require.Zero(t, seg%prefillBucket)
	require.LessOrEqual(t, int64(attentionLiveArrays*cfg.Heads*seg*l*4), PrefillAttentionMemBytes)
	require.Greater(t, int64(attentionLiveArrays*cfg.Heads*(seg+prefillBucket)*l*4), PrefillAttentionMemBytes)
	require.Equal(t, prefillBucket, segmentLength(cfg, 1<<20, 1<<24, true, PrefillAttentionMemBytes, 4), "at least one bucket")
	require.Equal(t, segmentPrefillBytes(cfg, 1, seg, l, 4, true), PrefillBytes(cfg, 1, l, l, 4, PrefillAttentionMemBytes))
	require.Equal(t, segmentPrefillBytes(cfg, 1, seg, l, 4, true), PrefillBytes(cfg, 1, prefillOneShotMax+1, l, 4, PrefillAttentionMemBytes),
		"past the one-graph limit a segment's activations count, whatever the prompt's length")
}
