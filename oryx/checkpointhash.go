package oryx

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/context/checkpoints"

	"github.com/oryx-go/oryx/internal/safefile"
)

// CheckpointHash identifies the weights LoadCheckpoint(dir) loads: "sha256:" and the SHA-256 of config.json
// and the newest checkpoint's two files (.json, then .bin), each as its name, its length and its bytes.
//
// A content hash, not a file's size and modification time: a same-step checkpoint whose weights were
// replaced (a re-init, an import, a copy made with `cp -p`, `rsync -t` or `tar`, which keep the time; a
// rewrite of the same size within the clock's resolution) keeps its size and can keep its time, while the
// hash changes with any byte. It reads the weights once more, sequentially — seconds for the largest preset,
// nothing beside an evaluation — and depends on nothing but the bytes: a checkpoint moved or copied elsewhere
// keeps its hash. Evaluations record it with every result and recompute when it changes.
func CheckpointHash(dir string) (string, error) {
	names, err := ListCheckpoints(dir)
	if err != nil {
		return "", fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	if len(names) == 0 {
		return "", fmt.Errorf("checkpoint %s: no checkpoint files", dir)
	}
	return checkpointHashOf(dir, names[len(names)-1])
}

// checkpointHashOf is CheckpointHash of the checkpoint named name in dir.
func checkpointHashOf(dir, name string) (string, error) {
	h := sha256.New()
	for _, file := range []string{ConfigFileName, name + checkpoints.JsonNameSuffix, name + checkpoints.BinDataSuffix} {
		if err := safefile.HashInto(h, filepath.Join(dir, file), file); err != nil {
			return "", fmt.Errorf("checkpoint %s: %w", dir, err)
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// loadForHash is LoadCheckpoint, replaceable in tests (to save a checkpoint during the load).
var loadForHash = LoadCheckpoint

// loadHashedTries is how many times LoadCheckpointHashed and LoadCheckpointRetrying load before giving up on
// a directory that gets a newer checkpoint during every load.
const loadHashedTries = 5

// LoadCheckpointHashed is LoadCheckpoint with the CheckpointHash of the checkpoint it loaded. Loading and
// hashing one after the other in a directory a training saves into can see two checkpoints: the weights of
// step 15 and the hash of step 18 (a results file then claims the wrong weights). Here the newest checkpoint
// is listed before the load and again after hashing it; a checkpoint's name is never reused and the newest
// one is never pruned, so the same newest name at both ends means no checkpoint was saved in between and
// the load, the hash and the step are all of it. Otherwise it loads again, up to loadHashedTries times.
func LoadCheckpointHashed(dir string, want *Config) (*Model, *context.Context, string, error) {
	var hash string
	m, ctx, err := loadRetrying(dir, want, func(name string) (err error) {
		hash, err = checkpointHashOf(dir, name)
		return err
	})
	return m, ctx, hash, err
}

// LoadCheckpointRetrying is LoadCheckpoint for a directory a training may be saving into (`oryx export`,
// `oryx generate`, the evaluations): a save during the load (the trainer writes a newer checkpoint and prunes
// the oldest, which can be the one listed as the newest an instant before) made the load fail, or load a
// checkpoint other than the one it listed; here a newer checkpoint seen after the load means the load is
// repeated, up to loadHashedTries times (LoadCheckpointHashed's rule).
func LoadCheckpointRetrying(dir string, want *Config) (*Model, *context.Context, error) {
	return loadRetrying(dir, want, nil)
}

// loadRetrying loads dir's newest checkpoint, then runs also (when not nil) on the name of the newest
// checkpoint listed before the load; when the newest is another one afterwards, a checkpoint was saved
// during the load (a load error, or weights of another step than also saw, may come from it), and it loads
// again, up to loadHashedTries times.
func loadRetrying(dir string, want *Config, also func(name string) error) (*Model, *context.Context, error) {
	newest := func() string {
		names, _ := ListCheckpoints(dir)
		if len(names) == 0 {
			return ""
		}
		return names[len(names)-1]
	}
	for try := 1; ; try++ {
		before := newest()
		m, ctx, err := loadForHash(dir, want)
		if err == nil && also != nil {
			err = also(before)
		}
		if newest() == before {
			if err != nil {
				return nil, nil, err
			}
			return m, ctx, nil
		}
		if ctx != nil {
			ctx.Finalize()
		}
		if try == loadHashedTries {
			return nil, nil, fmt.Errorf("checkpoint %s: a newer checkpoint was saved during each of %d loads (a training "+
				"saving into it?): could not load one checkpoint while it stayed the newest", dir, loadHashedTries)
		}
	}
}
