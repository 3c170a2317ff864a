package leaderboard

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/stretchr/testify/require"
)

// makeTablePy prints lm-eval 0.4.13's make_table of a results file, then of its groups when there are any,
// as lm_eval's CLI does.
const makeTablePy = `
import json, sys
from lm_eval.utils import make_table
for path in sys.argv[1:]:
    d = json.load(open(path))
    out = make_table(d)
    if "groups" in d:
        out += "\n" + make_table(d, "groups")
    sys.stdout.write(out + "\x00")
`

// tableRuns are runs whose tables exercise pytablewriter's typing: groups with and without averages,
// stderrs of 0 and "N/A", integral values, a perplexity in the thousands, a NaN value, a task of no group.
func tableRuns(t *testing.T) map[string]*ResultsFile {
	registerGroups()
	m := func(v, se float64, n int) harness.Metric { return harness.Metric{Value: v, Stderr: se, N: n} }
	info := RunInfo{Model: "org/oryx tiny", Variant: "gdn", Schedule: "attention", Backend: "go", Date: "2025-01-02T03:04:05Z",
		Groups: []string{"lm", "recall"}}
	lm := []*harness.Result{}
	for i, name := range []string{"wikitext", "lambada_openai", "piqa", "hellaswag", "winogrande", "arc_easy", "arc_challenge",
		"social_iqa", "boolq"} {
		r := &harness.Result{Task: name, Group: "lm", Version: float64(1 + i%2), Docs: 10, TotalDocs: 10,
			Metrics: map[string]harness.Metric{"acc": m(float64(i)/10, 0.1, 10), "acc_norm": m(0.5, 0, 10)}}
		switch name {
		case "wikitext":
			r.Metrics = map[string]harness.Metric{"word_perplexity": m(1936.17674, math.NaN(), 10), "byte_perplexity": m(6.0619, math.NaN(), 10),
				"bits_per_byte": m(2.5998, math.NaN(), 10)}
		case "lambada_openai":
			r.Metrics = map[string]harness.Metric{"perplexity": m(16.56328, 2.1197, 10), "acc": m(0, 0, 10)}
		case "boolq":
			r.Metrics["acc"] = m(1, 0, 10)
		}
		lm = append(lm, r)
	}
	out := map[string]*ResultsFile{
		"golden":  goldenRun(t),
		"lm-full": NewResultsFile(info, lm),
		"mixed": NewResultsFile(info, append(lm[2:4:4], &harness.Result{Task: "toy", Version: 0, Docs: 2, TotalDocs: 3,
			Metrics: map[string]harness.Metric{"acc": m(math.NaN(), math.NaN(), 2), "loss": m(12, 0.5, 2)}})),
	}
	return out
}

// TestResultsTableIsMakeTable: the table the project prints is what lm-eval 0.4.13's make_table prints for
// the same results file (needs `make py-tools`).
func TestResultsTableIsMakeTable(t *testing.T) {
	python, dir := testutil.PyTools(t, "lm_eval.utils", "pytablewriter")
	runs := tableRuns(t)
	var names, paths []string
	for name, r := range runs {
		p := filepath.Join(t.TempDir(), "results.json")
		require.NoError(t, r.WriteFile(p))
		names, paths = append(names, name), append(paths, p)
	}
	tables := strings.Split(testutil.RunPython(t, python, dir, makeTablePy, paths...), "\x00")
	require.Len(t, tables, len(names)+1)
	for i, name := range names {
		require.Equal(t, tables[i], runs[name].ResultsTable(), name)
		require.Contains(t, tables[i], " Tasks ")
	}
	require.Contains(t, runs["lm-full"].ResultsTable(), "|Groups|")
	t.Logf("lm-eval's make_table prints the project's tables, e.g.\n%s", runs["lm-full"].ResultsTable())
}

