package main

import (
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/internal/clitest"
)

// TestCountsBounded: the counts without an upper bound at their flag, and a model name
// that cannot name a folder, are refused there, exit 2 naming the flag, before a checkpoint is read. Before: --bootstrap-iters 2000000000 allocated 16 GB for the
// resamples, and --pairs or --needle-lengths of 2000000000 were found wrong only after loading the model
// (exit 1).
func TestCountsBounded(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-checkpoint")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--checkpoint", missing, "--bootstrap-iters", "2000000000"}, "--bootstrap-iters must be ≤ 16777216 (0: lm-eval's 100000, < 0: off), got 2000000000"},
		{[]string{"mqar", "--checkpoint", missing, "--pairs", "4,2000000000"}, `--pairs "4,2000000000": want comma-separated integers in [1, 16777216]`},
		{[]string{"frontier", "--checkpoint", missing, "--pairs", "2000000000"}, `--pairs "2000000000": want comma-separated integers in [1, 16777216]`},
		{[]string{"frontier", "--checkpoint", missing, "--needle-lengths", "2000000000"}, `--needle-lengths "2000000000": want comma-separated integers in [16, 16777216]`},
		// A model name must stay one folder inside --out's.
		{[]string{"--checkpoint", missing, "--model", ".."}, `--model ".." cannot name lm-eval's results folder`},
	} {
		clitest.Run(t, nil, c.args...).Check(t, 2, c.want)
	}
}
