package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/internal/cli"
	"github.com/stretchr/testify/require"
)

// TestExportImportCommands: init → export → import → generate gives the same continuation from the
// imported checkpoint as from the original one; usage mistakes are usage errors (exit status 2).
func TestExportImportCommands(t *testing.T) {
	dir := t.TempDir()
	ckpt, exp, back := filepath.Join(dir, "ckpt"), filepath.Join(dir, "hf"), filepath.Join(dir, "back")
	var out, errOut bytes.Buffer
	require.NoError(t, initCmd([]string{"--preset", "tiny", "--variant", "gdn", "--out", ckpt, "--seed", "5"}, &out, &errOut))
	out.Reset()
	require.NoError(t, exportCmd([]string{"--checkpoint", ckpt, "--format", "safetensors", "--out", exp}, &out, &errOut))
	require.Contains(t, out.String(), "model.safetensors")
	require.NoError(t, importCmd([]string{"--from", exp, "--out", back}, &out, &errOut))
	gen := func(c string) string {
		var o, e bytes.Buffer
		require.NoError(t, generateCmd([]string{"--checkpoint", c, "--prompt", "ab", "--max-tokens", "5"}, &o, &e))
		return o.String()
	}
	a, b := gen(ckpt), gen(back)
	require.Equal(t, continuation(t, a), continuation(t, b))

	for _, args := range [][]string{{"--out", exp}, {"--checkpoint", ckpt}, {"--checkpoint", ckpt, "--out", exp, "--format", "gguf"}} {
		err := exportCmd(args, &out, &errOut)
		require.True(t, cli.IsUsage(err), "%v: %v", args, err)
	}
	require.True(t, cli.IsUsage(importCmd([]string{"--out", back}, &out, &errOut)))
	require.ErrorContains(t, importCmd([]string{"--from", exp, "--out", back}, &out, &errOut), "already holds")
}

// continuation returns the "[0] continuation: ..." line of generate's output.
func continuation(t *testing.T, s string) string {
	for _, line := range bytes.Split([]byte(s), []byte("\n")) {
		if bytes.HasPrefix(line, []byte("[0] continuation:")) {
			return string(line)
		}
	}
	t.Fatalf("no continuation line in %q", s)
	return ""
}
