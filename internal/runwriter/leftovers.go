package runwriter

import (
	"os"
	"path/filepath"
	"regexp"

	"github.com/gomlx/gomlx/pkg/ml/context/checkpoints"

	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/rundir"
)

// legacyTempRE matches the temporary files of an older atomic writer, "NAME.tmp-N" (trainer states, run.json,
// summary.json, metrics.jsonl, config.json): a run directory written before the writers shared
// internal/atomicfile may still hold them.
var legacyTempRE = regexp.MustCompile(`^(.+)\.tmp-[0-9]+$`)

// cleanLeftovers removes from a run directory what saves interrupted by a kill leave behind and no complete
// file uses: checkpoint staging folders (rundir.IsStagingDir, each a whole checkpoint's worth of data — about
// 17 GB at 1.4B parameters), the temporary files of the atomic writes of the directory's own files
// (rundir.WrittenAtomically; atomicfile.IsTemp: ".config.json.tmp-N", ".run.json.tmp-N",
// ".curves.png.tmp-N", ...; and the older writer's "NAME.tmp-N") and checkpoint data files whose .json was
// never moved in (the save died between its two renames, so the checkpoint was never listed). Only those
// exact names are removed: a name like them that the directory's writers do not write ("checkpoint-backup.bin",
// ".notes.txt.tmp-1", an evaluation's ".results_X.json.tmp-N" beside the run) is someone else's. It returns
// the names removed.
//
// Only the directory's one writer may call it — after taking its lock (Open) — since another process's save
// in progress looks exactly like a leftover.
func cleanLeftovers(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	for _, e := range entries {
		if base, suffix, ok := rundir.IsCheckpointFile(e.Name()); ok && !e.IsDir() && suffix == checkpoints.JsonNameSuffix {
			listed[base] = true
		}
	}
	var removed []string
	for _, e := range entries {
		n := e.Name()
		leftover := false
		switch {
		case e.IsDir():
			leftover = rundir.IsStagingDir(n)
		case !e.Type().IsRegular():
		case isTemp(n):
			leftover = true
		default:
			base, suffix, ok := rundir.IsCheckpointFile(n)
			leftover = ok && suffix == checkpoints.BinDataSuffix && !listed[base]
		}
		if !leftover {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, n)); err != nil {
			return removed, err
		}
		removed = append(removed, n)
	}
	return removed, nil
}

// isTemp reports whether name is the temporary file of an atomic write of one of the run directory's files.
func isTemp(name string) bool {
	if dest, ok := atomicfile.IsTemp(name); ok {
		return rundir.WrittenAtomically(dest)
	}
	m := legacyTempRE.FindStringSubmatch(name)
	return m != nil && rundir.WrittenAtomically(m[1])
}
