package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/internal/cli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// torchPython is a Python that imports torch ($ORYX_TORCH_PYTHON, /usr/bin/python3 or python3, without
// PYTHONPATH: `make torch`); the test skips without one.
func torchPython(t *testing.T) string {
	for _, p := range []string{os.Getenv("ORYX_TORCH_PYTHON"), "/usr/bin/python3", "python3"} {
		if p == "" {
			continue
		}
		path, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import torch").Run() == nil {
			return path
		}
	}
	t.Skip("no python3 with torch: `make torch` installs Debian's python3-torch (or set ORYX_TORCH_PYTHON)")
	return ""
}

// TestCompareCommand: `oryx compare` of a checkpoint against its export prints the logits difference (float32
// Go against the float64 reference: within the tolerance) and the greedy agreement, for a text prompt (the
// export's tokenizer) and for ids under a mode schedule; against the export of another checkpoint it fails,
// saying so; usage mistakes are usage errors.
func TestCompareCommand(t *testing.T) {
	python := torchPython(t)
	dir := t.TempDir()
	ckpt, other, exp, otherExp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "other"), filepath.Join(dir, "hf"), filepath.Join(dir, "hf-other")
	var out, errOut bytes.Buffer
	require.NoError(t, initCmd([]string{"--preset", "tiny", "--variant", "oryx-tg", "--out", ckpt, "--seed", "5"}, &out, &errOut))
	require.NoError(t, initCmd([]string{"--preset", "tiny", "--variant", "oryx-tg", "--out", other, "--seed", "6"}, &out, &errOut))
	require.NoError(t, exportCmd([]string{"--checkpoint", ckpt, "--out", exp}, &out, &errOut))
	require.NoError(t, exportCmd([]string{"--checkpoint", other, "--out", otherExp}, &out, &errOut))

	out.Reset()
	require.NoError(t, compareCmd([]string{"--checkpoint", ckpt, "--export", exp, "--prompt", "Hello, world", "--python", python}, &out, &errOut), errOut.String())
	assert.Regexp(t, `^logits of 12 positions × 320: max \|Δ\| \S+, relative \S+; greedy tokens agree at 12/12 positions`, out.String())
	out.Reset()
	require.NoError(t, compareCmd([]string{"--checkpoint", ckpt, "--export", exp, "--ids", "1,2,3,4,5,6", "--schedule", "A:0-2,L:3-",
		"--python", python}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "logits of 6 positions")

	err := compareCmd([]string{"--checkpoint", ckpt, "--export", otherExp, "--ids", "1,2,3", "--python", python}, &out, &errOut)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is --export an export of --checkpoint?")
	for _, args := range [][]string{
		{"--checkpoint", ckpt, "--export", exp},
		{"--checkpoint", ckpt, "--export", exp, "--ids", "1", "--prompt", "x"},
		{"--export", exp, "--ids", "1"},
		{"--checkpoint", ckpt, "--export", exp, "--ids", "400"},
		{"--checkpoint", ckpt, "--export", exp, "--ids", "1", "--schedule", "bogus"},
	} {
		assert.Equal(t, cli.ExitUsage, cli.ExitCode(compareCmd(args, &out, &errOut)), "%v", args)
	}
}
