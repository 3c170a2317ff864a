package leaderboard

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	rf := NewResultsFile(RunInfo{Model: "m"}, lmResults())
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

func TestResultsFileRoundTripAndMerge(t *testing.T) {
	dir := t.TempDir()
	a := NewResultsFile(RunInfo{Model: "oryx", Variant: "gdn", Size: "360m", Parameters: 357781928, CheckpointStep: 2000,
		TokensSeen: 15032385536, Schedule: "mixed", Backend: "go"}, lmResults())
	a.Tasks["lambada_openai"].Metrics["perplexity"] = harness.Metric{Value: math.Inf(1), Stderr: math.NaN(), N: 5153}
	pa := filepath.Join(dir, "a.json")
	require.NoError(t, a.WriteFile(pa))
	var raw map[string]any
	b, err := os.ReadFile(pa)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &raw))
	oryxPart := raw["oryx"].(map[string]any)
	assert.Equal(t, "gdn", oryxPart["variant"])
	assert.Equal(t, 15032385536.0, oryxPart["tokens_seen"])
	assert.Equal(t, "+Inf", raw["results"].(map[string]any)["lambada_openai"].(map[string]any)["perplexity,none"])
	back, err := ReadResultsFile(pa)
	require.NoError(t, err)
	assert.True(t, math.IsInf(back.Tasks["lambada_openai"].Metrics["perplexity"].Value, 1))
	assert.True(t, math.IsNaN(back.Tasks["lambada_openai"].Metrics["perplexity"].Stderr))
	assert.Equal(t, 100, back.Tasks["piqa"].Metrics["acc"].N)
	assert.InDelta(t, a.Averages["gdn_lm_avg"].Value, back.Averages["gdn_lm_avg"].Value, 1e-12)

	recall := []*harness.Result{}
	for i, n := range []string{"based_swde", "based_fda", "based_squad", "based_triviaqa", "based_nq_2048", "based_drop"} {
		recall = append(recall, res(n, 1000, 50, map[string]float64{"contains": 0.1 * float64(i+1)}))
	}
	bfile := NewResultsFile(RunInfo{Model: "oryx", Variant: "gdn", Size: "360m", CheckpointStep: 1000, Schedule: "mixed"}, recall)
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
	assert.Contains(t, lines[3], "| oryx | gdn | 360m | 2000 | 15B | mixed | 4.4 | 16.42 | +Inf | 46.65 |")
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

// goldenRun is the run of testdata/golden_results.json: two LM tasks and a NIAH task scored on 3 of its
// 500 samples (--limit 3).
func goldenRun(t *testing.T) *ResultsFile {
	registerGroups()
	info := RunInfo{Model: "oryx-gdn-tiny", Variant: "gdn", Size: "tiny", Parameters: 1000, Checkpoint: "runs/gdn-tiny",
		CheckpointStep: 200, Schedule: "mixed", Backend: "go", Tokenizer: "bytes", MaxLength: 8192, Date: "2025-01-02T03:04:05Z",
		Limit: 3, BatchSize: 8, BootstrapIters: 100000, MaxLengths: map[string]int{"lm": 2048, "niah": 8192}, Seconds: 12.5,
		Groups: []string{"lm", "niah"}}
	m := func(v, se float64, n int) harness.Metric { return harness.Metric{Value: v, Stderr: se, N: n} }
	return NewResultsFile(info, []*harness.Result{
		{Task: "piqa", Group: "lm", OutputType: "multiple_choice", Version: 1, Data: "/data/piqa/validation.parquet",
			Docs: 1838, TotalDocs: 1838, Requests: 3676, MaxLength: 2048, Mixed: true, Tokens: 100, AttentionTokens: 10,
			Metrics:  map[string]harness.Metric{"acc": m(0.75, 0.01, 1838), "acc_norm": m(0.5, 0.0125, 1838)},
			Segments: harness.Segments{ContextTokens: 90, QuestionTokens: 10, QuestionAttention: 10, AttentionKnown: true}},
		{Task: "wikitext", Group: "lm", OutputType: "loglikelihood_rolling", Version: 2,
			Data: "/data/wikitext_document_level/wikitext-2-raw-v1-test.parquet",
			Docs: 62, TotalDocs: 62, Requests: 165, MaxLength: 2048, Mixed: true, Tokens: 900,
			Metrics: map[string]harness.Metric{"word_perplexity": m(16.5, math.NaN(), 62), "byte_perplexity": m(1.5, math.NaN(), 62),
				"bits_per_byte": m(0.625, math.NaN(), 62)},
			Segments: harness.Segments{ContextTokens: 900, AttentionKnown: true}},
		{Task: "niah_single_1", Group: "niah", OutputType: "generate_until", Version: 1, Data: "/data/ruler_essays/essays.parquet",
			Docs: 3, TotalDocs: 500, Requests: 3, MaxLength: 8192, Mixed: true, Tokens: 3000, AttentionTokens: 300,
			Metrics: map[string]harness.Metric{"score": m(0.5, 0.25, 3), "score@1024": m(0.5, 0.25, 3)}},
	})
}

