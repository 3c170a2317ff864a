package oryxtest

// The tiny random-weight models that tests of the packages above oryx run on (evals, recipes, textgen): the
// "tiny" preset over the byte tokenizer.

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"
	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/require"
)

// TinyVocab is the tiny models' vocabulary: the byte tokenizer's 258 ids padded to a multiple of 64.
const TinyVocab = 320

// TinyConfig is the tiny preset of variant v with TinyVocab.
func TinyConfig(t testing.TB, v oryx.Variant) oryx.Config {
	t.Helper()
	cfg, err := oryx.Preset("tiny", v)
	require.NoError(t, err)
	cfg.Vocab = TinyVocab
	return cfg
}

// TinyModel builds a tiny model of variant v (its weights are created in the context it first runs in).
func TinyModel(t testing.TB, v oryx.Variant) *oryx.Model {
	t.Helper()
	m, err := oryx.New(TinyConfig(t, v))
	require.NoError(t, err)
	return m
}

// TinyCheckpoint writes a freshly initialised tiny checkpoint (seed 1) of variant v into a temporary directory
// named tiny-<variant> and returns its path.
func TinyCheckpoint(t testing.TB, v oryx.Variant) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny-"+string(v))
	require.NoError(t, oryx.InitCheckpoint(dir, TinyConfig(t, v), 1))
	return dir
}

// SaveCheckpoint opens dir for writing (oryx.OpenCheckpointDir), saves cfg and ctx there with
// oryx.SaveCheckpoint and closes it: one save, as the tests of a checkpoint's format need.
func SaveCheckpoint(t testing.TB, dir string, cfg oryx.Config, ctx *context.Context) error {
	return SaveCheckpointKeep(t, dir, cfg, ctx, oryx.CheckpointKeep)
}

// SaveCheckpointKeep is SaveCheckpoint keeping the keep newest checkpoints (oryx.SaveCheckpointKeep).
func SaveCheckpointKeep(t testing.TB, dir string, cfg oryx.Config, ctx *context.Context, keep int) error {
	t.Helper()
	w, err := oryx.OpenCheckpointDir(dir, oryx.CheckpointDirOptions{})
	if err != nil {
		return err
	}
	defer func() { require.NoError(t, w.Close()) }()
	return oryx.SaveCheckpointKeep(w, cfg, ctx, keep)
}

// RaceSaves saves dir's checkpoint again saves times, each save keeping only the newest checkpoint (so each
// prunes the one that was the newest an instant before, as a training with keep_checkpoints 1 does), while
// read(i) runs over and over, i = 1, 2, …, until the saves end. It returns how many reads ran, how many failed
// with the retrying loader's own error (oryx.LoadCheckpointRetrying: a newer checkpoint saved during each of
// its loads) and the other failures' messages: the reads that failed for the race.
func RaceSaves(t testing.TB, dir string, saves int, read func(i int) error) (reads, exhausted int, failures []string) {
	t.Helper()
	m, ctx, err := oryx.LoadCheckpoint(dir, nil)
	require.NoError(t, err)
	w, err := oryx.OpenCheckpointDir(dir, oryx.CheckpointDirOptions{})
	require.NoError(t, err)
	defer func() { require.NoError(t, w.Close()) }()
	done := make(chan error, 1)
	go func() {
		for step := int64(1); step <= int64(saves); step++ {
			if err := optimizers.GetGlobalStepVar(ctx).SetValue(tensors.FromValue(step)); err != nil {
				done <- err
				return
			}
			if err := oryx.SaveCheckpointKeep(w, m.Config, ctx, 1); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for running := true; running; {
		select {
		case err := <-done:
			require.NoError(t, err, "the saves")
			running = false
		default:
		}
		reads++
		err := read(reads)
		switch {
		case err == nil:
		case strings.Contains(err.Error(), "a newer checkpoint was saved during each of"):
			exhausted++
		default:
			failures = append(failures, err.Error())
		}
	}
	return reads, exhausted, failures
}
