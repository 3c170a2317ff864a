package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/internal/clitest"
	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	clitest.RunMainIfChild("evals", main)
	os.Exit(m.Run())
}

// TestHostileInputs runs the bad-input campaign's inputs through the real `evals` command: a message naming
// the flag or file, never a panic; exit code 2 for a mistake in the command line (a flag value out of range),
// 1 for bad input files or a size this machine cannot hold.
func TestHostileInputs(t *testing.T) {
	tmp := t.TempDir()
	ckpt := filepath.Join(tmp, "ckpt")
	cfg, err := oryx.Preset("tiny", oryx.Transformer)
	require.NoError(t, err)
	require.NoError(t, oryx.InitCheckpoint(ckpt, cfg, 1))
	absTok := filepath.Join(tmp, "abs")
	require.NoError(t, oryx.InitCheckpoint(absTok, cfg, 1))
	require.NoError(t, os.WriteFile(filepath.Join(absTok, "run.json"), []byte(`{"tokenizer": "/root/.ssh/id_rsa.json"}`), 0o644))
	hugeRun := filepath.Join(tmp, "huge") // run.json is input too: its seq_len is bounded like the flag
	require.NoError(t, os.MkdirAll(hugeRun, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(hugeRun, "run.json"),
		[]byte(`{"data": {"Spec": "mix:synth=1,mqar=1,pairs=8"}, "train": {"seq_len": 2000000000}}`), 0o644))
	nullTask := filepath.Join(tmp, "null-task.json")
	require.NoError(t, os.WriteFile(nullTask, []byte(`{"results": {"piqa": {}}, "oryx": {"model": "m", "tasks": {"piqa": null}}}`), 0o644))
	nullOut := filepath.Join(tmp, "merged-null")
	require.NoError(t, os.MkdirAll(nullOut, 0o755))

	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"merge null task", []string{"merge", "--out", nullOut, nullTask}, 1, []string{nullTask, `task "piqa" is null`}},
		{"mqar --examples 0", []string{"mqar", "--checkpoint", ckpt, "--examples", "0"}, 2, []string{"--examples must be in [1, "}},
		{"mqar run.json seq_len 2e9", []string{"mqar", "--checkpoint", hugeRun}, 1, []string{"--seq-len must be in", "run.json"}},
		{"mqar --offset -2", []string{"mqar", "--checkpoint", ckpt, "--offset", "-2"}, 2, []string{"--offset must be in"}},
		{"mqar --seq-len 2e9", []string{"mqar", "--checkpoint", ckpt, "--seq-len", "2000000000"}, 2, []string{"--seq-len must be in"}},
		{"mqar --examples × --seq-len", []string{"mqar", "--checkpoint", ckpt, "--examples", "1000000", "--seq-len", "16000000"},
			1, []string{"--examples × --seq-len", "of memory, this machine has"}},
		{"switch --sequences × --seq-len", []string{"switch", "--checkpoint", ckpt, "--sequences", "1000000", "--seq-len", "16000000"},
			1, []string{"--sequences × --seq-len"}},
		{"switch --at past the end", []string{"switch", "--checkpoint", ckpt, "--seq-len", "64", "--at", "64"}, 2, []string{"--at must be in [1, 63]"}},
		{"--max-length 2e9", []string{"--checkpoint", ckpt, "--tasks", "piqa", "--max-length", "2000000000"}, 2, []string{"--max-length must be in"}},
		{"--batch 0", []string{"--checkpoint", ckpt, "--tasks", "piqa", "--batch", "0"}, 2, []string{"--batch must be in"}},
		{"run.json tokenizer outside", []string{"mqar", "--checkpoint", absTok, "--examples", "2"},
			1, []string{"--checkpoint", `"/root/.ssh/id_rsa.json" is outside the run directory`, "--tokenizer"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			clitest.Run(t, nil, c.args...).Check(t, c.code, c.want...)
		})
	}
	require.NoFileExists(t, filepath.Join(nullOut, "leaderboard.json"), "a refused merge writes nothing")
}

// TestMergeHostileNames: a newline or "|" in a model or task name stays inside its markdown cell, and the
// result files are 0644 like every other output.
func TestMergeHostileNames(t *testing.T) {
	tmp := t.TempDir()
	run := map[string]any{"model_name": "evil\nmodel|x", "results": map[string]any{
		"my\ntask": map[string]any{"acc,none": 0.5, "acc_stderr,none": 0.01},
	}}
	data, err := json.Marshal(run)
	require.NoError(t, err)
	path := filepath.Join(tmp, "run.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	out := filepath.Join(tmp, "out")
	require.NoError(t, os.MkdirAll(out, 0o755))
	clitest.Run(t, nil, "merge", "--out", out, path).Check(t, 0, "wrote")
	md, err := os.ReadFile(filepath.Join(out, "leaderboard.md"))
	require.NoError(t, err)
	lines := strings.Split(string(md), "\n")
	require.GreaterOrEqual(t, len(lines), 3)
	require.Contains(t, lines[0], "| my task acc |")
	require.True(t, strings.HasPrefix(lines[2], "| evil model\\|x | "), lines[2])
	require.Equal(t, strings.Count(lines[0], " | "), strings.Count(strings.ReplaceAll(lines[2], `\|`, ""), " | "),
		"the row has as many cells as the header")
	for _, f := range []string{"leaderboard.json", "leaderboard.md"} {
		fi, err := os.Stat(filepath.Join(out, f))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), f)
	}
}

