package rundir

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gomlx/gomlx/pkg/ml/context/checkpoints"

	"github.com/oryx-go/oryx/internal/atomicfile"
)

// legacyTempRE matches the temporary files of an older atomic writer, "NAME.tmp-N" (trainer states, run.json,
// summary.json, metrics.jsonl, config.json): a run directory written before the writers shared
// internal/atomicfile may still hold them.
var legacyTempRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+\.(json|jsonl|png)\.tmp-[0-9]+$`)

// CleanLeftovers removes from a run directory what saves interrupted by a kill leave behind and no complete
// file uses: checkpoint staging folders (StagingPrefix, each a whole checkpoint's worth of data — about 17 GB
// at 1.4B parameters), the temporary files of atomic writes (atomicfile.IsTemp: ".config.json.tmp-N",
// ".run.json.tmp-N", ".curves.png.tmp-N", ...; and the older writer's "NAME.tmp-N") and checkpoint data
// files whose .json was never moved in (the save died between its two renames, so the checkpoint was never
// listed). It returns the names removed.
//
// Only the directory's one writer may call it — after taking its lock (AcquireLock) — since another
// process's save in progress looks exactly like a leftover.
func CleanLeftovers(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasPrefix(n, CheckpointPrefix) && strings.HasSuffix(n, checkpoints.JsonNameSuffix) {
			listed[strings.TrimSuffix(n, checkpoints.JsonNameSuffix)] = true
		}
	}
	var removed []string
	for _, e := range entries {
		n := e.Name()
		leftover := false
		switch {
		case e.IsDir():
			leftover = strings.HasPrefix(n, StagingPrefix)
		case !e.Type().IsRegular():
		case isTemp(n):
			leftover = true
		case strings.HasPrefix(n, CheckpointPrefix) && strings.HasSuffix(n, checkpoints.BinDataSuffix):
			leftover = !listed[strings.TrimSuffix(n, checkpoints.BinDataSuffix)]
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

// isTemp reports whether name is the temporary file of an atomic write.
func isTemp(name string) bool {
	_, ok := atomicfile.IsTemp(name)
	return ok || legacyTempRE.MatchString(name)
}
