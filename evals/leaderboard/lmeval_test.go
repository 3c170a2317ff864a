package leaderboard

import (
	"math"
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
func tableRuns(t *testing.T) map[string]*RunFile {
	registerGroups()
	m := func(v, se float64, n int) harness.Metric { return harness.Metric{Value: v, Stderr: se, N: n} }
	info := RunInfo{Model: "org/oryx tiny", Variant: "gdn", Schedule: "attention", Backend: "go", Date: "2025-01-02T03:04:05Z"}
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
	out := map[string]*RunFile{
		"golden":  goldenRun(t),
		"lm-full": NewRunFile(info, lm),
		"mixed": NewRunFile(info, append(lm[2:4:4], &harness.Result{Task: "toy", Version: 0, Docs: 2, TotalDocs: 3,
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
