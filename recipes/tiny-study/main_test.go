package main

import (
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
		{[]string{"-h"}, 0, []string{"Usage: go run", "-quick"}},
		{[]string{"--quick", "--runs", "transformer", "--out", filepath.Join(file, "study")}, 1, []string{file, "not a directory"}},
	} {
		clitest.Run(t, nil, c.args...).Check(t, c.code, c.want...)
	}
	require.NoDirExists(t, out, "a refused study writes nothing")
}
