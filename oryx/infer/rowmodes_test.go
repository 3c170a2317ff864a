package infer

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// TestGenerateWithRowModes: the caller's modes (RowModes) give Generate's tokens and modes when they are a
// schedule's; a row capped by RowMaxTokens, or stopped by StopAfter, ends there with the tokens the uncapped
// run had up to there, and the other rows are as uncapped.
func TestGenerateWithRowModes(t *testing.T) {
	const maxTokens, capacity = 5, 16
	e := newTestEngine(t, oryx.OryxTG, 2, capacity)
	prompts := oryxtest.RandomTokens(12, 2, 4, e.model.Config.Vocab)
	prompts[1] = prompts[1][:3]
	spec := "linear-until:5"
	ref, err := e.Generate(prompts, GenerateOptions{Schedule: spec, MaxTokens: maxTokens})
	require.NoError(t, err)

	parsed, err := schedule.ParseSpec(spec)
	require.NoError(t, err)
	sched, err := parsed.ScheduleRows([]int{4, 3}, 0)
	require.NoError(t, err)
	modes := &RowModes{Prompt: [][]oryx.Mode{sched.Row(0), sched.Row(1)}, Decode: func(row, pos, promptLen int) (oryx.Mode, error) {
		return parsed.DecodeMode(pos, promptLen)
	}}
	got, err := e.Generate(prompts, GenerateOptions{Modes: modes, MaxTokens: maxTokens})
	require.NoError(t, err)
	require.Equal(t, ref.Tokens, got.Tokens)
	require.Equal(t, ref.Modes, got.Modes)
	require.Equal(t, ref.AttentionFraction, got.AttentionFraction)

	asked := 0
	got, err = e.Generate(prompts, GenerateOptions{Modes: modes, MaxTokens: maxTokens, RowMaxTokens: []int{2, maxTokens},
		StopAfter: func(row int, toks []int32) bool { asked++; return row == 1 && len(toks) == 3 }})
	require.NoError(t, err)
	require.Equal(t, ref.Tokens[0][:2], got.Tokens[0])
	require.Equal(t, ref.Tokens[1][:3], got.Tokens[1])
	require.Equal(t, 1+3, asked, "asked after each token that does not end its row already (row 0's second is its cap)")

	for _, c := range []struct {
		opts GenerateOptions
		want string
	}{
		{GenerateOptions{Schedule: spec, Modes: modes, MaxTokens: 2}, "exclusive"},
		{GenerateOptions{Modes: &RowModes{Prompt: modes.Prompt[:1], Decode: modes.Decode}, MaxTokens: 2}, "Modes.Prompt has 1 rows"},
		{GenerateOptions{Modes: &RowModes{Prompt: [][]oryx.Mode{sched.Row(1), sched.Row(0)}, Decode: modes.Decode}, MaxTokens: 2}, "Modes.Prompt[0] has 3 modes"},
		{GenerateOptions{Modes: &RowModes{Prompt: modes.Prompt}, MaxTokens: 2}, "needs Decode or Escalation"},
		{GenerateOptions{Modes: modes, MaxTokens: 2, RowMaxTokens: []int{1}}, "RowMaxTokens has 1 entries"},
		{GenerateOptions{Modes: modes, MaxTokens: 2, RowMaxTokens: []int{1, 3}}, "RowMaxTokens[1] = 3"},
	} {
		_, err := e.Generate(prompts, c.opts)
		require.ErrorContains(t, err, c.want)
	}
	_, err = e.GenerateSpeculative(prompts, 2, GenerateOptions{Modes: modes, MaxTokens: 2})
	require.ErrorContains(t, err, "speculative decoding takes a Schedule")
}
