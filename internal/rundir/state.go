package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/safefile"
)

// Trainer state: what a checkpoint needs besides the weights and optimizer state to resume a run exactly
// (the step, the data stream's cursor, the counters; the trainer's type, train.RunState). It is written to
// the run directory as "trainer-state-SSSSSSSS.json" (S = the step) before the checkpoint of that step,
// atomically (temporary file, fsync, rename), so the newest checkpoint always finds its state file; files of
// pruned checkpoints are removed after them. Every state file has the fields of StateHeader.

// StateHeader holds the fields of a trainer-state file that readers other than the trainer use.
type StateHeader struct {
	Step       int   `json:"step"`        // optimizer steps completed
	TokensSeen int64 `json:"tokens_seen"` // training tokens consumed
}

// StatePrefix begins every trainer-state file name: StateFileName(step).
const StatePrefix = "trainer-state-"

var stateFileRE = regexp.MustCompile(`^` + StatePrefix + `(\d{8,})\.json$`) // %08d: at least 8 digits

// IsStateFile reports whether name is a trainer-state file (StateFileName).
func IsStateFile(name string) bool { return stateFileRE.MatchString(name) }

// StateFileName is the name of the trainer-state file of step.
func StateFileName(step int) string { return fmt.Sprintf("%s%08d.json", StatePrefix, step) }

// WriteState writes st, the state after step, atomically into dir.
func WriteState(dir string, step int, st any) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, StateFileName(step)), data)
}

// ReadState reads the state file of step from dir into st, checking that it holds that step.
func ReadState(dir string, step int, st any) error {
	path := filepath.Join(dir, StateFileName(step))
	data, err := safefile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("the newest checkpoint is at step %d but %s is missing: cannot resume the data order "+
			"(delete the run directory to start over)", step, path)
	}
	if err != nil {
		return err
	}
	var h StateHeader
	if err := json.Unmarshal(data, &h); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := json.Unmarshal(data, st); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if h.Step != step {
		return fmt.Errorf("%s: holds step %d, want %d", path, h.Step, step)
	}
	return nil
}

// TokensSeen is the training tokens recorded in dir's state file of step, or 0 when there is none (a
// checkpoint written outside a recipe).
func TokensSeen(dir string, step int64) int64 {
	data, err := safefile.ReadFile(filepath.Join(dir, StateFileName(int(step))))
	if err != nil {
		return 0
	}
	var h StateHeader
	_ = json.Unmarshal(data, &h)
	return h.TokensSeen
}

// checkpointStepRE finds the step in a checkpoint name: oryx.SaveCheckpoint names them as GoMLX does,
// "checkpoint-nNNNNNNN-<time>-step-SSSSSSSS".
var checkpointStepRE = regexp.MustCompile(`step-(\d+)`)

// CheckpointStep is the step in a checkpoint name (as oryx.ListCheckpoints returns it), false when the name
// has none.
func CheckpointStep(name string) (int, bool) {
	m := checkpointStepRE.FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	s, err := strconv.Atoi(m[1])
	return s, err == nil
}

// PruneStates removes the state files of steps that none of checkpoints (names as oryx.ListCheckpoints
// returns them) is at.
func PruneStates(dir string, checkpoints []string) error {
	keep := map[int]bool{}
	for _, n := range checkpoints {
		if m := checkpointStepRE.FindStringSubmatch(n); m != nil {
			s, _ := strconv.Atoi(m[1])
			keep[s] = true
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		m := stateFileRE.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		step, _ := strconv.Atoi(m[1])
		if !keep[step] {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// WriteFileAtomic writes data to path atomically: the project's one helper (internal/atomicfile: synced
// temporary file, rename, synced directory, mode 0644).
func WriteFileAtomic(path string, data []byte) error { return atomicfile.WriteFile(path, data) }
