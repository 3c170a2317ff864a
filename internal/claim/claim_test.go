package claim

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/rundir"
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
	write(t, filepath.Join(run, rundir.ConfigFile), `{"variant": "gdn", "d_model": 64}`)
	write(t, filepath.Join(run, "checkpoint-n0000001-s00000010.json"), `{}`)
	exp := filepath.Join(root, "export")
	write(t, filepath.Join(exp, rundir.ConfigFile), `{"architectures": ["OryxForCausalLM"], "oryx_config": {}}`)
	write(t, filepath.Join(exp, ExportWeightsFile), "x")
	corpus := filepath.Join(root, "corpus")
	write(t, filepath.Join(corpus, CorpusManifestFile), `{}`)
	write(t, filepath.Join(corpus, "tokens-00000.parquet"), "x")

	for _, c := range []struct {
		dir  string
		have Kind
	}{{run, RunDir}, {exp, Export}, {corpus, Corpus}} {
		h, err := Classify(c.dir)
		require.NoError(t, err)
		assert.Equal(t, []Kind{c.have}, h.Kinds, c.dir)
		require.NoError(t, Dir("--out", c.dir, c.have, false), "its own kind: a rerun")
		for _, want := range []Kind{RunDir, Export, Corpus, Study, Frontier, Switch} {
			if want == c.have {
				continue
			}
			err := Dir("--out", c.dir, want, false)
			require.Error(t, err, "%s into %s", want, c.have)
			assert.ErrorContains(t, err, "--out "+c.dir+" holds "+string(c.have))
			assert.ErrorContains(t, err, "--force")
			assert.NoError(t, Dir("--out", c.dir, want, true))
		}
	}
	require.NoError(t, Dir("--out", filepath.Join(root, "absent"), Export, false))
	empty := filepath.Join(root, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	require.NoError(t, Dir("--out", empty, RunDir, false))
	// A directory of no kind holding a file the writer would replace (an unrelated config.json).
	other := filepath.Join(root, "other")
	write(t, filepath.Join(other, rundir.ConfigFile), `{"editor": "vim"}`)
	assert.ErrorContains(t, Dir("--out", other, Export, false), "config.json, which writing an export there would replace")
	// Names like a run's that its writers do not write ("checkpoint-backup/", "trainer-state-notes.txt")
	// do not make the directory a run directory: a run would replace the user's config.json there.
	lookalike := filepath.Join(root, "lookalike")
	write(t, filepath.Join(lookalike, rundir.ConfigFile), `{"editor": "vim"}`)
	write(t, filepath.Join(lookalike, "checkpoint-backup", "weights.bin"), "mine")
	write(t, filepath.Join(lookalike, "checkpoint-notes.json"), "mine")
	write(t, filepath.Join(lookalike, "trainer-state-notes.txt"), "mine")
	h, err := Classify(lookalike)
	require.NoError(t, err)
	assert.Empty(t, h.Kinds, "look-alike names are not a run's")
	assert.ErrorContains(t, Dir("--out", lookalike, RunDir, false),
		"--out "+lookalike+" holds config.json, which writing a run directory there would replace")
	// A file, not a directory.
	assert.ErrorContains(t, Dir("--out", filepath.Join(run, rundir.ConfigFile), RunDir, false), "not a directory")
}

// TestClaimFile: a results file may go beside another command's output under a name that output's writer
// does not write, never over a file that is not its own kind or anything but a regular file; an `evals`
// results file named run.json does not make its directory a run directory.
func TestClaimFile(t *testing.T) {
	root := t.TempDir()
	run := filepath.Join(root, "run")
	write(t, filepath.Join(run, rundir.ConfigFile), `{"variant": "gdn", "d_model": 64}`)
	write(t, filepath.Join(run, rundir.RunFile), `{"model": {}, "train": {}}`)
	isResults := func(path string) error {
		b, err := os.ReadFile(path)
		if err == nil && string(b) != "results" {
			return os.ErrInvalid
		}
		return err
	}
	assert.ErrorContains(t, File("--out", filepath.Join(run, rundir.MetricsFile), "a results file", isResults, false),
		"whose writer writes metrics.jsonl")
	assert.ErrorContains(t, File("--out", filepath.Join(run, rundir.ConfigFile), "a results file", isResults, false),
		"refusing")
	require.NoError(t, File("--out", filepath.Join(run, "scores.json"), "a results file", isResults, false))
	require.NoError(t, File("--out", filepath.Join(run, rundir.MetricsFile), "a results file", isResults, true))

	plain := filepath.Join(root, "plain")
	write(t, filepath.Join(plain, rundir.RunFile), "results")
	h, err := Classify(plain)
	require.NoError(t, err)
	assert.Empty(t, h.Kinds, "a results file named run.json is not a run's record")
	require.NoError(t, File("--out", filepath.Join(plain, rundir.RunFile), "a results file", isResults, false))
	write(t, filepath.Join(plain, "notes.json"), "mine")
	assert.ErrorContains(t, File("--out", filepath.Join(plain, "notes.json"), "a results file", isResults, false),
		"exists and is not a results file")
	fifo := filepath.Join(plain, "fifo.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	assert.ErrorContains(t, File("--out", fifo, "a results file", isResults, false), "named pipe")
}
