package train

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
)

// openRunDir prepares the run directory Train holds open (w) and returns the run state of its newest
// checkpoint (nil: none, a fresh run), which runCheckpoint has found to be r's — another run's directory is
// refused here, before anything in it is written. A finished run is left as it is and its summary returned with
// done: rerunning its command writes nothing (it used to overwrite summary.json with this process's zero
// throughput and run.json's start time), unless r.Retrain starts it over.
func openRunDir(r Run, w *oryx.CheckpointDir) (st *RunState, sum *Summary, done bool, err error) {
	if st, err = runCheckpoint(r); err != nil {
		return nil, nil, false, fmt.Errorf("resuming from %s: %w", r.Out, err)
	}
	sum, done, err = finishedRun(r, st)
	switch {
	case err != nil:
		return nil, nil, false, err
	case done && !r.Retrain:
		fmt.Fprintf(r.Log, "%s: %s already finished (%d steps); --retrain to train it again from scratch\n", r.Name, r.Out, sum.Steps)
		return st, sum, true, nil
	case done:
		fmt.Fprintf(r.Log, "%s: %s already finished; retraining from scratch (--retrain)\n", r.Name, r.Out)
		if err := w.RemoveRun(); err != nil {
			return nil, nil, false, err
		}
		return nil, nil, false, nil
	}
	return st, nil, false, nil
}

// runCheckpoint answers "is the newest checkpoint in r.Out this run's?" — the one place that does, for the
// finished-run check and for resuming alike. It returns nil when r.Out holds no checkpoint; the checkpoint's run
// state when it is r's: at a step within r.Train.Steps, with r's model config, training trajectory
// (trajectoryDiff: the cadences and the device count may change) and data; else an error naming what differs.
func runCheckpoint(r Run) (*RunState, error) {
	names, err := oryx.ListCheckpoints(r.Out)
	if err != nil || len(names) == 0 {
		return nil, err
	}
	newest := names[len(names)-1]
	step, ok := rundir.CheckpointStep(newest)
	if !ok {
		return nil, fmt.Errorf("checkpoint %s: no step in its name", newest)
	}
	if step > r.Train.Steps {
		return nil, fmt.Errorf("the run's newest checkpoint is at step %d, beyond --steps %d: its weights are not those of a "+
			"%d-step run; use another --out (or --steps %d)", step, r.Train.Steps, r.Train.Steps, step)
	}
	cfg, err := oryx.LoadConfig(filepath.Join(r.Out, rundir.ConfigFile))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rundir.ConfigFile, err)
	}
	if d := cfg.Diff(r.Model); len(d) > 0 {
		return nil, fmt.Errorf("the model config differs from the checkpoint's (checkpoint vs now): %s; use another --out "+
			"to start a new run", strings.Join(d, "; "))
	}
	st, err := readState(r.Out, step)
	if err != nil {
		return nil, err
	}
	if d := trajectoryDiff(st.Train, r.Train); len(d) > 0 {
		return nil, fmt.Errorf("the training config differs from the checkpoint's (checkpoint vs now): %s; "+
			"use another --out to start a new run", strings.Join(d, "; "))
	}
	if st.Data != r.Data {
		return nil, fmt.Errorf("--data %q differs from the checkpoint's %q", r.Data.Spec, st.Data.Spec)
	}
	return st, nil
}

// finishedRun reports whether r.Out holds r finished: its newest checkpoint, r's (st, from runCheckpoint), is
// at r.Train.Steps and summary.json is there (returned). A run whose summary is missing is not finished: Train
// resumes it at its last step and writes the summary.
func finishedRun(r Run, st *RunState) (*Summary, bool, error) {
	if st == nil || st.Step != r.Train.Steps {
		return nil, false, nil // fewer steps: Train resumes it
	}
	var sum Summary
	err := rundir.ReadJSON(r.Out, rundir.SummaryFile, &sum)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return &sum, true, nil
}
