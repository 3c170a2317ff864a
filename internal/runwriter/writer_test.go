package runwriter

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/rundir"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// TestOpenClaimsLocksAndCleans: Open refuses another command's output (naming the flag, the path and what it
// holds) unless forced, refuses a directory another writer holds (naming the holder), removes the leftovers of
// killed saves saying so, and its Writer is refused once closed.
func TestOpenClaimsLocksAndCleans(t *testing.T) {
	root := t.TempDir()
	exp := filepath.Join(root, "export")
	writeFile(t, filepath.Join(exp, "model.safetensors"), "x")
	_, err := Open(exp, Options{Flag: "import: --out"})
	require.ErrorContains(t, err, "import: --out "+exp+" holds an export")
	require.NoFileExists(t, filepath.Join(exp, rundir.LockFile))
	w, err := Open(exp, Options{Flag: "import: --out", Force: true})
	require.NoError(t, err)
	require.NoError(t, w.Close())

	run := filepath.Join(root, "run")
	writeFile(t, filepath.Join(run, ".staging-42", "x.bin"), "partial")
	writeFile(t, filepath.Join(run, ".run.json.tmp-7"), "{")
	var log bytes.Buffer
	w, err = Open(run, Options{Flag: "--out", Command: "trainer", Log: &log})
	require.NoError(t, err)
	require.Contains(t, log.String(), "removed 2 leftover(s) of interrupted saves")
	require.Equal(t, []string{rundir.LockFile}, names(t, run))
	require.NoError(t, w.Check())
	require.Equal(t, run, w.Dir())

	_, err = Open(run, Options{Flag: "--out", Command: "second"})
	require.ErrorIs(t, err, ErrBusy)
	require.ErrorContains(t, err, "--out: run directory in use: "+run)
	require.ErrorContains(t, err, "(trainer)")

	require.NoError(t, w.Close())
	require.NoError(t, w.Close(), "a second Close does nothing")
	require.ErrorIs(t, w.Check(), ErrNotOpen)
	require.ErrorContains(t, w.Check(), run)
	require.ErrorIs(t, (*Writer)(nil).Check(), ErrNotOpen)
	require.ErrorIs(t, w.RemoveRun(), ErrNotOpen)
}

// TestCloseRemovesOnlyWhatOpenCreated: a directory Open created and nothing was written to is removed again
// on Close (a refused import leaves nothing); a directory that was there, or that holds a file, stays.
func TestCloseRemovesOnlyWhatOpenCreated(t *testing.T) {
	fresh := filepath.Join(t.TempDir(), "fresh")
	w, err := Open(fresh, Options{})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	require.NoDirExists(t, fresh)

	w, err = Open(fresh, Options{})
	require.NoError(t, err)
	writeFile(t, filepath.Join(fresh, rundir.ConfigFile), `{"variant": "gdn", "d_model": 8}`)
	require.NoError(t, w.Close())
	require.FileExists(t, filepath.Join(fresh, rundir.ConfigFile))

	existing := t.TempDir()
	w, err = Open(existing, Options{})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	require.DirExists(t, existing)
}

// TestRemoveRunExactNames: a retrain removes the run's checkpoints, trainer states, metrics, curves and
// summary — by their exact names, regular files only — and keeps everything else, the user's look-alikes
// included; an entry of one of those names that is not a regular file is refused, naming it.
func TestRemoveRunExactNames(t *testing.T) {
	dir := t.TempDir()
	ours := []string{"checkpoint-n0000003-20260101-120000-step-00000010.json",
		"checkpoint-n0000003-20260101-120000-step-00000010.bin", "checkpoint-n0000000-20260101-115900-initial.bin",
		rundir.StateFileName(10), rundir.MetricsFile, rundir.SummaryFile, rundir.CurvesFile}
	kept := []string{rundir.ConfigFile, rundir.RunFile, "tokenizer/bytes.json", "checkpoint-backup/weights.bin",
		"checkpoint-notes.txt", "checkpoint-n0000001-old.bin", "trainer-state-mine.json", "trainer-state-notes.txt", "trainer-state-123.json",
		"metrics.jsonl.orig", "notes.txt"}
	for _, n := range append(append([]string{}, ours...), kept...) {
		writeFile(t, filepath.Join(dir, n), "x")
	}
	w, err := Open(dir, Options{Force: true})
	require.NoError(t, err)
	defer w.Close()
	require.NoError(t, w.RemoveRun())
	for _, n := range ours {
		require.NoFileExists(t, filepath.Join(dir, n))
	}
	for _, n := range kept {
		require.FileExists(t, filepath.Join(dir, n))
	}

	require.NoError(t, os.Mkdir(filepath.Join(dir, rundir.SummaryFile), 0o755))
	writeFile(t, filepath.Join(dir, rundir.CurvesFile), "x")
	err = w.RemoveRun()
	require.ErrorContains(t, err, filepath.Join(dir, rundir.SummaryFile)+" is a directory, not a file the run wrote: refusing to remove it")
	require.DirExists(t, filepath.Join(dir, rundir.SummaryFile))
	require.FileExists(t, filepath.Join(dir, rundir.CurvesFile), "a refused retrain removes nothing")
}
