package infer

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// TestGenerateMaxTokensOverflow: a MaxTokens so large that promptLen + MaxTokens − 1 overflows int is refused
// before any work by Generate and GenerateSpeculative (any k), as a merely too large one is. Before, the sum
// wrapped to a negative number, passed the capacity check, and the generation ran until the cache was full.
// With RowMaxTokens every row needs room for the largest cap.
func TestGenerateMaxTokensOverflow(t *testing.T) {
	e := newTestEngine(t, oryx.OryxTG, 2, 8)
	vocab := e.model.Config.Vocab
	prompts := [][]int32{oryxtest.RandomTokens(91, 1, 3, vocab)[0], oryxtest.RandomTokens(92, 1, 2, vocab)[0]}
	for _, n := range []int{math.MaxInt, math.MaxInt - 1} {
		_, err := e.Generate(prompts, GenerateOptions{MaxTokens: n})
		require.ErrorContains(t, err, "Engine.Generate: row 0 needs more than 8 cache positions", "MaxTokens %d", n)
		require.Equal(t, []int{0, 0}, e.Positions(), "refused before any work")
		for _, k := range []int{AutoDraft, 1, MaxDraft} {
			_, err = e.GenerateSpeculative(prompts, k, GenerateOptions{MaxTokens: n})
			require.ErrorContains(t, err, "Engine.GenerateSpeculative: row 0 needs more than 8 cache positions", "MaxTokens %d, k %d", n, k)
			require.Equal(t, []int{0, 0}, e.Positions(), "refused before any work")
		}
	}
	_, err := e.Generate(prompts, GenerateOptions{MaxTokens: math.MaxInt / 2})
	require.ErrorContains(t, err, "Engine.Generate: row 0 needs 4611686018427387905 cache positions")
	// RowMaxTokens: a row that has stopped at its cap is fed until the last row ends, so each row needs its
	// prompt + the largest cap − 1 positions. Before, the check took each row's own cap: row 0 (3 + 6 − 1 = 8)
	// was let through and its cache overran while row 1 ran to its 7th token.
	_, err = e.Generate(prompts, GenerateOptions{MaxTokens: math.MaxInt, RowMaxTokens: []int{6, 7}})
	require.ErrorContains(t, err, "row 0 needs 9 cache positions (prompt of 3 tokens + the largest RowMaxTokens 7 − 1: a row that has stopped")
	require.Equal(t, []int{0, 0}, e.Positions(), "refused before any work")
	g, err := e.Generate(prompts, GenerateOptions{MaxTokens: math.MaxInt, RowMaxTokens: []int{2, 6}})
	require.NoError(t, err)
	require.Equal(t, []int{2, 6}, []int{len(g.Tokens[0]), len(g.Tokens[1])})
}

// TestDecodeAtBucketEdges: a decode step whose token lands on the last row of the 256-row bucket (255 tokens
// before it), and the first step past it, give what the whole-cache graph gives on the same state; so does a
// verify pass whose last token lands on row 255 (keys = 256 exactly). The capacity, 300, is no power of two:
// past 256 the whole cache is read.
func TestDecodeAtBucketEdges(t *testing.T) {
	const capacity = 300
	m, ctx := genTestModel(t, oryx.OryxTG)
	e, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
	require.NoError(t, err)
	tokens := oryxtest.RandomTokens(93, 2, 258, m.Config.Vocab)
	modes := oryxtest.ModesFor(m, oryxtest.SwitchingModes(94, 2, 258))
	_, err = e.Prefill([][]int32{tokens[0][:253], tokens[1][:200]}, [][]oryx.Mode{modes[0][:253], modes[1][:200]})
	require.NoError(t, err)
	require.Equal(t, 256, readRows(e.pos[0]+3, capacity), "the verify pass's last token on row 255")
	vb, vw := runVerify(t, e, 256), runVerify(t, e, 0)
	for j := range vw {
		require.LessOrEqual(t, testutil.RelErr(vb[j], vw[j]), 1e-12, "verify at %v, output %d", e.pos, j)
	}
	for e.pos[0] < 257 {
		col := []int32{tokens[0][e.pos[0]], tokens[1][e.pos[1]]}
		md := []oryx.Mode{modes[0][e.pos[0]], modes[1][e.pos[1]]}
		if keys := readRows(e.pos[0]+1, capacity); keys > 0 {
			bucket, whole := runStep(t, e, keys, col, md), runStep(t, e, 0, col, md)
			for j := range whole {
				require.LessOrEqual(t, testutil.RelErr(bucket[j], whole[j]), 1e-12, "step at %v, output %d", e.pos, j)
			}
		}
		_, err := e.Step(col, md)
		require.NoError(t, err)
	}
	require.Contains(t, e.steps, 256)
	require.Contains(t, e.steps, 0, "past 256 tokens a 300-row cache is read whole")
}

