package train

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
)

// openRunDir prepares the run directory Train holds open (w). A finished run is left as it is and its
// summary returned with done: rerunning its command writes nothing (it used to overwrite summary.json with
// this process's zero throughput and run.json's start time), unless r.Retrain starts it over.
func openRunDir(r Run, w *oryx.CheckpointDir) (*Summary, bool, error) {
	sum, done, err := finishedRun(r)
	switch {
	case err != nil:
		return nil, false, err
	case done && !r.Retrain:
		fmt.Fprintf(r.Log, "%s: %s already finished (%d steps); --retrain to train it again from scratch\n", r.Name, r.Out, sum.Steps)
		return sum, true, nil
	case done:
		fmt.Fprintf(r.Log, "%s: %s already finished; retraining from scratch (--retrain)\n", r.Name, r.Out)
		if err := w.RemoveRun(); err != nil {
			return nil, false, err
		}
	}
	return nil, false, nil
}

// finishedRun reports whether r.Out holds r finished: its newest checkpoint is at r.Train.Steps with the same
// model, trajectory and data, and summary.json is there (returned). A run that differs, or whose summary is missing,
// is not finished: Train resumes it (or refuses it with the reason).
func finishedRun(r Run) (*Summary, bool, error) {
	names, err := oryx.ListCheckpoints(r.Out)
	if err != nil || len(names) == 0 {
		return nil, false, err
	}
	step, ok := rundir.CheckpointStep(names[len(names)-1])
	if !ok || step != r.Train.Steps {
		return nil, false, nil // fewer steps: Train resumes it; more: Train refuses it
	}
	st, err := readState(r.Out, step)
	if err != nil || len(trajectoryDiff(st.Train, r.Train)) > 0 || st.Data != r.Data {
		return nil, false, nil // Train reports it
	}
	if cfg, err := oryx.LoadConfig(filepath.Join(r.Out, rundir.ConfigFile)); err != nil || len(cfg.Diff(r.Model)) > 0 {
		return nil, false, nil // LoadCheckpoint reports it
	}
	var sum Summary
	err = rundir.ReadJSON(r.Out, rundir.SummaryFile, &sum)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return &sum, true, nil
}
