package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// TestFrontierRerunWithOtherWeights: a frontier, then the checkpoint's weights replaced at the same step (the
// step alone kept the old points): the rerun recomputes them, naming the checkpoint hash that changed.
func TestFrontierRerunWithOtherWeights(t *testing.T) {
	ckpt := oryxtest.TinyCheckpoint(t, oryx.OryxTG)
	out := filepath.Join(t.TempDir(), "frontier")
	args := []string{"frontier", "--checkpoint", ckpt, "--tasks", "mqar", "--budgets", "0,1", "--policies", "last",
		"--examples", "2", "--seq-len", "32", "--pairs", "2", "--batch", "2", "--out", out}
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(args, &stdout, &stderr), stderr.String())
	stderr.Reset()
	require.NoError(t, run(args, &stdout, &stderr), stderr.String())
	assert.NotContains(t, stderr.String(), "frontier mqar budget:", "same weights: nothing recomputed")

	cfg, err := oryx.LoadConfig(filepath.Join(ckpt, oryx.ConfigFileName))
	require.NoError(t, err)
	other := filepath.Join(t.TempDir(), "other")
	require.NoError(t, oryx.InitCheckpoint(other, cfg, 2))
	old, _ := filepath.Glob(filepath.Join(ckpt, "checkpoint-*"))
	for _, p := range old {
		require.NoError(t, os.Remove(p))
	}
	files, _ := filepath.Glob(filepath.Join(other, "checkpoint-*"))
	require.NotEmpty(t, files)
	for _, p := range files {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(ckpt, filepath.Base(p)), data, 0o644))
	}
	stderr.Reset()
	require.NoError(t, run(args, &stdout, &stderr), stderr.String())
	assert.Contains(t, stderr.String(), "was computed with other weights")
	assert.Contains(t, stderr.String(), "frontier mqar budget:", "other weights: recomputed")
}
