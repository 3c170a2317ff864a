package train

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
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

// byteLevelTokenizer writes a tokenizer.json under dir/name: a byte-level BPE with one token per byte (GPT-2's
// byte-to-character map) and <|endoftext|>, no merges; offset shifts the byte tokens' ids, so that two files of
// different offsets are different tokenizers of the same vocabulary size.
func byteLevelTokenizer(t *testing.T, dir, name string, offset int) string {
	var bs []int
	for b := 0; b < 256; b++ {
		if b >= '!' && b <= '~' || b >= 0xa1 && b <= 0xac || b >= 0xae {
			bs = append(bs, b)
		}
	}
	chars := map[int]rune{}
	for _, b := range bs {
		chars[b] = rune(b)
	}
	n := 0
	for b := 0; b < 256; b++ {
		if _, ok := chars[b]; !ok {
			chars[b] = rune(256 + n)
			n++
		}
	}
	vocab := map[string]int{}
	for b := 0; b < 256; b++ {
		vocab[string(chars[b])] = (b+offset)%256 + 1
	}
	vocab["<|endoftext|>"] = 0
	doc := map[string]any{
		"version":       "1.0",
		"added_tokens":  []any{map[string]any{"id": 0, "content": "<|endoftext|>", "special": true}},
		"normalizer":    nil,
		"pre_tokenizer": map[string]any{"type": "ByteLevel", "add_prefix_space": false},
		"decoder":       map[string]any{"type": "ByteLevel"},
		"model":         map[string]any{"type": "BPE", "vocab": vocab, "merges": []string{}},
	}
	data, err := json.Marshal(doc)
	require.NoError(t, err)
	path := filepath.Join(dir, name, "tokenizer.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// TestCheckpointOfAnotherRun: "is the newest checkpoint in --out this run's?" is answered once (runCheckpoint),
// before anything is written. Asked with another trajectory, data or model, a finished run (the same --steps)
// and a run to continue (more --steps) are refused with the same reason, and the directory is left as it was —
// the run's copy of its tokenizer included, which a refused run used to overwrite with its own --tokenizer
// (the finished-run check answered "not finished" without a reason, and the refusal came after the copy).
func TestCheckpointOfAnotherRun(t *testing.T) {
	toks := t.TempDir()
	run := func(out string) Run {
		r := tinyRun(t, oryx.Mamba2, out)
		r.Train.Steps, r.Train.EvalBatches, r.Train.LRSchedule = 2, 0, LRConstant
		r.Tokenizer = byteLevelTokenizer(t, toks, "bytelevel", 0)
		return r
	}
	out := t.TempDir()
	_, err := Train(run(out))
	require.NoError(t, err)
	st, err := runCheckpoint(run(out))
	require.NoError(t, err)
	require.Equal(t, 2, st.Step, "the run's own checkpoint")
	st, err = runCheckpoint(run(t.TempDir()))
	require.NoError(t, err)
	require.Nil(t, st, "no checkpoint: a fresh run")
	// Each file's content hash and modification time (a failure then prints short lines).
	digest := func() map[string]string {
		m := map[string]string{}
		for p, f := range snapshot(t, out) {
			m[p] = fmt.Sprintf("%x %s", sha256.Sum256(f.data), f.mod)
		}
		return m
	}
	before := digest()
	require.Contains(t, before, filepath.Join(out, rundir.TokenizerDir, "bytelevel.json"))

	other := byteLevelTokenizer(t, filepath.Join(toks, "other"), "bytelevel", 7) // the same name, other ids
	for _, c := range []struct {
		name, want string
		edit       func(r *Run)
	}{
		{"trajectory", "the training config differs from the checkpoint's (checkpoint vs now): lr: 0.003 vs 0.01",
			func(r *Run) { r.Train.LR = 1e-2 }},
		{"data", `--data "synth:3" differs from the checkpoint's "synth"`, func(r *Run) { r.Data.Spec = "synth:3" }},
		{"model", "the model config differs from the checkpoint's (checkpoint vs now): mlp_hidden", func(r *Run) { r.Model.MLPHidden *= 2 }},
	} {
		for _, steps := range []int{2, 4} {
			r := run(out)
			r.Tokenizer, r.Train.Steps = other, steps
			c.edit(&r)
			_, err := runCheckpoint(r)
			require.ErrorContains(t, err, c.want, "%s, %d steps: runCheckpoint", c.name, steps)
			_, err = Train(r)
			require.ErrorContains(t, err, "resuming from "+out+": "+c.want, "%s, %d steps: Train", c.name, steps)
			require.Equal(t, before, digest(), "%s, %d steps: the refused run changed the directory", c.name, steps)
		}
	}
	s, err := Train(run(out))
	require.NoError(t, err, "the run itself is still finished")
	require.Equal(t, 2, s.Steps)
}
