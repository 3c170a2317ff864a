package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/evalsetup"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/harness/harnesstest"
	"github.com/oryx-go/oryx/evals/leaderboard"
	"github.com/oryx-go/oryx/evals/lmeval"
	"github.com/oryx-go/oryx/oryx"
)

func tinyCheckpoint(t *testing.T, v oryx.Variant) string {
	cfg, err := oryx.Preset("tiny", v)
	require.NoError(t, err)
	cfg.Vocab = 320
	dir := filepath.Join(t.TempDir(), "tiny-"+string(v))
	require.NoError(t, oryx.InitCheckpoint(dir, cfg, 1))
	return dir
}

func sharedRoot(t *testing.T) string {
	wd, _ := os.Getwd()
	root := harness.FindDataRoot(wd)
	if root == "" {
		t.Skip("no shared/data/hf: the real evaluation sets are not on this machine")
	}
	return root
}

func TestRunAndMergeOnRealData(t *testing.T) {
	root := sharedRoot(t)
	out := t.TempDir()
	var files []string
	for _, v := range []oryx.Variant{oryx.OryxTG, oryx.GDN} {
		for _, mixed := range []bool{false, true} {
			if mixed && !v.IsMultiMixer() {
				continue
			}
			var table bytes.Buffer
			f, err := Run(context.Background(), Options{Checkpoint: tinyCheckpoint(t, v), Tasks: "piqa,lambada_openai", Mixed: mixed,
				Harness: harness.Config{DataRoot: root}, Limit: 3, Batch: 4, Bootstrap: -1, LogSamples: true,
				Out: filepath.Join(out, string(v)+map[bool]string{true: "-mixed", false: ""}[mixed]+".json"),
				Log: testWriter{t}, Stdout: &table})
			require.NoError(t, err)
			// Tasks asked for one by one: lm-eval's table lists them as tasks of no group (no "lm" row).
			assert.Contains(t, table.String(), "|lambada_openai|      1|none  |     0|acc       |↑  |")
			assert.NotContains(t, table.String(), "|lm ")
			files = append(files, f)
		}
	}
	samples, err := filepath.Glob(filepath.Join(out, "*", "samples_piqa_*.jsonl")) // lm-eval's folder per model
	require.NoError(t, err)
	require.Len(t, samples, 3) // one per run
	results, err := filepath.Glob(filepath.Join(out, "*", "results_*.json"))
	require.NoError(t, err)
	require.Len(t, results, 3)
	data, err := os.ReadFile(samples[0])
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.Len(t, lines, 3) // --limit 3: three documents
	var rec map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &rec))
	for _, k := range []string{"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
		"doc_hash", "prompt_hash", "target_hash", "acc", "acc_norm"} {
		assert.Contains(t, rec, k)
	}
	_, err = Merge(out, files, false, false)
	require.NoError(t, err)
	l, err := Merge(out, append(files, filepath.Join(out, "leaderboard.json")), false, false) // its own output skipped
	require.NoError(t, err)
	assert.Len(t, l.Skipped, 1)
	md, err := os.ReadFile(filepath.Join(out, "leaderboard.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "mixed")
	assert.Contains(t, string(md), "(partial)")
	assert.Equal(t, 3, strings.Count(string(md), "(partial)"))
}

// TestWikiTextWindowsAtLMLength pins lm-eval's 165 rolling windows of 2048 NeoX tokens for wikitext-2,
// whatever the model's (NIAH) max length.
func TestWikiTextWindowsAtLMLength(t *testing.T) {
	root := sharedRoot(t)
	tokPath := filepath.Join(filepath.Dir(root), "tokenizers", "gpt-neox-20b", "tokenizer.json")
	if _, err := os.Stat(tokPath); err != nil {
		t.Skipf("no NeoX tokenizer at %s", tokPath)
	}
	if testing.Short() {
		t.Skip("-short: tokenizes all of wikitext-2")
	}
	tok, err := tokenizers.Load(tokPath)
	require.NoError(t, err)
	task, err := harness.Lookup(lmeval.WikiText, harness.Config{DataRoot: root})
	require.NoError(t, err)
	for _, modelMax := range []int{2048, 8192} {
		m := harnesstest.NewFakeModel(tok)
		m.MaxLen = modelMax
		res, err := harness.Run(m, task, harness.Options{GroupMaxLength: map[string]int{"lm": evalsetup.DefaultLMMaxLength, "niah": 8192}})
		require.NoError(t, err)
		assert.Equal(t, 165, res.Requests, "model max length %d", modelMax)
		assert.Equal(t, 2048, res.MaxLength)
		assert.Equal(t, 62, res.Docs)
	}
}

func TestBadInput(t *testing.T) {
	ok := Options{Checkpoint: "x", Tasks: "piqa", Batch: 8, MaxLength: 8192, LMMaxLength: 2048, Harness: harness.Config{DataRoot: t.TempDir()}}
	cases := map[string]func(o *Options){
		"--checkpoint":      func(o *Options) { o.Checkpoint = "" },
		"exclusive":         func(o *Options) { o.Mixed, o.Schedule = true, "linear" },
		"piqa":              func(o *Options) { o.Tasks = "no_such_task" },
		"--limit -1":        func(o *Options) { o.Limit = -1 },
		"--batch -1":        func(o *Options) { o.Batch = -1 },
		"--max-length 1":    func(o *Options) { o.MaxLength = 1 },
		"--lm-max-length 0": func(o *Options) { o.LMMaxLength = 0 },
		"ORYX_DATA":         func(o *Options) { o.Harness.DataRoot = "" },
		"raise --max-length": func(o *Options) {
			o.Tasks, o.MaxLength = "niah_single_1", 4096
			o.Harness.Params = map[string]string{"niah.words": "embedded"}
		},
	}
	for want, f := range cases {
		o := ok
		f(&o)
		_, err := Run(context.Background(), o)
		assert.ErrorContains(t, err, want, want)
	}
	_, err := Run(context.Background(), Options{Checkpoint: "x", Tasks: "piqa", Harness: harness.Config{DataRoot: ""}})
	assert.ErrorContains(t, err, "--data-root")
	_, err = Merge(t.TempDir(), nil, false, false)
	require.ErrorContains(t, err, "no results files")
	// An unwritable --out fails before the checkpoint is read.
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	o := ok
	o.Out = filepath.Join(file, "run.json")
	_, err = Run(context.Background(), o)
	assert.ErrorContains(t, err, "--out")
}

type piqaRow struct {
	Goal  string `parquet:"goal"`
	Sol1  string `parquet:"sol1"`
	Sol2  string `parquet:"sol2"`
	Label int64  `parquet:"label"`
}

// TestNothingLost runs a good task and one whose data is missing: the good one is written, the failure
// named with the data flags, and a rerun skips the finished task unless --force.
func TestNothingLost(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, lmeval.DefaultPaths[lmeval.PIQA])
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, parquet.WriteFile(p, []piqaRow{{"a b", "c", "d", 0}, {"e", "f g", "h", 1}}))
	ck := tinyCheckpoint(t, oryx.OryxTG)
	out := filepath.Join(t.TempDir(), "sub", "run.json")
	var log bytes.Buffer
	o := Options{Checkpoint: ck, Tasks: "arc_easy,piqa", Mixed: true, Harness: harness.Config{DataRoot: root},
		DataRootSource: "flag", Batch: 4, Out: out, Log: &log}
	got, err := Run(context.Background(), o)
	require.Error(t, err)
	assert.Equal(t, out, got)
	assert.ErrorContains(t, err, "1 of 2 tasks failed")
	assert.ErrorContains(t, err, "task arc_easy")
	assert.ErrorContains(t, err, "--data-root")
	assert.ErrorContains(t, err, "ORYX_DATA")
	rf, err := leaderboard.ReadResultsFile(out)
	require.NoError(t, err)
	require.Contains(t, rf.Tasks, "piqa")
	assert.Equal(t, 2, rf.Tasks["piqa"].Docs)
	assert.Equal(t, 2048, rf.Tasks["piqa"].MaxLength)
	assert.Contains(t, rf.Failed["arc_easy"], "no such file")
	assert.False(t, rf.Partial())

	// Rerun: piqa is skipped, arc_easy fails again.
	log.Reset()
	_, err = Run(context.Background(), o)
	assert.ErrorContains(t, err, "task arc_easy")
	assert.Contains(t, log.String(), "piqa: already in")
	// --force reruns it; another run's settings on the same --out are refused without it.
	log.Reset()
	o.Force, o.Tasks = true, "piqa"
	_, err = Run(context.Background(), o)
	require.NoError(t, err)
	assert.NotContains(t, log.String(), "already in")
	o.Force, o.Limit = false, 1
	_, err = Run(context.Background(), o)
	assert.ErrorContains(t, err, "holds another run")
}

