package recipe

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// RunState is what a checkpoint needs besides the weights and optimizer state to resume a run exactly: the
// step, the data stream's cursor and the counters. It is written to the run directory as
// "trainer-state-SSSSSSSS.json" (S = the step) before the checkpoint of that step, atomically (temporary
// file, fsync, rename), so the newest checkpoint always finds its state file; files of pruned checkpoints
// are removed after them.
type RunState struct {
	Step       int             `json:"step"`        // optimizer steps completed
	TokensSeen int64           `json:"tokens_seen"` // training tokens consumed
	Skipped    int             `json:"skipped"`     // steps skipped for a non-finite loss or gradient
	BadInRow   int             `json:"bad_in_row"`  // the current run of skipped steps
	ElapsedSec float64         `json:"elapsed_s"`   // training wall time so far, over restarts
	Train      TrainConfig     `json:"train"`       // the optimisation config (checked on resume)
	Data       DataSpec        `json:"data"`        // the training corpus
	Tokenizer  string          `json:"tokenizer"`   // tokenizer name
	DataState  json.RawMessage `json:"data_state"`  // the training data source's position, after Step steps
}

var stateFileRE = regexp.MustCompile(`^trainer-state-(\d{8})\.json$`)

func stateFileName(step int) string { return fmt.Sprintf("trainer-state-%08d.json", step) }

// writeState writes st atomically into dir.
func writeState(dir string, st *RunState) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, stateFileName(st.Step)), data)
}

// readState reads the state file of step from dir.
func readState(dir string, step int) (*RunState, error) {
	path := filepath.Join(dir, stateFileName(step))
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the newest checkpoint is at step %d but %s is missing: cannot resume the data order "+
			"(delete the run directory to start over)", step, path)
	}
	if err != nil {
		return nil, err
	}
	var st RunState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if st.Step != step {
		return nil, fmt.Errorf("%s: holds step %d, want %d", path, st.Step, step)
	}
	return &st, nil
}

// pruneStates removes the state files of steps other than keep's.
func pruneStates(dir string, keep map[int]bool) error {
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

// writeFileAtomic writes data to path through a synced temporary file in the same directory and a rename.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
