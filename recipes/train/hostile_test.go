package train

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/internal/runwriter"
	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/require"
)

// TestConcurrentRunsOneDirectory: two runs started at the same moment on one --out — which both succeeded
// and left a directory mixing them — now give one complete run and one clear refusal.
func TestConcurrentRunsOneDirectory(t *testing.T) {
	out := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	start := make(chan struct{})
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := tinyRun(t, oryx.Transformer, out)
			r.Train.Steps, r.Train.EvalBatches = 2, 0
			<-start
			_, errs[i] = Train(r)
		}()
	}
	close(start)
	wg.Wait()
	ok, busy := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, runwriter.ErrBusy):
			busy++
			// The holder is named once its record is written; a refusal in the instant before says "another process".
			require.ErrorContains(t, err, "--out: run directory in use: "+out+" is being written by ")
		default:
			t.Fatalf("unexpected error: %v", err)
		}
	}
	require.Equal(t, 1, ok, "one run completes")
	require.Equal(t, 1, busy, "the other is refused")
	require.NoFileExists(t, filepath.Join(out, rundir.LockFile), "the lock is released at the end")
}

// TestStartupCleansLeftovers: staging folders and temporary files left by kills during a save are removed
// when the next run starts in the directory (it holds the lock, so they are nobody's), with a message.
func TestStartupCleansLeftovers(t *testing.T) {
	out := t.TempDir()
	leftovers := []string{".staging-4242", "trainer-state-00000002.json.tmp-123", "run.json.tmp-9", ".curves.png.tmp-77",
		"config.json.tmp-5"}
	require.NoError(t, os.MkdirAll(filepath.Join(out, leftovers[0]), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(out, leftovers[0], "checkpoint-n0000000-x.bin"), make([]byte, 1024), 0o644))
	for _, n := range leftovers[1:] {
		require.NoError(t, os.WriteFile(filepath.Join(out, n), []byte("partial"), 0o600))
	}
	var log bytes.Buffer
	r := tinyRun(t, oryx.Mamba2, out)
	r.Train.Steps, r.Train.EvalBatches, r.Log = 2, 0, &log
	_, err := Train(r)
	require.NoError(t, err)
	require.Contains(t, log.String(), out+": removed 5 leftover(s) of interrupted saves")
	for _, n := range leftovers {
		require.Contains(t, log.String(), n)
		require.NoFileExists(t, filepath.Join(out, n))
		require.NoDirExists(t, filepath.Join(out, n))
	}
}

// TestSignalAfterCheckpointNoDuplicate: SIGTERM right after a checkpoint step does not save that step again
// (the duplicate evicted an older checkpoint).
func TestSignalAfterCheckpointNoDuplicate(t *testing.T) {
	out := t.TempDir()
	r := tinyRun(t, oryx.Transformer, out)
	r.Train.EvalBatches, r.Train.KeepCheckpoints = 0, 2
	_, err := train(r, &testControl{interruptAt: 4}) // checkpoints at steps 2 and 4, then the signal
	require.ErrorIs(t, err, ErrInterrupted)
	names, err := oryx.ListCheckpoints(out)
	require.NoError(t, err)
	require.Len(t, names, 2)
	require.Contains(t, names[0], "step-00000002", "the older checkpoint was not evicted by a duplicate")
	require.Contains(t, names[1], "step-00000004")
}

// TestRunDirectoryHoldsItsTokenizer: the run copies its tokenizer file into the run directory and run.json
// names the copy, which is what later commands read (inside the directory).
func TestRunDirectoryHoldsItsTokenizer(t *testing.T) {
	src := filepath.Join(t.TempDir(), "gpt-neox-20b", "tokenizer.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(src), 0o755))
	require.NoError(t, os.WriteFile(src, []byte(`{"model": {}}`), 0o600))
	out := t.TempDir()
	rel, err := rundir.CopyTokenizer(out, src, "gpt-neox-20b")
	require.NoError(t, err)
	require.Equal(t, filepath.Join("tokenizer", "gpt-neox-20b.json"), rel)
	data, err := os.ReadFile(filepath.Join(out, rel))
	require.NoError(t, err)
	require.Equal(t, `{"model": {}}`, string(data))
	again, err := rundir.CopyTokenizer(out, filepath.Join(out, rel), "gpt-neox-20b")
	require.NoError(t, err, "training with the run's own copy")
	require.Equal(t, rel, again)
	rel2, err := rundir.CopyTokenizer(out, src, "../../evil")
	require.NoError(t, err)
	require.Equal(t, filepath.Join("tokenizer", "tokenizer.json"), rel2, "an odd name cannot leave the directory")

	r := tinyRun(t, oryx.Transformer, out)
	r.Tokenizer = src
	require.NoError(t, writeRunJSON(r, "go", rel))
	var rec map[string]any
	data, err = os.ReadFile(filepath.Join(out, "run.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rec))
	require.Equal(t, src, rec["tokenizer"])
	require.Equal(t, rel, rec["tokenizer_file"])
	spec, err := rundir.Tokenizer(out)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(out, rel), spec)
	require.True(t, strings.HasSuffix(spec, "gpt-neox-20b.json"))
	data2, seqLen, ok := rundir.TrainedOn(out)
	require.True(t, ok)
	require.Equal(t, r.Data.Spec, data2)
	require.Equal(t, r.Train.SeqLen, seqLen)
	require.Equal(t, "go", rec["backend"])
	require.Equal(t, r.Name, rec["name"])
	require.Contains(t, rec, "model")
}