// checkLMEvalFile reads an lm-eval results file with ReadResultsFile and checks every task against the file's
// own "results" rows: the "<metric>,none" values and stderrs, the group rows left out, n-samples.
func checkLMEvalFile(t *testing.T, path string) *ResultsFile {
	t.Helper()
	r, err := ReadResultsFile(path)
	require.NoError(t, err, path)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var f struct {
		Results       map[string]map[string]json.RawMessage `json:"results"`
		Groups        map[string]any                        `json:"groups"`
		GroupSubtasks map[string][]string                   `json:"group_subtasks"`
		NSamples      map[string]nSamples                   `json:"n-samples"`
	}
	require.NoError(t, json.Unmarshal(quotePythonNonFinite(b), &f))
	var tasks []string
	for name := range f.Results {
		if _, g := f.Groups[name]; g || len(f.GroupSubtasks[name]) > 0 {
			require.NotContains(t, r.Tasks, name, "%s: group %s read as a task", path, name)
			continue
		}
		tasks = append(tasks, name)
	}
	require.Len(t, r.Tasks, len(tasks), path)
	for _, name := range tasks {
		res := r.Tasks[name]
		require.NotNil(t, res, "%s: task %s", path, name)
		n := 0
		for k, raw := range f.Results[name] {
			m, filter, ok := strings.Cut(k, ",")
			if !ok || filter != "none" || strings.HasSuffix(m, "_stderr") {
				continue
			}
			want, err := parseNumber(raw)
			require.NoError(t, err)
			got := res.Metrics[m]
			if math.IsNaN(want) {
				require.True(t, math.IsNaN(got.Value), "%s: %s %s", path, name, m)
			} else {
				require.Equal(t, want, got.Value, "%s: %s %s", path, name, m)
			}
			se, _ := parseNumber(f.Results[name][m+"_stderr,none"])
			if math.IsNaN(se) {
				require.True(t, math.IsNaN(got.Stderr), "%s: %s %s stderr", path, name, m)
			} else {
				require.Equal(t, se, got.Stderr, "%s: %s %s stderr", path, name, m)
			}
			n++
		}
		require.Len(t, res.Metrics, n, "%s: %s", path, name)
		require.Equal(t, f.NSamples[name].Effective, res.Docs, "%s: %s docs", path, name)
	}
	return r
}

// TestMergeReadsLMEvalFiles: `evals merge` reads lm-eval's own results files, 0.4.0 to 0.4.13, with and
// without groups, versions as numbers, numeric strings, "N/A" or "Yaml": the committed files of
// testdata/lmeval (two written by lm-eval 0.4.13's code, three by hand in the older shapes), and, with
// `make py-tools`, files lm-eval's code writes now (testdata/lmeval_results.py).
func TestMergeReadsLMEvalFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "lmeval", "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 5)
	byName := map[string]*ResultsFile{}
	for _, f := range files {
		byName[filepath.Base(f)] = checkLMEvalFile(t, f)
	}
	old := byName["0.4.0.json"]
	require.Equal(t, "pretrained=EleutherAI/pythia-160m,dtype=float32", old.Model)
	require.Equal(t, 0.0, old.Tasks["arc_easy"].Version) // "Yaml": no version
	require.ElementsMatch(t, []string{"arc_easy", "mmlu_abstract_algebra", "mmlu_anatomy", "wikitext"}, old.taskNames())
	v2 := byName["0.4.2.json"]
	require.Equal(t, "state-spaces/mamba-130m", v2.Model)
	require.Equal(t, 100, v2.Limit)
	require.True(t, v2.Partial())
	require.Equal(t, "2024-04-02T13:03:20Z", v2.Date)
	v5 := byName["0.4.5.json"]
	require.Equal(t, "dtype=float16,pretrained=EleutherAI/pythia-160m", v5.Model)
	require.True(t, math.IsNaN(v5.Tasks["mmlu_astronomy"].Metrics["acc"].Stderr))
	g := byName["0.4.13-group.json"]
	require.Equal(t, "fake/model", g.Model)
	require.Equal(t, 2.0, g.Tasks["wikitext"].Version)
	require.ElementsMatch(t, []string{"piqa", "arc_easy", "lambada_openai", "wikitext"}, g.taskNames())

	l, err := Merge(files...)
	require.NoError(t, err)
	require.Len(t, l.Runs, 4) // the two 0.4.13 files are one run (same model, no other identity): tasks united
	dir := t.TempDir()
	require.NoError(t, l.WriteFiles(filepath.Join(dir, "leaderboard.json"), filepath.Join(dir, "leaderboard.md")))

	python, pydir := testutil.PyTools(t, "lm_eval", "datasets", "pandas", "yaml")
	script, err := os.ReadFile(filepath.Join("testdata", "lmeval_results.py"))
	require.NoError(t, err)
	out := t.TempDir()
	testutil.RunPython(t, python, pydir, string(script), out)
	fresh, err := filepath.Glob(filepath.Join(out, "*", "fake__model", "results_*.json"))
	require.NoError(t, err)
	require.Len(t, fresh, 2)
	for _, f := range fresh {
		checkLMEvalFile(t, f)
	}
	_, err = Merge(append(fresh, files...)...)
	require.NoError(t, err)
	t.Logf("read and merged %d results files lm-eval %s wrote just now", len(fresh), "0.4.13")
}