// TestExitCodes: a mistake in the command line exits 2 (the flag package's status) in the main command and in
// every subcommand; a failure of the work itself (a checkpoint that is not there) exits 1; -h exits 0.
func TestExitCodes(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-checkpoint")
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"--bogus"}, 2, []string{"flag provided but not defined: -bogus"}},
		{[]string{"--checkpoint", missing, "--batch", "eight"}, 2, []string{`invalid value "eight" for flag -batch`}},
		{[]string{"--checkpoint", missing, "extra"}, 2, []string{`unexpected arguments ["extra"]`}},
		{[]string{"--tasks", "piqa"}, 2, []string{"--checkpoint is required"}},
		{[]string{"--checkpoint", missing, "--tasks", "no-such-task"}, 2, []string{"--tasks", "no-such-task"}},
		{[]string{"--checkpoint", missing, "--param", "nokey"}, 2, []string{"--param"}},
		{[]string{"--checkpoint", missing, "--schedule", "bogus"}, 2, []string{`--schedule "bogus"`, "unknown schedule"}},
		{[]string{"--checkpoint", missing, "--schedule", "budget:2:last"}, 2, []string{`--schedule "budget:2:last"`, "budget fraction"}},
		{[]string{"mqar", "--bogus"}, 2, []string{"flag provided but not defined: -bogus"}},
		{[]string{"mqar", "--checkpoint", missing, "--pairs", "x"}, 2, []string{"--pairs"}},
		{[]string{"switch", "--seq-len", "many"}, 2, []string{`invalid value "many" for flag -seq-len`}},
		{[]string{"switch"}, 2, []string{"--checkpoint is required"}},
		{[]string{"merge", "--include-partial=maybe"}, 2, []string{"invalid boolean value"}},
		{[]string{"merge"}, 2, []string{"no results files given"}},
		{[]string{"frontier", "--bogus"}, 2, []string{"flag provided but not defined: -bogus"}},
		{[]string{"frontier", "--tasks", "mqar"}, 2, []string{"--checkpoint is required"}},
		{[]string{"frontier", "--checkpoint", missing, "extra"}, 2, []string{`unexpected arguments ["extra"]`}},
		{[]string{"frontier", "--checkpoint", missing, "--gen-mem-mb", "0"}, 2, []string{"--gen-mem-mb must be in"}},
		{[]string{"frontier", "--checkpoint", missing, "--batch", "0"}, 2, []string{"--batch must be in"}},
		{[]string{"frontier", "--checkpoint", missing, "--budgets", "0,2"}, 2, []string{`--budgets "0,2"`}},
		{[]string{"frontier", "--checkpoint", missing, "--policies", "smart"}, 2, []string{`unknown policy "smart"`}},
		{[]string{"frontier", "--checkpoint", missing, "--budgets", ""}, 2, []string{"--budgets"}},
		{[]string{"frontier", "--checkpoint", missing, "--tasks", ""}, 2, []string{"--tasks"}},
		{[]string{"--checkpoint", missing, "--tasks", ""}, 2, []string{"--tasks"}},
		{[]string{"frontier", "--checkpoint", missing, "--param", "nokey"}, 2, []string{"--param"}},
		{[]string{"mqar", "--checkpoint", missing, "--score-mem-mb", "-1"}, 2, []string{"--score-mem-mb must be in"}},
		{[]string{"-h"}, 0, []string{"Usage: go run ./evals"}},
		{[]string{"mqar", "--checkpoint", missing, "--examples", "2"}, 1, []string{missing}},
		{[]string{"switch", "--checkpoint", missing, "--sequences", "2"}, 1, []string{missing}},
		{[]string{"merge", filepath.Join(missing, "run.json")}, 1, []string{missing}},
		{[]string{"frontier", "--checkpoint", missing, "--tasks", "mqar", "--out", filepath.Join(t.TempDir(), "f")}, 1, []string{missing}},
	} {
		t.Run(strings.ReplaceAll(strings.Join(c.args, " "), missing, "MISSING"), func(t *testing.T) {
			clitest.Run(t, nil, c.args...).Check(t, c.code, c.want...)
		})
	}
}

// TestEvalFlagsShared: the evaluation flags are registered once (evalFlags), so every subcommand that takes
// one shows the same name, default and help; `evals frontier` has the harness flags of the main command,
// --gen-mem-mb included.
func TestEvalFlagsShared(t *testing.T) {
	help := func(args ...string) string {
		var stdout, stderr bytes.Buffer
		require.ErrorIs(t, run(append(args, "-h"), &stdout, &stderr), flag.ErrHelp)
		return stderr.String()
	}
	mainHelp, frontierHelp := help(), help("frontier")
	line := func(h, name string) string {
		for _, l := range strings.Split(h, "\n  -")[1:] {
			if strings.HasPrefix(l, name+" ") || strings.HasPrefix(l, name+"\n") {
				return strings.TrimSpace(l)
			}
		}
		return ""
	}
	for _, name := range []string{"tokenizer", "batch", "score-mem-mb", "data-root", "data-path", "param", "max-length",
		"lm-max-length", "gen-mem-mb"} {
		l := line(mainHelp, name)
		require.NotEmpty(t, l, "main -h lists --%s", name)
		require.Equal(t, l, line(frontierHelp, name), "--%s", name)
	}
	require.Contains(t, line(frontierHelp, "gen-mem-mb"), genMemUsage+" (default 4096)")
	for _, sub := range []string{"mqar", "switch"} {
		h := help(sub)
		require.Equal(t, line(mainHelp, "tokenizer"), line(h, "tokenizer"), sub)
		require.Equal(t, line(mainHelp, "score-mem-mb"), line(h, "score-mem-mb"), sub)
		require.Empty(t, line(h, "gen-mem-mb"), "%s generates nothing", sub)
	}
}
