package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/internal/safefile"
	"github.com/oryx-go/oryx/oryx"
)

// finishedRun reports whether r.Out holds r finished: its newest checkpoint is at r.Train.Steps with the same
// model, trajectory and data, and summary.json is there (returned). A run that differs, or whose summary is missing,
// is not finished: Train resumes it (or refuses it with the reason).
func finishedRun(r Run) (*Summary, bool, error) {
	names, err := oryx.ListCheckpoints(r.Out)
	if err != nil || len(names) == 0 {
		return nil, false, err
	}
	step, ok := rundir.CheckpointStep(names[len(names)-1])
	if !ok || step < r.Train.Steps {
		return nil, false, nil
	}
	st, err := readState(r.Out, step)
	if err != nil || len(trajectoryDiff(st.Train, r.Train)) > 0 || st.Data != r.Data {
		return nil, false, nil // Train reports it
	}
	if cfg, err := oryx.LoadConfig(filepath.Join(r.Out, rundir.ConfigFile)); err != nil || len(cfg.Diff(r.Model)) > 0 {
		return nil, false, nil // LoadCheckpoint reports it
	}
	data, err := safefile.ReadFile(filepath.Join(r.Out, rundir.SummaryFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var sum Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		return nil, false, fmt.Errorf("%s: %w", filepath.Join(r.Out, rundir.SummaryFile), err)
	}
	return &sum, true, nil
}
