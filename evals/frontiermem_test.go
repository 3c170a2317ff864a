package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/clitest"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// TestFrontierHugeSeqLenRefused runs the campaign's input, `evals frontier --seq-len 16777216`, which used to
// allocate until a fatal out-of-memory error: it is refused before any example is generated or the model
// loaded, naming --seq-len and the estimate against the process's limit (a 4 GiB RLIMIT_AS here, so that
// the test does not depend on the machine), with --examples 128 (the token buffers) and with --examples 1
// (one row's forward), and nothing is written.
func TestFrontierHugeSeqLenRefused(t *testing.T) {
	ckpt := oryxtest.TinyCheckpoint(t, oryx.OryxTG)
	for _, ex := range []string{"128", "1"} {
		out := filepath.Join(t.TempDir(), "frontier")
		res := clitest.RunUnderMemoryLimit(t, 4<<20, "frontier", "--checkpoint", ckpt, "--tasks", "mqar",
			"--seq-len", "16777216", "--examples", ex, "--out", out)
		res.Check(t, 1, "--seq-len 16777216", "needs ~", "RLIMIT_AS")
		_, err := os.Stat(out)
		require.True(t, os.IsNotExist(err), "--examples %s: %s was created", ex, out)
	}
}

// TestFrontierHugeNeedleRefused: the same for the mini needle's lengths, which generated a 16,777,216-token
// needle until a fatal out-of-memory error: one needle's forward, or the host memory of a million samples of
// a length that fits, is refused before any needle is generated, naming --needle-lengths.
func TestFrontierHugeNeedleRefused(t *testing.T) {
	ckpt := oryxtest.TinyCheckpoint(t, oryx.OryxTG)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--needle-lengths", "16777216"}, "the forward of 1 row(s) needs ~"},
		{[]string{"--needle-lengths", "100000", "--needle-samples", "1000000"}, "× 5000000 needles needs ~"},
	} {
		out := filepath.Join(t.TempDir(), "frontier")
		args := append([]string{"frontier", "--checkpoint", ckpt, "--tasks", "needle", "--out", out}, c.args...)
		res := clitest.RunUnderMemoryLimit(t, 4<<20, args...)
		res.Check(t, 1, "--needle-lengths", c.want, "RLIMIT_AS")
		_, err := os.Stat(out)
		require.True(t, os.IsNotExist(err), "%v: %s was created", c.args, out)
	}
}
