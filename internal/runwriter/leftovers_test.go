package runwriter_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/internal/runwriter"
	"github.com/oryx-go/oryx/oryx"
)

// TestCleanLeftovers: what kills during saves leave — a checkpoint's staging folder, a data file whose .json
// never arrived, the temporary files of atomic writes under their real temporary names (each left by a write
// through internal/atomicfile, the writer of oryx.SaveConfig and of the trainer's files, killed in the middle)
// and an older writer's "NAME.tmp-N" — is removed; the complete checkpoints stay and load, other files stay.
func TestCleanLeftovers(t *testing.T) {
	dir := t.TempDir()
	cfg, err := oryx.Preset("tiny", oryx.Transformer)
	require.NoError(t, err)
	require.NoError(t, oryx.InitCheckpoint(dir, cfg, 1))
	names, err := oryx.ListCheckpoints(dir)
	require.NoError(t, err)
	require.Len(t, names, 1)

	staging := filepath.Join(dir, rundir.StagingPrefix+"123")
	require.NoError(t, os.MkdirAll(staging, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(staging, "checkpoint-n0000000-x.bin"), []byte("data"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, rundir.ConfigFile+".tmp-99"), []byte("{"), 0o600))
	var temps []string
	for _, name := range []string{rundir.ConfigFile, rundir.RunFile, rundir.SummaryFile, rundir.CurvesFile, rundir.StateFileName(4)} {
		temps = append(temps, killedWrite(t, dir, name))
	}
	orphan := "checkpoint-n0000009-20260101-000000-step-00000009.bin"
	require.NoError(t, os.WriteFile(filepath.Join(dir, orphan), []byte("data"), 0o644))
	other := filepath.Join(dir, "notes.txt") // not ours: kept
	require.NoError(t, os.WriteFile(other, []byte("x"), 0o644))
	// Names like the leftovers' that the run directory's writers never write: a user's (or another command's)
	// files, kept: no cleanup removes a name it did not create.
	mine := []string{"checkpoint-backup.bin", "checkpoint-n0000003-mine.bin", ".notes.txt.tmp-3", "notes.json.tmp-4",
		"." + rundir.ConfigFile + ".tmp-x", ".results_2026.json.tmp-12"}
	for _, name := range mine {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("mine"), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, rundir.StagingPrefix+"mine", "keep"), 0o755))
	mine = append(mine, rundir.StagingPrefix+"mine")

	removed, err := runwriter.CleanLeftovers(dir)
	require.NoError(t, err)
	require.ElementsMatch(t, append([]string{rundir.StagingPrefix + "123", rundir.ConfigFile + ".tmp-99", orphan}, temps...), removed)
	require.NoDirExists(t, staging)
	require.FileExists(t, other)
	for _, name := range mine {
		_, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err, "%s is not a leftover of ours", name)
	}
	require.FileExists(t, filepath.Join(dir, names[0]+".bin"))
	_, _, err = oryx.LoadCheckpoint(dir, nil)
	require.NoError(t, err)

	removed, err = runwriter.CleanLeftovers(dir)
	require.NoError(t, err)
	require.Empty(t, removed, "nothing left to clean")
}

// killedWrite starts an atomic write of dir/name that dies before its rename, as a killed process's does, and
// returns the temporary file it leaves (the writer's own name for it, checked by atomicfile.IsTemp).
func killedWrite(t *testing.T, dir, name string) string {
	t.Helper()
	before := entries(t, dir)
	func() {
		defer func() { _ = recover() }()
		_ = atomicfile.Write(filepath.Join(dir, name), func(w io.Writer) error {
			_, _ = w.Write([]byte("partial"))
			panic("killed during the write")
		})
	}()
	var left []string
	for n := range entries(t, dir) {
		if !before[n] {
			left = append(left, n)
		}
	}
	require.Len(t, left, 1, "the killed write of %s leaves its temporary file", name)
	dest, ok := atomicfile.IsTemp(left[0])
	require.True(t, ok, left[0])
	require.Equal(t, name, dest)
	return left[0]
}

func entries(t *testing.T, dir string) map[string]bool {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := map[string]bool{}
	for _, e := range es {
		out[e.Name()] = true
	}
	return out
}
