package textgen

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/infer"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// report runs o and returns its report without the timings.
func report(t *testing.T, o Options) string {
	t.Helper()
	res, err := Run(o)
	require.NoError(t, err)
	var out bytes.Buffer
	res.Write(&out)
	return out.String()
}

var timings = regexp.MustCompile(`in [0-9.]+ s \([0-9.]+ tokens/s decode\); prefill [0-9.]+ s`)

// TestRunSpeculative: with a greedy sampler, --speculative K prints the continuations and the summary line
// of plain generation, plus a line on the rounds; it is refused for a single-mixer checkpoint and out of range.
func TestRunSpeculative(t *testing.T) {
	dir := oryxtest.TinyCheckpoint(t, oryx.OryxTG)
	o := Options{Checkpoint: dir, Prompts: []Prompt{{Text: "Hello, Oryx"}, {IDs: []int32{1, 2, 3}}},
		Schedule: "attention-last:2", MaxTokens: 10}
	plain := report(t, o)
	o.Speculative = 3
	spec := report(t, o)
	lines := strings.Split(strings.TrimSpace(spec), "\n")
	require.Len(t, lines, 6)
	require.Regexp(t, `^speculative decoding, K=3: \d+ rounds, \d+ of \d+ drafts accepted \(\d+\.\d%\); draft [0-9.]+ s, verify [0-9.]+ s, commit [0-9.]+ s$`, lines[5])
	require.Equal(t, timings.ReplaceAllString(plain, ""), timings.ReplaceAllString(strings.Join(lines[:5], "\n")+"\n", ""))

	o.Speculative = infer.AutoDraft // the same continuations, and what auto chose, once
	lines = strings.Split(strings.TrimSpace(report(t, o)), "\n")
	require.Len(t, lines, 7)
	require.Regexp(t, `^speculative auto: `, lines[5])
	require.Equal(t, timings.ReplaceAllString(plain, ""), timings.ReplaceAllString(strings.Join(lines[:5], "\n")+"\n", ""))

	for _, c := range []struct {
		k    int
		want string
	}{{-2, "--speculative must be auto or in [0, 64] (0 = off), got -2"}, {65, "got 65"}} {
		o.Speculative = c.k
		_, err := Run(o)
		require.ErrorContains(t, err, c.want)
	}
	o.Checkpoint, o.Speculative = oryxtest.TinyCheckpoint(t, oryx.Transformer), 2
	_, err := Run(o)
	require.ErrorContains(t, err, "--speculative: the checkpoint's variant transformer has one readout")
}

// TestRunWhileTrainingSaves: `oryx generate` from a run directory a training saves into, keeping one
// checkpoint, never fails for the race (the checkpoint it listed pruned before it opened it), as `evals`
// did not: the only error allowed is the retrying loader's own, for a directory saved into during each of
// its loads; once the saves stop, it generates.
func TestRunWhileTrainingSaves(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a race of saves and generations")
	}
	dir := oryxtest.TinyCheckpoint(t, oryx.Transformer)
	o := Options{Checkpoint: dir, Prompts: []Prompt{{IDs: []int32{1, 2, 3}}}, MaxTokens: 1}
	const saves = 45 // one generation in 25 to 50 failed for the race before (3 to 13 in a run)
	runs, exhausted, failures := oryxtest.RaceSaves(t, dir, saves, func(int) error {
		_, err := Run(o)
		return err
	})
	t.Logf("%d generations during %d saves: %d failed for the race, %d saved into during each of their loads",
		runs, saves, len(failures), exhausted)
	require.Empty(t, failures, "generations that failed for the race")
	_, err := Run(o)
	require.NoError(t, err)
}
