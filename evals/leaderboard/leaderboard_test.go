package leaderboard

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/evals/harness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func res(task string, tokens, attn int64, metrics map[string]float64) *harness.Result {
	r := &harness.Result{Task: task, Metrics: map[string]harness.Metric{}, Tokens: tokens, AttentionTokens: attn}
	for k, v := range metrics {
		r.Metrics[k] = harness.Metric{Value: v, Stderr: 0.01, N: 100}
	}
	return r
}

func lmResults() []*harness.Result {
	return []*harness.Result{
		res("wikitext", 1000, 0, map[string]float64{"word_perplexity": 16.42, "byte_perplexity": 1.6, "bits_per_byte": 0.7}),
		res("lambada_openai", 100, 10, map[string]float64{"perplexity": 12.17, "acc": 0.4665}),
		res("piqa", 100, 10, map[string]float64{"acc": 0.7225, "acc_norm": 0.73}),
		res("hellaswag", 100, 10, map[string]float64{"acc": 0.45, "acc_norm": 0.5576}),
		res("winogrande", 100, 10, map[string]float64{"acc": 0.5745}),
		res("arc_easy", 100, 10, map[string]float64{"acc": 0.7121, "acc_norm": 0.66}),
		res("arc_challenge", 100, 10, map[string]float64{"acc": 0.35, "acc_norm": 0.3839}),
		res("social_iqa", 100, 10, map[string]float64{"acc": 0.4063}),
		res("boolq", 100, 10, map[string]float64{"acc": 0.6324}),
	}
}

func TestAveragesByHand(t *testing.T) {
	rf := NewRunFile(RunInfo{Model: "m"}, lmResults())
	gdn := (46.65 + 72.25 + 55.76 + 57.45 + 71.21 + 38.39 + 40.63 + 63.24) / 8
	assert.InDelta(t, gdn, rf.Averages["gdn_lm_avg"].Value, 1e-9)
	mamba := (46.65 + 55.76 + 72.25 + 71.21 + 38.39 + 57.45) / 6
	assert.InDelta(t, mamba, rf.Averages["mamba_lm_avg"].Value, 1e-9)
	rec := rf.Averages["recall_avg"]
	assert.True(t, math.IsNaN(rec.Value))
	assert.Len(t, rec.Missing, 6)
	assert.Contains(t, rec.Missing, "based_swde/contains")
	// Attention fraction over all tasks: 80 of 1800 tokens.
	assert.InDelta(t, 80.0/1800, rf.AttentionFraction, 1e-12)
}

func TestRunFileRoundTripAndMerge(t *testing.T) {
	dir := t.TempDir()
	a := NewRunFile(RunInfo{Model: "oryx", Variant: "gdn", Size: "360m", Parameters: 357781928, CheckpointStep: 2000,
		TokensSeen: 15032385536, Schedule: "mixed", Backend: "go"}, lmResults())
	a.Tasks["lambada_openai"].Metrics["perplexity"] = harness.Metric{Value: math.Inf(1), Stderr: math.NaN(), N: 5153}
	pa := filepath.Join(dir, "a.json")
	require.NoError(t, a.WriteFile(pa))
	var raw map[string]any
	b, err := os.ReadFile(pa)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &raw))
	assert.Equal(t, "gdn", raw["variant"])
	assert.Equal(t, 15032385536.0, raw["tokens_seen"])
	back, err := ReadRunFile(pa)
	require.NoError(t, err)
	assert.True(t, math.IsInf(back.Tasks["lambada_openai"].Metrics["perplexity"].Value, 1))
	assert.True(t, math.IsNaN(back.Tasks["lambada_openai"].Metrics["perplexity"].Stderr))
	assert.Equal(t, 100, back.Tasks["piqa"].Metrics["acc"].N)
	assert.InDelta(t, a.Averages["gdn_lm_avg"].Value, back.Averages["gdn_lm_avg"].Value, 1e-12)

	recall := []*harness.Result{}
	for i, n := range []string{"based_swde", "based_fda", "based_squad", "based_triviaqa", "based_nq_2048", "based_drop"} {
		recall = append(recall, res(n, 1000, 50, map[string]float64{"contains": 0.1 * float64(i+1)}))
	}
	bfile := NewRunFile(RunInfo{Model: "oryx", Variant: "gdn", Size: "360m", CheckpointStep: 1000, Schedule: "mixed"}, recall)
	pb := filepath.Join(dir, "b.json")
	require.NoError(t, bfile.WriteFile(pb))
	l, err := Merge(pa, pb)
	require.NoError(t, err)
	require.Len(t, l.Runs, 2)
	assert.Equal(t, int64(1000), l.Runs[0].CheckpointStep) // sorted by step
	assert.InDelta(t, 35.0, l.Runs[0].Averages["recall_avg"].Value, 1e-9)
	md := l.Markdown()
	lines := strings.Split(md, "\n")
	assert.True(t, strings.HasPrefix(lines[0], "| Model | Variant | Size | Step | Tokens | Schedule | Attn % | Wiki ppl |"))
	assert.Contains(t, lines[2], "| 10.00 | 20.00 | 30.00 | 40.00 | 50.00 | 60.00 | 35.00 |")
	assert.Contains(t, lines[3], "| oryx | gdn | 360m | 2000 | 15.0B | mixed | 4.4 | 16.42 | +Inf | 46.65 |")
	assert.Contains(t, lines[3], "| – |") // no recall metrics in run a
	assert.Contains(t, md, "gdn_lm_avg: GDN table")
	jp, mp := filepath.Join(dir, "leaderboard.json"), filepath.Join(dir, "leaderboard.md")
	require.NoError(t, l.WriteFiles(jp, mp))
	got, err := os.ReadFile(mp)
	require.NoError(t, err)
	assert.Equal(t, md, string(got))
	var lj map[string]any
	b, err = os.ReadFile(jp)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &lj))
	assert.Len(t, lj["runs"], 2)
}

func TestMergeBadInput(t *testing.T) {
	_, err := Merge()
	assert.Error(t, err)
	p := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"model": "x"}`), 0o644))
	_, err = Merge(p)
	assert.ErrorContains(t, err, p)
	_, err = Merge(filepath.Join(t.TempDir(), "missing.json"))
	assert.ErrorContains(t, err, "missing.json")
}
