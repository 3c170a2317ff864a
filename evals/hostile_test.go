package main

import (
	"encoding/json"
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

// TestHostileInputs runs the bad-input campaign's inputs through the real `evals` command: exit code 1 with a
// message naming the flag or file, never a panic.
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
		want []string
	}{
		{"merge null task", []string{"merge", "--out", nullOut, nullTask}, []string{nullTask, `task "piqa" is null`}},
		{"mqar --examples 0", []string{"mqar", "--checkpoint", ckpt, "--examples", "0"}, []string{"--examples must be in [1, "}},
		{"mqar run.json seq_len 2e9", []string{"mqar", "--checkpoint", hugeRun}, []string{"--seq-len must be in", "run.json"}},
		{"mqar --offset -2", []string{"mqar", "--checkpoint", ckpt, "--offset", "-2"}, []string{"--offset must be in"}},
		{"mqar --seq-len 2e9", []string{"mqar", "--checkpoint", ckpt, "--seq-len", "2000000000"}, []string{"--seq-len must be in"}},
		{"mqar --examples × --seq-len", []string{"mqar", "--checkpoint", ckpt, "--examples", "1000000", "--seq-len", "16000000"},
			[]string{"--examples × --seq-len", "of memory, this machine has"}},
		{"switch --sequences × --seq-len", []string{"switch", "--checkpoint", ckpt, "--sequences", "1000000", "--seq-len", "16000000"},
			[]string{"--sequences × --seq-len"}},
		{"switch --at past the end", []string{"switch", "--checkpoint", ckpt, "--seq-len", "64", "--at", "64"}, []string{"--at must be in [1, 63]"}},
		{"--max-length 2e9", []string{"--checkpoint", ckpt, "--tasks", "piqa", "--max-length", "2000000000"}, []string{"--max-length must be in"}},
		{"--batch 0", []string{"--checkpoint", ckpt, "--tasks", "piqa", "--batch", "0"}, []string{"--batch must be in"}},
		{"run.json tokenizer outside", []string{"mqar", "--checkpoint", absTok, "--examples", "2"},
			[]string{"--checkpoint", `"/root/.ssh/id_rsa.json" is outside the run directory`, "--tokenizer"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			clitest.Run(t, nil, c.args...).Check(t, 1, c.want...)
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
