package oryx

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/gomlx/gomlx/pkg/ml/context/checkpoints"
)

// CleanLeftovers removes from a checkpoint directory what a save interrupted by a kill leaves behind and no
// complete checkpoint uses: staging folders (".staging-*", each a whole checkpoint's worth of data — about
// 17 GB at 1.4B parameters), temporary config files ("config.json.tmp-*") and checkpoint data files whose
// .json was never moved in (the save died between its two renames, so the checkpoint was never listed). It
// returns the names removed.
//
// Only the directory's one writer may call it — e.g. after taking the run-directory lock (internal/runlock)
// — since another process's save in progress looks exactly like a leftover.
func CleanLeftovers(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasPrefix(n, checkpointPrefix) && strings.HasSuffix(n, checkpoints.JsonNameSuffix) {
			listed[strings.TrimSuffix(n, checkpoints.JsonNameSuffix)] = true
		}
	}
	var removed []string
	for _, e := range entries {
		n := e.Name()
		leftover := false
		switch {
		case e.IsDir():
			leftover = strings.HasPrefix(n, stagingPrefix)
		case strings.HasPrefix(n, ConfigFileName+".tmp-"):
			leftover = true
		case strings.HasPrefix(n, checkpointPrefix) && strings.HasSuffix(n, checkpoints.BinDataSuffix):
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
