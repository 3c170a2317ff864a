package oryx

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"

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
	newest := names[len(names)-1]
	h := sha256.New()
	for _, name := range []string{ConfigFileName, newest + checkpoints.JsonNameSuffix, newest + checkpoints.BinDataSuffix} {
		if err := safefile.HashInto(h, filepath.Join(dir, name), name); err != nil {
			return "", fmt.Errorf("checkpoint %s: %w", dir, err)
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