// cancelOnWrite cancels when a line containing match is logged.
type cancelOnWrite struct {
	match  string
	cancel context.CancelFunc
}

func (w cancelOnWrite) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.match) {
		w.cancel()
	}
	return len(p), nil
}

// TestCancelKeepsFinishedTasks: cancelling after the first task stops Run before the second, with an error
// wrapping context.Canceled, and the results file holds the finished task; a rerun continues.
func TestCancelKeepsFinishedTasks(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, lmeval.DefaultPaths[lmeval.PIQA])
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, parquet.WriteFile(p, []piqaRow{{"a b", "c", "d", 0}, {"e", "f g", "h", 1}}))
	ck := tinyCheckpoint(t, oryx.OryxTG)
	out := filepath.Join(t.TempDir(), "run.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := Options{Checkpoint: ck, Tasks: "piqa,arc_easy", Harness: harness.Config{DataRoot: root},
		DataRootSource: "flag", Batch: 4, Out: out, Log: cancelOnWrite{"piqa: acc", cancel}}
	got, err := Run(ctx, o)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, out, got)
	assert.ErrorContains(t, err, "before task arc_easy finished (the 1 finished task(s) are in "+out)
	rf, err := leaderboard.ReadResultsFile(out)
	require.NoError(t, err)
	require.Contains(t, rf.Tasks, "piqa")
	require.NotContains(t, rf.Tasks, "arc_easy")
	require.NotContains(t, rf.Failed, "arc_easy")

	// Cancelled before anything ran: nothing is written.
	out2 := filepath.Join(t.TempDir(), "run.json")
	o.Out, o.Log = out2, nil
	_, err = Run(ctx, o)
	require.ErrorIs(t, err, context.Canceled)
	assert.ErrorContains(t, err, "no task had finished")
	assert.NoFileExists(t, out2)
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// TestRunBudgetRecordsCost: a run under a budget schedule records, per task, the policy, the budget, the
// realised attention fraction and the FLOPs of both passes (the entropy policy's linear pass included);
// budget:F:question receives the task's split.
func TestRunBudgetRecordsCost(t *testing.T) {
	root := sharedRoot(t)
	ckpt := tinyCheckpoint(t, oryx.OryxTG)
	tasks := map[string]*harness.Result{}
	for _, spec := range []string{"budget:0.2:entropy", "budget:0.2:question", "linear"} {
		out := filepath.Join(t.TempDir(), "run.json")
		_, err := Run(context.Background(), Options{Checkpoint: ckpt, Tasks: "piqa", Schedule: spec, Harness: harness.Config{DataRoot: root},
			Limit: 2, Batch: 4, Bootstrap: -1, Out: out, Log: testWriter{t}})
		require.NoError(t, err)
		rf, err := leaderboard.ReadResultsFile(out)
		require.NoError(t, err)
		r := rf.Tasks["piqa"]
		require.NotNil(t, r)
		tasks[spec] = r
		raw, err := os.ReadFile(out)
		require.NoError(t, err)
		require.Contains(t, string(raw), `"flops_gathered"`)
	}
	ent, q, lin := tasks["budget:0.2:entropy"], tasks["budget:0.2:question"], tasks["linear"]
	require.Equal(t, "entropy", ent.Policy)
	require.Equal(t, 0.2, *ent.Budget)
	require.InDelta(t, 0.2, ent.AttentionFraction, 0.01)
	require.Equal(t, ent.Tokens, ent.LinearPassTokens, "every request's tokens read twice")
	require.InDelta(t, 2*lin.FLOPs, ent.FLOPs, 1e-9*ent.FLOPs, "dense: two full passes")
	require.InDelta(t, lin.FLOPsGathered+q.FLOPsGathered, ent.FLOPsGathered, 1e-9*ent.FLOPsGathered,
		"gathered: an all-linear pass, then as many attention tokens as any budget:0.2 placement")
	require.Equal(t, "question", q.Policy)
	require.True(t, q.Mixed, "the split reaches the model")
	require.Empty(t, lin.Policy)
	require.Nil(t, lin.Budget)
	require.Zero(t, lin.LinearPassTokens)
}

