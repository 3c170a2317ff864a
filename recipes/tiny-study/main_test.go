package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/internal/clitest"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	clitest.RunMainIfChild("tiny-study", main)
	os.Exit(m.Run())
}

// TestExitCodes: a mistake in the command line exits 2 before anything is trained or written; a failure of
// the work (an --out below a regular file) exits 1; -h exits 0.
func TestExitCodes(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "study")
	file := filepath.Join(tmp, "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"--out", out, "--bogus"}, 2, []string{"flag provided but not defined: -bogus"}},
		{[]string{"--out", out, "--steps", "many"}, 2, []string{`invalid value "many" for flag -steps`}},
		{[]string{"--out", out, "--quick=perhaps"}, 2, []string{"invalid boolean value"}},
		{[]string{"--out", out, "--steps", "-3"}, 2, []string{"--steps must be ≥ 0"}},
		{[]string{"--out", out, "--runs", "transformer,nope"}, 2, []string{`--runs: unknown run "nope"`}},
		{[]string{"--out", out, "extra"}, 2, []string{`unexpected arguments ["extra"]`}},
		{[]string{"--out", out, "--jobs", "-1"}, 2, []string{"--jobs must be ≥ 0"}},
		{[]string{"--train-run", "0"}, 2, []string{"--train-run needs --config FILE"}},
		{[]string{"--train-run", "-2", "--config", file}, 2, []string{"--train-run must be ≥ 0"}},
		{[]string{"--out", out, "--config", file}, 2, []string{"--config is read only with --train-run"}},
		{[]string{"--train-run", "0", "--config", file}, 1, []string{"--config " + file}},
		{[]string{"--out", out, "--seeds", "-1"}, 2, []string{"--seeds must be ≥ 1"}},
		{[]string{"--out", out, "--curve-examples", "-2"}, 2, []string{"--curve-examples must be ≥ 0"}},
		{[]string{"--out", out, "--scale", "--attribution"}, 2, []string{"--scale, --attribution, --decompose, --decide and --trend are different studies"}},
		{[]string{"--out", out, "--decompose", "--attribution"}, 2, []string{"--scale, --attribution, --decompose, --decide and --trend are different studies"}},
		{[]string{"--out", out, "--trend", "--decompose"}, 2, []string{"--scale, --attribution, --decompose, --decide and --trend are different studies"}},
		{[]string{"--out", out, "--english"}, 2, []string{"--english trains the trend on real English: give it with --trend"}},
		{[]string{"--out", out, "--trend", "--data-dir", tmp}, 2, []string{"--data-dir says where the English corpora are: give it with --trend --english"}},
		{[]string{"--out", out, "--trend", "--english", "--data-dir", " "}, 2, []string{"--data-dir is empty"}},
		{[]string{"--out", out, "--trend", "--steps", "900"}, 2, []string{"--trend reads its gaps at budgets fixed before its runs"}},
		{[]string{"--out", out, "--trend", "--english", "--data-dir", filepath.Join(tmp, "nodata")}, 1,
			[]string{filepath.Join(tmp, "nodata", "tinyshakespeare", "input.txt"), "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"}},
		{[]string{"--out", out, "--decide", "--decompose"}, 2, []string{"--scale, --attribution, --decompose, --decide and --trend are different studies"}},
		{[]string{"--out", out, "--budget-seeds", "3"}, 2, []string{"--budget-seeds and --budget-time bound the sequential study: give them with --decide"}},
		{[]string{"--out", out, "--decide", "--budget-seeds", "-1"}, 2, []string{"--budget-seeds must be in [0, 100]"}},
		{[]string{"--out", out, "--decide", "--budget-time", "-1h"}, 2, []string{"--budget-time ≥ 0"}},
		{[]string{"--out", out, "--decide", "--seeds", "4"}, 2, []string{"--decide trains the planned looks' seeds"}},
		{[]string{"--out", out, "--lr-decay"}, 2, []string{"--lr-decay changes the decomposition's learning rate: give it with --decompose"}},
		{[]string{"--out", out, "--scale", "--runs", "oryx-tg-p1"}, 2, []string{`--runs: unknown run "oryx-tg-p1"`}},
		{[]string{"--out", out, "--attribution", "--runs", "oryx-tg-block8,nope"}, 2, []string{`--runs: unknown run "nope"`}},
		{[]string{"--out", out, "--widths", "1"}, 2, []string{"--widths selects study-scale's or the trend's widths: give it with --scale or --trend"}},
		{[]string{"--out", out, "--scale", "--widths", "3"}, 2, []string{`--widths: width "3": want some of 1,2`}},
		{[]string{"--out", out, "--scale", "--widths", "1,x"}, 2, []string{`--widths: width "x"`}},
		{[]string{"-h"}, 0, []string{"Usage: go run", "-quick", "-jobs", "-seeds", "-scale", "-attribution", "-trend", "-english", "-data-dir"}},
		{[]string{"--quick", "--runs", "transformer", "--out", filepath.Join(file, "study")}, 1, []string{file, "not a directory"}},
	} {
		clitest.Run(t, nil, c.args...).Check(t, c.code, c.want...)
	}
	require.NoDirExists(t, out, "a refused study writes nothing")
}