// TestGenerateEdges: a first sampled token that is a stop token ends every row after the prefill, in Generate
// and GenerateSpeculative (a fixed k and AutoDraft, which then says the generation ended while it measured); a
// prompt that fills the cache exactly generates its one token (MaxTokens 1); a k below AutoDraft is refused.
func TestGenerateEdges(t *testing.T) {
	const capacity = 12
	m, ctx := specTestModel(t, oryx.OryxTG)
	e, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
	require.NoError(t, err)
	vocab := m.Config.Vocab
	prompts := [][]int32{oryxtest.RandomTokens(95, 1, 4, vocab)[0], oryxtest.RandomTokens(96, 1, 7, vocab)[0]}
	first, err := e.Generate(prompts, GenerateOptions{MaxTokens: 1})
	require.NoError(t, err)
	stop := []int32{first.Tokens[0][0], first.Tokens[1][0]}
	opts := GenerateOptions{MaxTokens: 5, Stop: stop}
	g, err := e.Generate(prompts, opts)
	require.NoError(t, err)
	require.Equal(t, [][]int32{{stop[0]}, {stop[1]}}, g.Tokens)
	for _, k := range []int{AutoDraft, 3} {
		s, err := e.GenerateSpeculative(prompts, k, opts)
		require.NoError(t, err, "k %d", k)
		require.Equal(t, g.Tokens, s.Tokens, "k %d", k)
		require.Equal(t, []int{4, 7}, e.Positions(), "k %d: nothing fed after the prefill", k)
		require.Equal(t, g.AttentionFraction, s.AttentionFraction, "k %d", k)
		if k == AutoDraft {
			require.Contains(t, s.Speculation.Choice, "ended while measuring")
		}
	}
	full := [][]int32{oryxtest.RandomTokens(97, 1, capacity, vocab)[0], prompts[1]}
	g, err = e.Generate(full, GenerateOptions{MaxTokens: 1})
	require.NoError(t, err)
	s, err := e.GenerateSpeculative(full, AutoDraft, GenerateOptions{MaxTokens: 1})
	require.NoError(t, err)
	require.Equal(t, g.Tokens, s.Tokens)
	require.Equal(t, []int{capacity, 7}, e.Positions())
	_, err = e.GenerateSpeculative(full, AutoDraft, GenerateOptions{MaxTokens: 2})
	require.ErrorContains(t, err, "row 0 needs 13 cache positions")
	_, err = e.GenerateSpeculative(prompts, AutoDraft-1, GenerateOptions{MaxTokens: 2})
	require.ErrorContains(t, err, "the draft length k must be in [1, 64] or AutoDraft (-1), got -2")
}

// TestPrefillSegmentsFillCapacity: a prompt that fills the cache exactly, read in segments whose length does
// not divide the capacity (the last segment's padding lies past the cache's end), ends with the one-graph
// prefill's logits and state, the attention reading the whole cache or the rows filled so far.
func TestPrefillSegmentsFillCapacity(t *testing.T) {
	const capacity = 23
	for _, v := range []oryx.Variant{oryx.OryxTG, oryx.Transformer} {
		t.Run(string(v), func(t *testing.T) {
			m, ctx := genTestModel(t, v)
			e, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
			require.NoError(t, err)
			tokens := oryxtest.RandomTokens(98, 2, capacity, m.Config.Vocab)
			prompts := [][]int32{tokens[0], tokens[1][:9]}
			modes := oryxtest.ModesFor(m, oryxtest.SwitchingModes(99, 2, capacity))
			if modes != nil {
				modes[1] = modes[1][:9]
			}
			_, err = e.prefillPadded(prompts, modes, capacity)
			require.NoError(t, err)
			want, wantState := e.LastLogits(), copyState(e.state)
			for _, c := range []struct{ seg, keys int }{{5, 0}, {6, 8}, {10, 4}} {
				e.segmentKeys = c.keys
				_, err := e.prefillSegments(prompts, modes, capacity, c.seg)
				require.NoError(t, err, "segments of %d", c.seg)
				for r := range 2 {
					require.LessOrEqual(t, testutil.RelErr(e.LastLogits()[r], want[r]), 1e-10, "segments of %d: row %d", c.seg, r)
				}
				state := copyState(e.state)
				for i := range state {
					require.LessOrEqual(t, testutil.RelErr(state[i], wantState[i]), 1e-10, "segments of %d: state tensor %d", c.seg, i)
				}
			}
		})
	}
}

// TestSpeculativeAcrossBuckets: greedy speculative decoding whose rounds cross the 256-row bucket (the verify
// pass reads 256 rows, then 512 of a 600-row cache) gives Generate's tokens and modes, with K = 4 and AutoDraft,
// for ragged rows (prompts of 250 and 240 tokens).
func TestSpeculativeAcrossBuckets(t *testing.T) {
	const maxTokens, capacity = 20, 600
	m, ctx := specTestModel(t, oryx.OryxTG)
	vocab := m.Config.Vocab
	prompts := [][]int32{oryxtest.RandomTokens(101, 1, 250, vocab)[0], oryxtest.RandomTokens(102, 1, 240, vocab)[0]}
	opts := GenerateOptions{Schedule: "attention-last:40", MaxTokens: maxTokens}
	plainE, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
	require.NoError(t, err)
	plain, err := plainE.Generate(prompts, opts)
	require.NoError(t, err)
	require.Contains(t, plainE.steps, 512, "the plain steps crossed into the 512-row bucket")
	for _, k := range []int{4, AutoDraft} {
		specE, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
		require.NoError(t, err)
		spec, err := specE.GenerateSpeculative(prompts, k, opts)
		require.NoError(t, err, "k %d", k)
		require.Equal(t, plain.Tokens, spec.Tokens, "k %d", k)
		require.Equal(t, plain.Modes, spec.Modes, "k %d", k)
		if k == 4 {
			x, err := specE.speculativeExecs()
			require.NoError(t, err)
			require.Contains(t, x.verify, 256)
			require.Contains(t, x.verify, 512, "the verify passes crossed into the 512-row bucket")
		}
	}
}
