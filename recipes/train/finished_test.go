package train

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
)

type fileSnap struct {
	data []byte
	mod  time.Time
}

// snapshot reads every file under dir with its modification time.
func snapshot(t *testing.T, dir string) map[string]fileSnap {
	out := map[string]fileSnap{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fileSnap{data, fi.ModTime()}
		return nil
	}))
	return out
}

// TestFinishedRunIsANoOp: rerunning a finished run returns its summary, says so, and changes no file
// (content or modification time); with Retrain it trains again from step 0.
func TestFinishedRunIsANoOp(t *testing.T) {
	out := t.TempDir()
	first, err := Train(tinyRun(t, oryx.Mamba2, out))
	require.NoError(t, err)
	before := snapshot(t, out)

	var log bytes.Buffer
	r := tinyRun(t, oryx.Mamba2, out)
	r.Log = &log
	again, err := Train(r)
	require.NoError(t, err)
	require.Contains(t, log.String(), "already finished (6 steps); --retrain to train it again from scratch")
	require.Equal(t, first.TokensPerSec, again.TokensPerSec, "the stored summary, not this process's")
	require.Equal(t, first.ValLoss, again.ValLoss)
	require.Equal(t, before, snapshot(t, out), "a rerun of a finished run changed files")

	// The user's own files beside the run, named like the run's (--retrain used to remove any
	// checkpoint-* or trainer-state-* entry): retraining removes only the names the trainer writes.
	mine := []string{"checkpoint-backup/weights.bin", "checkpoint-notes.txt", "trainer-state-mine.json",
		"trainer-state-notes.txt", "checkpoint-n0000001-old.bin", "metrics.jsonl.orig", "summary/notes.txt"}
	for _, name := range mine {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(out, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(out, name), []byte("mine"), 0o644))
	}
	r = tinyRun(t, oryx.Mamba2, out)
	r.Retrain = true
	re, err := Train(r)
	require.NoError(t, err)
	for _, name := range mine {
		data, err := os.ReadFile(filepath.Join(out, name))
		require.NoError(t, err, "--retrain removed the user's %s", name)
		require.Equal(t, "mine", string(data), name)
	}
	require.Equal(t, 0, re.ResumedAt)
	require.Equal(t, 6, re.Steps)
	require.Len(t, trainLosses(t, out), 6, "the retrained run's metrics start over")
	require.Equal(t, first.ValLoss, re.ValLoss, "the same seed retrains to the same losses")
}

// TestWarmupLongerThanRunWarns: a warm-up the run never finishes is reported.
func TestWarmupLongerThanRunWarns(t *testing.T) {
	var log bytes.Buffer
	r := tinyRun(t, oryx.Mamba2, t.TempDir())
	r.Log = &log
	r.Train.Steps, r.Train.WarmupSteps, r.Train.EvalBatches = 2, 3, 0
	_, err := Train(r)
	require.NoError(t, err)
	require.Contains(t, log.String(), "warning: the warm-up (3 steps) is longer than the run (2 steps)")
	_, _, err = rundir.ReadMetrics(r.Out)
	require.NoError(t, err)
}

// TestFinishedRunReadsOldValKeys: a multi-mixer run validates in block-random modes under the key
// block_random; a finished run directory written before that key existed ("mixed" in summary.json and
// val_loss_mixed in metrics.jsonl) reads back with block_random.
func TestFinishedRunReadsOldValKeys(t *testing.T) {
	out := t.TempDir()
	first, err := Train(tinyRun(t, oryx.OryxTG, out))
	require.NoError(t, err)
	require.Contains(t, first.ValLoss, ValBlockRandom)
	require.NotContains(t, first.ValLoss, "mixed")
	for name, rename := range map[string][2]string{
		rundir.SummaryFile: {`"block_random"`, `"mixed"`},
		rundir.MetricsFile: {`"val_loss_block_random"`, `"val_loss_mixed"`},
	} {
		p := filepath.Join(out, name)
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Contains(t, string(data), rename[0])
		require.NoError(t, os.WriteFile(p, bytes.ReplaceAll(data, []byte(rename[0]), []byte(rename[1])), 0o644))
	}
	again, err := Train(tinyRun(t, oryx.OryxTG, out))
	require.NoError(t, err)
	require.Equal(t, first.ValLoss, again.ValLoss, "the old summary's \"mixed\" reads as block_random")
	_, val, err := rundir.ReadMetrics(out)
	require.NoError(t, err)
	require.NotEmpty(t, val)
	for _, v := range val {
		require.Contains(t, v.Loss, ValBlockRandom)
		require.NotContains(t, v.Loss, "mixed")
	}
}