var registerOnce sync.Once

// registerGroups registers the task groups the evals families register (this package's tests do not
// import them).
func registerGroups() {
	registerOnce.Do(func() {
		harness.RegisterGroup("lm", "wikitext", "lambada_openai", "piqa", "hellaswag", "winogrande", "arc_easy",
			"arc_challenge", "social_iqa", "boolq")
		harness.RegisterGroup("niah", "niah_single_1", "niah_single_2", "niah_single_3", "niah_multikey_1")
	})
}

func TestGoldenLMEvalLayout(t *testing.T) {
	b, err := json.Marshal(goldenRun(t))
	require.NoError(t, err)
	var got, want map[string]any
	require.NoError(t, json.Unmarshal(b, &got))
	golden, err := os.ReadFile(filepath.Join("testdata", "golden_results.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(golden, &want))
	oryxPart := got["oryx"].(map[string]any)
	delete(got, "oryx")
	assert.Equal(t, want, got)
	// The project's own part: run metadata, partial flag, attention not pooled across groups.
	assert.Equal(t, true, oryxPart["partial"])
	assert.Nil(t, oryxPart["attention_fraction"])
	assert.Equal(t, map[string]any{"lm": 0.01, "niah": 0.1}, oryxPart["attention_fraction_by_group"])
	assert.Equal(t, "mixed", oryxPart["schedule"])
	tasks := oryxPart["tasks"].(map[string]any)
	assert.Equal(t, 90.0, tasks["piqa"].(map[string]any)["segments"].(map[string]any)["context_tokens"])
	assert.Equal(t, 2048.0, tasks["wikitext"].(map[string]any)["max_length"])

	// The results table is lm-eval's make_table.
	table, err := os.ReadFile(filepath.Join("testdata", "golden_table.md"))
	require.NoError(t, err)
	assert.Equal(t, string(table), goldenRun(t).ResultsTable())

	// Round trip through a file.
	p := filepath.Join(t.TempDir(), "run.json")
	require.NoError(t, goldenRun(t).WriteFile(p))
	back, err := ReadResultsFile(p)
	require.NoError(t, err)
	assert.Equal(t, goldenRun(t).Tasks["piqa"].Metrics, back.Tasks["piqa"].Metrics)
	assert.Equal(t, 3, back.Limit)
	assert.True(t, back.Partial())
	assert.True(t, math.IsNaN(back.AttentionFraction))
}

func TestGroupAveragesInGroups(t *testing.T) {
	registerGroups()
	r := NewResultsFile(RunInfo{Model: "m", Groups: []string{"lm"}}, lmResults())
	for _, res := range r.Tasks {
		res.Group = "lm"
	}
	r.refresh()
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var got struct {
		Groups        map[string]map[string]any `json:"groups"`
		GroupSubtasks map[string][]string       `json:"group_subtasks"`
	}
	require.NoError(t, json.Unmarshal(b, &got))
	assert.InDelta(t, r.Averages["gdn_lm_avg"].Value/100, got.Groups["lm"]["gdn_lm_avg,none"], 1e-12)
	assert.Equal(t, "N/A", got.Groups["lm"]["gdn_lm_avg_stderr,none"])
	assert.Len(t, got.GroupSubtasks["lm"], 9)
	assert.NotContains(t, got.Groups["lm"], "recall_avg,none")
}

func TestReadsLMEvalHarnessFile(t *testing.T) {
	// A results file as lm-evaluation-harness writes it (no "oryx" part).
	p := filepath.Join(t.TempDir(), "results_2024-05-01T00-00-00.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"results": {"arc_easy": {"alias": "arc_easy", "acc,none": 0.7121,
		"acc_stderr,none": 0.0093, "acc_norm,none": 0.66, "acc_norm_stderr,none": 0.0097},
		"wikitext": {"alias": "wikitext", "word_perplexity,none": 16.4, "word_perplexity_stderr,none": "N/A"}},
		"n-samples": {"arc_easy": {"original": 2376, "effective": 100}}, "versions": {"arc_easy": 1.0},
		"config": {"model": "hf", "model_args": "pretrained=state-spaces/mamba-130m", "limit": 100.0},
		"model_name": "state-spaces/mamba-130m"}`), 0o644))
	r, err := ReadResultsFile(p)
	require.NoError(t, err)
	assert.Equal(t, "state-spaces/mamba-130m", r.Model)
	assert.Equal(t, 100, r.Limit)
	assert.Equal(t, harness.Metric{Value: 0.7121, Stderr: 0.0093, N: 100}, r.Tasks["arc_easy"].Metrics["acc"])
	assert.True(t, math.IsNaN(r.Tasks["wikitext"].Metrics["word_perplexity"].Stderr))
	assert.True(t, r.Partial())
}

func TestMergeDedupesSkipsOwnOutputsAndMarksPartial(t *testing.T) {
	dir := t.TempDir()
	info := RunInfo{Model: "oryx", Variant: "gdn", Size: "tiny", CheckpointStep: 10, Schedule: "mixed", Backend: "go",
		Date: "2025-01-01T00:00:00Z"}
	full := lmResults()
	a := NewResultsFile(info, full[:5]) // wikitext .. winogrande
	pa := filepath.Join(dir, "a.json")
	require.NoError(t, a.WriteFile(pa))
	later := info
	later.Date = "2025-01-02T00:00:00Z"
	newer := lmResults()
	newer[2].Metrics["acc"] = harness.Metric{Value: 0.8, Stderr: 0.01, N: 100} // piqa again, later
	b := NewResultsFile(later, newer[2:])                                      // piqa .. boolq
	pb := filepath.Join(dir, "b.json")
	require.NoError(t, b.WriteFile(pb))

	l, err := Merge(pa, pb)
	require.NoError(t, err)
	require.Len(t, l.Runs, 1) // one identity: one row, tasks united
	assert.Len(t, l.Runs[0].Tasks, 9)
	assert.Equal(t, 0.8, l.Runs[0].Tasks["piqa"].Metrics["acc"].Value) // the later file wins
	assert.False(t, math.IsNaN(l.Runs[0].Averages["gdn_lm_avg"].Value))
	require.NoError(t, l.WriteFiles(filepath.Join(dir, "leaderboard.json"), filepath.Join(dir, "leaderboard.md")))
	first, err := os.ReadFile(filepath.Join(dir, "leaderboard.md"))
	require.NoError(t, err)

	// `merge results/*` again: its own outputs are skipped, a file given twice changes nothing.
	l2, err := Merge(pa, pb, pb, filepath.Join(dir, "leaderboard.json"), filepath.Join(dir, "leaderboard.md"))
	require.NoError(t, err)
	assert.Len(t, l2.Skipped, 2)
	assert.Equal(t, string(first), l2.Markdown())
	_, err = Merge(filepath.Join(dir, "leaderboard.json"))
	assert.ErrorContains(t, err, "only merge's own outputs")

	// A partial run (--limit): marked, its averages left out unless asked for.
	part := lmResults()
	for _, r := range part {
		r.Docs, r.TotalDocs = 10, 100
	}
	pinfo := info
	pinfo.Limit = 10
	pp := filepath.Join(dir, "partial.json")
	require.NoError(t, NewResultsFile(pinfo, part).WriteFile(pp))
	l3, err := Merge(pa, pb, pp)
	require.NoError(t, err)
	require.Len(t, l3.Runs, 2) // the limit is part of the identity
	md := l3.Markdown()
	assert.Contains(t, md, "| oryx (partial) |")
	var partial *ResultsFile
	for _, r := range l3.Runs {
		if r.Limit == 10 {
			partial = r
		}
	}
	require.NotNil(t, partial)
	assert.True(t, math.IsNaN(partial.Averages["gdn_lm_avg"].Value))
	assert.Contains(t, partial.Averages["gdn_lm_avg"].Excluded, "--include-partial")
	l4, err := MergeWith(MergeOptions{IncludePartial: true}, pa, pb, pp)
	require.NoError(t, err)
	for _, r := range l4.Runs {
		assert.False(t, math.IsNaN(r.Averages["gdn_lm_avg"].Value))
	}
}

func TestMarkdownOneUnitAndNIAHCounts(t *testing.T) {
	registerGroups()
	results := lmResults()
	results = append(results, &harness.Result{Task: "niah_single_1", Group: "niah", Docs: 3, TotalDocs: 2000,
		Tokens: 100, AttentionTokens: 50, Metrics: map[string]harness.Metric{"score": {Value: 0.25, Stderr: 0.1, N: 3}}})
	for _, r := range results[:len(results)-1] {
		r.Group = "lm"
	}
	rf := NewResultsFile(RunInfo{Model: "m", Schedule: "mixed"}, results)
	rf.Tasks["missing"] = nil // a null task in a hand-edited file: no panic
	md := (&Leaderboard{Runs: []*ResultsFile{rf}}).Markdown()
	lines := strings.Split(md, "\n")
	split := func(l string) []string {
		return strings.Split(strings.TrimSuffix(strings.TrimPrefix(l, "| "), " |"), " | ")
	}
	cells, heads := split(lines[2]), split(lines[0])
	col := func(h string) string {
		for i, x := range heads {
			if x == h {
				return cells[i]
			}
		}
		t.Fatalf("no column %q in %s", h, lines[0])
		return ""
	}
	assert.Equal(t, "25.00 (3/2000)", col("S-NIAH-1"))
	assert.Equal(t, "73.00", col("piqa acc_norm")) // a fraction: percent, as in the fixed columns
	assert.Equal(t, "72.25", col("PIQA acc"))
	assert.Equal(t, "1.60", col("wikitext byte_perplexity")) // a perplexity: as is
	assert.Equal(t, "lm 4.4, niah 50.0", col("Attn %"))      // 80/1800 and 50/100: not pooled
	assert.Contains(t, md, "in percent")
}

// TestIndividualTasksHaveNoGroupRow: tasks asked for one by one (--tasks piqa,boolq) are written as lm-eval
// writes them, with no row for the project's group "lm" (it had no metrics: lm-eval showed it as {}); asked
// for as the group, the row is there. model_args states the max_length the tasks ran at (2048), not the
// longest the model was built for (8192), and none when the tasks ran at different lengths.
func TestIndividualTasksHaveNoGroupRow(t *testing.T) {
	registerGroups()
	results := lmResults()[2:4] // piqa, hellaswag
	for _, r := range results {
		r.Group, r.MaxLength = "lm", 2048
	}
	layout := func(info RunInfo) map[string]any {
		b, err := json.Marshal(NewResultsFile(info, results))
		require.NoError(t, err)
		var got map[string]any
		require.NoError(t, json.Unmarshal(b, &got))
		return got
	}
	got := layout(RunInfo{Model: "m", MaxLength: 8192})
	assert.NotContains(t, got["results"], "lm")
	assert.NotContains(t, got, "groups")
	assert.Empty(t, got["group_subtasks"])
	assert.NotContains(t, got["versions"], "lm")
	assert.Equal(t, "max_length=2048", got["config"].(map[string]any)["model_args"])
	got = layout(RunInfo{Model: "m", Groups: []string{"lm"}})
	assert.Contains(t, got["results"], "lm")
	assert.Equal(t, []any{"hellaswag", "piqa"}, got["group_subtasks"].(map[string]any)["lm"])
	results[0].MaxLength = 4096
	assert.Equal(t, "", layout(RunInfo{Model: "m", MaxLength: 8192})["config"].(map[string]any)["model_args"])
}

// TestForeignRunsShowUnknownAsDash: merging a results file lm-eval wrote shows "–" where the project's own
// figures are unknown (step, tokens, schedule, attention), not 0.
func TestForeignRunsShowUnknownAsDash(t *testing.T) {
	p := filepath.Join(t.TempDir(), "results_2024-05-01T00-00-00.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"results": {"arc_easy": {"alias": "arc_easy", "acc,none": 0.7121,
		"acc_stderr,none": 0.0093}}, "model_name": "state-spaces/mamba-130m"}`), 0o644))
	l, err := Merge(p)
	require.NoError(t, err)
	require.Len(t, l.Runs, 1)
	assert.True(t, l.Runs[0].Foreign)
	assert.True(t, math.IsNaN(l.Runs[0].AttentionFraction))
	md := l.Markdown()
	assert.Contains(t, md, "| state-spaces/mamba-130m | – | – | – | – | – | – | ")
	assert.NotContains(t, md, "0.0")
}