// TestRerunTrustsOnlyValidResults runs the exact inputs: a zero-row parquet (it scored "acc=NaN (docs 0/0)"
// with exit 0), then reruns over a results file whose entry says acc 42, docs −5 or no metrics, and one
// scored at an earlier checkpoint step: each is recomputed with the reason said, never kept as "already in".
func TestRerunTrustsOnlyValidResults(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, lmeval.DefaultPaths[lmeval.PIQA])
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, parquet.WriteFile(p, []piqaRow{}))
	ck := tinyCheckpoint(t, oryx.OryxTG)
	out := filepath.Join(t.TempDir(), "run.json")
	var log bytes.Buffer
	o := Options{Checkpoint: ck, Tasks: "piqa", Harness: harness.Config{DataRoot: root}, DataRootSource: "flag",
		Batch: 4, Out: out, Log: &log}
	_, err := Run(context.Background(), o)
	require.ErrorContains(t, err, "task piqa: 0 documents scored")
	if rf, err := leaderboard.ReadResultsFile(out); err == nil {
		assert.NotContains(t, rf.Tasks, "piqa", "no score written for an empty data file")
	}

	require.NoError(t, parquet.WriteFile(p, []piqaRow{{"a b", "c", "d", 0}, {"e", "f g", "h", 1}}))
	_, err = Run(context.Background(), o)
	require.NoError(t, err)
	for _, c := range []struct {
		name   string
		edit   func(rf *leaderboard.ResultsFile)
		reason string
	}{
		{"acc 42", func(rf *leaderboard.ResultsFile) { rf.Tasks["piqa"].Metrics["acc"] = harness.Metric{Value: 42, N: 2} }, "out of [0, 1]"},
		{"docs -5", func(rf *leaderboard.ResultsFile) { rf.Tasks["piqa"].Docs = -5 }, "-5 documents scored"},
		{"no metrics", func(rf *leaderboard.ResultsFile) { rf.Tasks["piqa"].Metrics = nil }, "no metrics"},
		{"earlier step", func(rf *leaderboard.ResultsFile) { rf.CheckpointStep = 99 }, "scored at checkpoint step 99"},
	} {
		rf, err := leaderboard.ReadResultsFile(out)
		require.NoError(t, err)
		c.edit(rf)
		require.NoError(t, rf.WriteFile(out))
		log.Reset()
		_, err = Run(context.Background(), o)
		require.NoError(t, err, c.name)
		assert.Contains(t, log.String(), c.reason, c.name)
		assert.NotContains(t, log.String(), "already in", c.name)
		rf, err = leaderboard.ReadResultsFile(out)
		require.NoError(t, err)
		require.NoError(t, CheckResult(rf.Tasks["piqa"]), c.name)
	}
	// A valid entry at the same step is kept.
	log.Reset()
	_, err = Run(context.Background(), o)
	require.NoError(t, err)
	assert.Contains(t, log.String(), "piqa: already in")
}

// TestTooShortMaxLengthNamesTheFlag runs the exact input --lm-max-length 2: the task fails with the flag and
// its value named (the message used to say only "exceeds max_length 2").
func TestTooShortMaxLengthNamesTheFlag(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, lmeval.DefaultPaths[lmeval.PIQA])
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, parquet.WriteFile(p, []piqaRow{{"a b", "a long answer", "another long one", 0}}))
	o := Options{Checkpoint: tinyCheckpoint(t, oryx.OryxTG), Tasks: "piqa", Harness: harness.Config{DataRoot: root},
		DataRootSource: "flag", Batch: 4, LMMaxLength: 2, MaxLength: 2, Out: filepath.Join(t.TempDir(), "r.json")}
	_, err := Run(context.Background(), o)
	require.ErrorContains(t, err, "exceeds max_length 2")
	require.ErrorContains(t, err, "--lm-max-length is 2: raise it")
}