// TestCountsBounded: every count the command takes is bounded at its flag, and an empty
// --runs or --widths selects nothing instead of everything: exit 2 naming the flag, nothing written. Before,
// --seeds 2000000000 and --curve-examples 2000000000 ran out of memory, --runs "" trained all five runs,
// --jobs was capped only by runs × seeds and --steps overflowed only once the training started (exit 1).
func TestCountsBounded(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "study")
	huge := filepath.Join(tmp, "huge-seeds.json")
	require.NoError(t, os.WriteFile(huge, []byte(`{"runs": [{"name": "transformer", "variant": "transformer"}], "seeds": 2000000000}`), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--seeds", "2000000000"}, "--seeds must be ≥ 1 and ≤ 100 (0: the study's), got 2000000000"},
		{[]string{"--seeds", "101"}, "--seeds must be ≥ 1 and ≤ 100"},
		{[]string{"--jobs", "17"}, "--jobs must be ≥ 0 and ≤ 16 (0: automatic), got 17"},
		{[]string{"--steps", "9223372036854775807"}, "--steps must be ≥ 0 and ≤ 1073741824"},
		{[]string{"--curve-examples", "2000000000"}, "--curve-examples must be ≥ 0 and ≤ 65536"},
		{[]string{"--runs", ""}, `--runs "" selects nothing: name at least one, or leave --runs out for all`},
		{[]string{"--runs", " , "}, `--runs " , " selects nothing`},
		{[]string{"--scale", "--widths", ""}, `--widths "" selects nothing`},
	} {
		clitest.Run(t, nil, append([]string{"--quick", "--out", out}, c.args...)...).Check(t, 2, c.want)
	}
	clitest.Run(t, nil, "--train-run", "0", "--config", huge).Check(t, 2, "--config "+huge+": 2000000000 seeds, more than 100")
	require.NoDirExists(t, out, "a refused study writes nothing")
}

// TestWorkerProcesses: with --jobs 2 each run trains in a child process of the command (--train-run) and is
// evaluated by the parent; both runs' results reach study.json, the log lines carry their run's name, and the
// numbers equal those of the same study run one after the other in this process (training is
// deterministic).
func TestWorkerProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: trains two quick runs twice")
	}
	tmp := t.TempDir()
	read := func(dir string) map[string]any {
		data, err := os.ReadFile(filepath.Join(dir, "study.json"))
		require.NoError(t, err)
		var rep map[string]any
		require.NoError(t, json.Unmarshal(data, &rep))
		return rep
	}
	valLosses := func(rep map[string]any) []any {
		var out []any
		for _, m := range rep["models"].([]any) {
			mm := m.(map[string]any)
			out = append(out, mm["name"], mm["schedules"].([]any)[0].(map[string]any)["val_loss"])
		}
		return out
	}
	par, seq := filepath.Join(tmp, "par"), filepath.Join(tmp, "seq")
	r := clitest.Run(t, nil, "--quick", "--runs", "transformer,gdn", "--jobs", "2", "--out", par)
	r.Check(t, 0, "transformer-tiny             [1/2] training", "gdn-tiny                     [2/2] evaluating gdn-tiny")
	clitest.Run(t, nil, "--quick", "--runs", "transformer,gdn", "--jobs", "1", "--out", seq).Check(t, 0)
	p, s := read(par), read(seq)
	require.Len(t, p["models"], 2)
	require.Equal(t, valLosses(s), valLosses(p))
	require.EqualValues(t, 2, p["config"].(map[string]any)["jobs"])
	entries, err := os.ReadDir(par)
	require.NoError(t, err)
	for _, e := range entries {
		require.NotContains(t, e.Name(), ".worker-", "worker configurations are removed")
	}
}

// TestScaleBudgets: a --steps override of study-scale reads the gaps at half the steps (a curve step) and at
// the end.
func TestScaleBudgets(t *testing.T) {
	require.Equal(t, []int{700, 1400}, scaleBudgets(1400, 50))
	require.Equal(t, []int{250, 560}, scaleBudgets(560, 50)) // half of 560 is 280: 250 is the curve step below
	require.Equal(t, []int{300, 600}, scaleBudgets(600, 25))
	require.Equal(t, []int{40}, scaleBudgets(40, 50), "no curve step below half: the end only")
}

// TestTrendWorkerProcesses: --trend with --jobs 2 trains each run in a worker process, which scores the
// held-out set at every budget (the trend's probe travels in the worker's configuration); the parent reads
// the score files into trend.json.
func TestTrendWorkerProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: trains three quick runs")
	}
	out := filepath.Join(t.TempDir(), "trend")
	clitest.Run(t, nil, "--trend", "--quick", "--widths", "1", "--seeds", "1", "--jobs", "2", "--out", out).
		Check(t, 0, "wrote "+out+"/report.md, trend.json", "tiny, oryx-tg linear vs gdn linear: log-linear")
	for _, run := range []string{"transformer-tiny", "gdn-tiny", "oryx-tg-tiny"} {
		for _, step := range []int{2, 4, 6, 8} {
			require.FileExists(t, filepath.Join(out, "scores", run, fmt.Sprintf("step-%06d.json", step)))
		}
	}
	data, err := os.ReadFile(filepath.Join(out, "trend.json"))
	require.NoError(t, err)
	var rep map[string]any
	require.NoError(t, json.Unmarshal(data, &rep))
	widths := rep["trend"].(map[string]any)["widths"].([]any)
	require.Len(t, widths, 1)
	require.Len(t, widths[0].(map[string]any)["modes"], 2)
}
