package evalrun

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/leaderboard"
	"github.com/oryx-go/oryx/evals/lmeval"
	"github.com/oryx-go/oryx/oryx"
)

// replaceWeights puts the checkpoint files of a model initialised with another seed into dir, keeping its
// config.json and its step: other weights at the same step.
func replaceWeights(t *testing.T, dir string, seed int64) {
	t.Helper()
	cfg, err := oryx.LoadConfig(filepath.Join(dir, oryx.ConfigFileName))
	require.NoError(t, err)
	other := filepath.Join(t.TempDir(), "other")
	require.NoError(t, oryx.InitCheckpoint(other, cfg, seed))
	old, err := filepath.Glob(filepath.Join(dir, "checkpoint-*"))
	require.NoError(t, err)
	for _, p := range old {
		require.NoError(t, os.Remove(p))
	}
	files, err := filepath.Glob(filepath.Join(other, "checkpoint-*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, p := range files {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(p)), data, 0o644))
	}
}

// TestRerunRecomputesOnOtherWeightsOrData runs the exact inputs of the reuse rule: a task is scored, then the
// checkpoint's weights are replaced at the same step (the step alone kept the old scores) and the task's data
// file is rewritten, then another data root is given: each rerun recomputes, naming what changed, and a rerun
// with nothing changed keeps it.
func TestRerunRecomputesOnOtherWeightsOrData(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, lmeval.DefaultPaths[lmeval.PIQA])
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, parquet.WriteFile(p, []piqaRow{{"a b", "c", "d", 0}, {"e", "f g", "h", 1}}))
	ck := tinyCheckpoint(t, oryx.OryxTG)
	out := filepath.Join(t.TempDir(), "run.json")
	var log bytes.Buffer
	o := Options{Checkpoint: ck, Tasks: "piqa", Harness: harness.Config{DataRoot: root}, DataRootSource: "flag",
		Batch: 4, Out: out, Log: &log}
	_, err := Run(context.Background(), o)
	require.NoError(t, err)
	rf, err := leaderboard.ReadResultsFile(out)
	require.NoError(t, err)
	hash := rf.CheckpointHash
	require.True(t, strings.HasPrefix(hash, "sha256:"), hash)
	require.True(t, strings.HasPrefix(rf.Tasks["piqa"].DataHash, "sha256:"), rf.Tasks["piqa"].DataHash)
	step := rf.CheckpointStep

	rerun := func() string {
		log.Reset()
		_, err := Run(context.Background(), o)
		require.NoError(t, err)
		return log.String()
	}
	assert.Contains(t, rerun(), "piqa: already in", "nothing changed: kept")

	replaceWeights(t, ck, 2)
	got := rerun()
	assert.Contains(t, got, "were scored with other weights")
	assert.Contains(t, got, hash)
	assert.NotContains(t, got, "already in")
	rf, err = leaderboard.ReadResultsFile(out)
	require.NoError(t, err)
	assert.Equal(t, step, rf.CheckpointStep, "the same step")
	assert.NotEqual(t, hash, rf.CheckpointHash)
	assert.Contains(t, rerun(), "piqa: already in")

	require.NoError(t, parquet.WriteFile(p, []piqaRow{{"a b", "c", "d", 1}, {"e", "f g", "h", 1}}))
	got = rerun()
	assert.Contains(t, got, "its data file "+p+" changed since it was scored")
	assert.NotContains(t, got, "already in")
	assert.Contains(t, rerun(), "piqa: already in")

	// Another data root: the task reads another file now (a copy with the same rows: the identity is the
	// file scored, not only its content); the recorded file, unchanged, kept the old score.
	root2 := t.TempDir()
	p2 := filepath.Join(root2, lmeval.DefaultPaths[lmeval.PIQA])
	require.NoError(t, os.MkdirAll(filepath.Dir(p2), 0o755))
	require.NoError(t, parquet.WriteFile(p2, []piqaRow{{"a b", "c", "d", 1}, {"e", "f g", "h", 1}}))
	o.Harness.DataRoot = root2
	got = rerun()
	assert.Contains(t, got, "it was scored on "+p+", this run reads "+p2)
	assert.NotContains(t, got, "already in")
	assert.Contains(t, rerun(), "piqa: already in")

	// A results file from before identities were recorded is not trusted either.
	rf, err = leaderboard.ReadResultsFile(out)
	require.NoError(t, err)
	rf.Tasks["piqa"].DataHash = ""
	require.NoError(t, rf.WriteFile(out))
	assert.Contains(t, rerun(), "records no identity of its data file")
	rf, err = leaderboard.ReadResultsFile(out)
	require.NoError(t, err)
	rf.CheckpointHash = ""
	require.NoError(t, rf.WriteFile(out))
	assert.Contains(t, rerun(), "hash not recorded")
}
