package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/internal/clitest"
	"github.com/stretchr/testify/require"
)

// TestMergeChecksResults: `evals merge` checks every result of every file as a rerun
// checks one before trusting it again (an accuracy out of [0, 1], a non-finite value, a negative count of
// documents: exit 1 naming the file and the task, nothing written), and refuses a file that is not valid
// UTF-8 or whose model name holds U+FFFD (a lone surrogate escape): two such names read back the same and
// were merged into one row. Before, merge published 1e308 as "+Inf", −7.5 as "−750.00" and −5 documents. A
// file of lm-eval 0.4.0, which records no document counts, still merges.
func TestMergeChecksResults(t *testing.T) {
	tmp := t.TempDir()
	file := func(name, content string) string {
		path := filepath.Join(tmp, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		return path
	}
	run := func(model, acc, effective string) string {
		return `{"model_name": "` + model + `", "results": {"piqa": {"acc,none": ` + acc + `, "acc_stderr,none": 0.01}}, ` +
			`"n-samples": {"piqa": {"original": 10, "effective": ` + effective + `}}}`
	}
	out := filepath.Join(tmp, "board")
	require.NoError(t, os.MkdirAll(out, 0o755))
	for _, c := range []struct {
		name, content string
		want          []string
	}{
		{"huge.json", run("m", "1e308", "10"), []string{`task "piqa": metric acc is 1e+308, out of [0, 1]`}},
		{"negative.json", run("m", "-7.5", "10"), []string{`task "piqa": metric acc is -7.5, out of [0, 1]`}},
		{"docs.json", run("m", "0.5", "-5"), []string{`task "piqa": -5 documents scored`}},
		{"inf.json", `{"model_name": "m", "results": {"piqa": {"acc,none": Infinity}}, "n-samples": {"piqa": {"original": 10, "effective": 10}}}`,
			[]string{`task "piqa": metric acc is +Inf`}},
		{"bytes.json", run("m\xff", "0.5", "10"), []string{"not valid UTF-8 (at byte 17)"}},
		{"surrogate.json", run(`m\udc80`, "0.5", "10"), []string{"its model \"m\uFFFD\" holds U+FFFD"}},
	} {
		path := file(c.name, c.content)
		clitest.Run(t, nil, "merge", "--out", out, path).Check(t, 1, append(c.want, path)...)
	}
	require.NoFileExists(t, filepath.Join(out, "leaderboard.json"), "a refused merge writes nothing")

	// Two models whose names are different invalid UTF-8: refused, never one row.
	a, b := file("a.json", run("m\xfe", "0.5", "10")), file("b.json", run("m\xff", "0.7", "10"))
	clitest.Run(t, nil, "merge", "--out", out, a, b).Check(t, 1, a, "not valid UTF-8")

	// Valid files merge, lm-eval 0.4.0's without counts among them.
	ok := file("ok.json", run("m", "0.5", "10"))
	old := file("old.json", `{"model_name": "old", "results": {"piqa": {"acc,none": 0.6}}}`)
	clitest.Run(t, nil, "merge", "--out", out, ok, old).Check(t, 0, "2 runs from 2 files")
}

// TestMergeRefusesImpossibleValues: `evals merge` refuses a results file whose values cannot be (a NIAH score
// of 7.5, before shown as 750 % and averaged; an attention fraction of 2.5, shown as 250 %; attention tokens
// beyond the tokens; a negative step, token or parameter count), exit 1 naming the file and the field, nothing
// written; and refuses a training run directory as --out (its leaderboard files were written among the run's
// checkpoints) unless --force.
func TestMergeRefusesImpossibleValues(t *testing.T) {
	tmp := t.TempDir()
	// A results file of the project's own layout: the run's fields and one NIAH task, each replaceable.
	file := func(name string, edit map[string]string) string {
		v := map[string]string{"parameters": "1000", "checkpoint_step": "10", "tokens_seen": "100",
			"attention_fraction": "0.5", "score": "0.75", "tokens": "100", "attention_tokens": "50", "task_fraction": "0.5"}
		for k, x := range edit {
			v[k] = x
		}
		content := `{"results": {}, "oryx": {"model": "m", "variant": "gdn", "size": "tiny", "parameters": ` + v["parameters"] +
			`, "checkpoint_step": ` + v["checkpoint_step"] + `, "tokens_seen": ` + v["tokens_seen"] +
			`, "schedule": "attention", "backend": "go", "attention_fraction": ` + v["attention_fraction"] +
			`, "tasks": {"niah_single_1": {"task": "niah_single_1", "group": "niah", "metrics": {"score": {"value": ` + v["score"] +
			`, "stderr": 0.01, "n": 4}, "score@1024": {"value": ` + v["score"] + `, "stderr": 0.01, "n": 4}}, ` +
			`"docs": 4, "total_docs": 4, "tokens": ` + v["tokens"] + `, "attention_tokens": ` + v["attention_tokens"] +
			`, "attention_fraction": ` + v["task_fraction"] + `}}}}`
		path := filepath.Join(tmp, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		return path
	}
	out := filepath.Join(tmp, "board")
	for _, c := range []struct {
		name string
		edit map[string]string
		want string
	}{
		{"niah.json", map[string]string{"score": "7.5"}, `task "niah_single_1": metric score is 7.5, out of [0, 1]`},
		{"fraction.json", map[string]string{"attention_fraction": "2.5"}, "oryx.attention_fraction is 2.5, out of [0, 1]"},
		{"taskfraction.json", map[string]string{"task_fraction": "-0.5"}, `oryx.tasks["niah_single_1"].attention_fraction is -0.5, out of [0, 1]`},
		{"atttokens.json", map[string]string{"attention_tokens": "250"}, `oryx.tasks["niah_single_1"].attention_tokens is 250, out of [0, 100]`},
		{"tokens.json", map[string]string{"tokens": "-100", "attention_tokens": "0"}, `oryx.tasks["niah_single_1"].tokens is -100, negative`},
		{"step.json", map[string]string{"checkpoint_step": "-10"}, "oryx.checkpoint_step is -10, negative"},
		{"seen.json", map[string]string{"tokens_seen": "-100"}, "oryx.tokens_seen is -100, negative"},
		{"params.json", map[string]string{"parameters": "-1000"}, "oryx.parameters is -1000, negative"},
	} {
		path := file(c.name, c.edit)
		clitest.Run(t, nil, "merge", "--out", out, path).Check(t, 1, c.want, path)
	}
	require.NoDirExists(t, out, "a refused merge writes nothing")
	ok := file("ok.json", nil)
	clitest.Run(t, nil, "merge", "--out", out, ok).Check(t, 0, "1 runs from 1 files")

	// A training run directory as --out: refused, naming it; --force writes there.
	run := filepath.Join(tmp, "run")
	require.NoError(t, os.MkdirAll(run, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(run, "config.json"), []byte(`{"variant": "gdn", "d_model": 64}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(run, "metrics.jsonl"), nil, 0o644))
	clitest.Run(t, nil, "merge", "--out", run, ok).Check(t, 1, "--out "+run+" holds a run directory", "training run directory")
	require.NoFileExists(t, filepath.Join(run, "leaderboard.json"))
	clitest.Run(t, nil, "merge", "--force", "--out", run, ok).Check(t, 0, "1 runs from 1 files")
	require.FileExists(t, filepath.Join(run, "leaderboard.json"))
}
