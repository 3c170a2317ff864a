package rundir

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// TestClaimRefusesOtherCommandsOutput: each kind is recognised by its files, a directory of another kind is
// refused with the path and what it holds, its own kind and an absent or empty directory are accepted, and
// --force skips the check.
func TestClaimRefusesOtherCommandsOutput(t *testing.T) {
	root := t.TempDir()
	run := filepath.Join(root, "run")
	write(t, filepath.Join(run, ConfigFile), `{"variant": "gdn", "d_model": 64}`)
	write(t, filepath.Join(run, "checkpoint-n0000001-s00000010.json"), `{}`)
	exp := filepath.Join(root, "export")
	write(t, filepath.Join(exp, ConfigFile), `{"architectures": ["OryxForCausalLM"], "oryx_config": {}}`)
	write(t, filepath.Join(exp, ExportWeightsFile), "x")
	corpus := filepath.Join(root, "corpus")
	write(t, filepath.Join(corpus, CorpusManifestFile), `{}`)
	write(t, filepath.Join(corpus, "tokens-00000.parquet"), "x")

	for _, c := range []struct {
		dir  string
		have Kind
	}{{run, KindRun}, {exp, KindExport}, {corpus, KindCorpus}} {
		h, err := Classify(c.dir)
		require.NoError(t, err)
		assert.Equal(t, []Kind{c.have}, h.Kinds, c.dir)
		require.NoError(t, Claim("--out", c.dir, c.have, false), "its own kind: a rerun")
		for _, want := range []Kind{KindRun, KindExport, KindCorpus, KindStudy, KindFrontier, KindSwitch} {
			if want == c.have {
				continue
			}
			err := Claim("--out", c.dir, want, false)
			require.Error(t, err, "%s into %s", want, c.have)
			assert.ErrorContains(t, err, "--out "+c.dir+" holds "+string(c.have))
			assert.ErrorContains(t, err, "--force")
			assert.NoError(t, Claim("--out", c.dir, want, true))
		}
	}
	require.NoError(t, Claim("--out", filepath.Join(root, "absent"), KindExport, false))
	empty := filepath.Join(root, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	require.NoError(t, Claim("--out", empty, KindRun, false))
	// A directory of no kind holding a file the writer would replace (an unrelated config.json).
	other := filepath.Join(root, "other")
	write(t, filepath.Join(other, ConfigFile), `{"editor": "vim"}`)
	assert.ErrorContains(t, Claim("--out", other, KindExport, false), "config.json, which writing an export there would replace")
	// A file, not a directory.
	assert.ErrorContains(t, Claim("--out", filepath.Join(run, ConfigFile), KindRun, false), "not a directory")
}

// TestClaimFile: a results file may go beside another command's output under a name that output's writer
// does not write, never over a file that is not its own kind or anything but a regular file; an `evals`
// results file named run.json does not make its directory a run directory.
func TestClaimFile(t *testing.T) {
	root := t.TempDir()
	run := filepath.Join(root, "run")
	write(t, filepath.Join(run, ConfigFile), `{"variant": "gdn", "d_model": 64}`)
	write(t, filepath.Join(run, RunFile), `{"model": {}, "train": {}}`)
	isResults := func(path string) error {
		b, err := os.ReadFile(path)
		if err == nil && string(b) != "results" {
			return os.ErrInvalid
		}
		return err
	}
	assert.ErrorContains(t, ClaimFile("--out", filepath.Join(run, MetricsFile), "a results file", isResults, false),
		"whose writer writes metrics.jsonl")
	assert.ErrorContains(t, ClaimFile("--out", filepath.Join(run, ConfigFile), "a results file", isResults, false),
		"refusing")
	require.NoError(t, ClaimFile("--out", filepath.Join(run, "scores.json"), "a results file", isResults, false))
	require.NoError(t, ClaimFile("--out", filepath.Join(run, MetricsFile), "a results file", isResults, true))

	plain := filepath.Join(root, "plain")
	write(t, filepath.Join(plain, RunFile), "results")
	h, err := Classify(plain)
	require.NoError(t, err)
	assert.Empty(t, h.Kinds, "a results file named run.json is not a run's record")
	require.NoError(t, ClaimFile("--out", filepath.Join(plain, RunFile), "a results file", isResults, false))
	write(t, filepath.Join(plain, "notes.json"), "mine")
	assert.ErrorContains(t, ClaimFile("--out", filepath.Join(plain, "notes.json"), "a results file", isResults, false),
		"exists and is not a results file")
	fifo := filepath.Join(plain, "fifo.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	assert.ErrorContains(t, ClaimFile("--out", fifo, "a results file", isResults, false), "named pipe")
}

// TestLockRefusesPlantedLink: a symbolic link planted at the lock's path is refused and its target is left
// as it was (it used to be truncated and overwritten with the lock record).
func TestLockRefusesPlantedLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "precious.txt")
	write(t, target, "keep me")
	require.NoError(t, os.Symlink(target, filepath.Join(dir, LockFile)))
	_, err := AcquireLock(dir, "test", nil)
	require.ErrorContains(t, err, "symbolic link")
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "keep me", string(b))
}
