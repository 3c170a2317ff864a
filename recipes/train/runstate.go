package train

import (
	"encoding/json"
	"fmt"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/internal/rundir"
)

// RunState is what a checkpoint needs besides the weights and optimizer state to resume a run exactly: the
// step, the data stream's cursor and the counters. rundir.WriteState writes it as the run directory's
// trainer-state file of its step (see package rundir); its first two fields are rundir.StateHeader's.
type RunState struct {
	Step       int               `json:"step"`        // optimizer steps completed
	TokensSeen int64             `json:"tokens_seen"` // training tokens consumed
	Skipped    int               `json:"skipped"`     // steps skipped for a non-finite loss or gradient
	BadInRow   int               `json:"bad_in_row"`  // the current run of skipped steps
	ElapsedSec float64           `json:"elapsed_s"`   // training wall time so far, over restarts
	Train      TrainConfig       `json:"train"`       // the optimisation config (checked on resume)
	Data       datasets.DataSpec `json:"data"`        // the training corpus
	Tokenizer  string            `json:"tokenizer"`   // tokenizer name
	DataState  json.RawMessage   `json:"data_state"`  // the training data source's position, after Step steps
}

// readState reads the state file of step from dir.
func readState(dir string, step int) (*RunState, error) {
	var st RunState
	if err := rundir.ReadState(dir, step, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// trajectoryDiff lists the fields of TrainConfig that change what a run computes (everything but the
// logging, validation and checkpoint cadence and the device count), as "field: a vs b". With a constant
// learning rate after warm-up neither the number of steps nor the final-rate ratio changes any step's
// update, so a finished run can be extended: its first N steps are exactly an N-step run.
func trajectoryDiff(a, b TrainConfig) []string {
	a, b = a.WithDefaults(), b.WithDefaults() // a checkpoint written before a field existed has its default
	if a.LRSchedule == LRConstant && b.LRSchedule == LRConstant {
		a.Steps, b.Steps, a.MinLRRatio, b.MinLRRatio = 0, 0, 0, 0
	}
	a.CheckpointEvery, a.KeepCheckpoints, a.EvalEvery, a.EvalBatches, a.LogEvery, a.MaxBadSteps, a.Devices = 0, 0, 0, 0, 0, 0, 0
	b.CheckpointEvery, b.KeepCheckpoints, b.EvalEvery, b.EvalBatches, b.LogEvery, b.MaxBadSteps, b.Devices = 0, 0, 0, 0, 0, 0, 0
	var ma, mb map[string]any
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	_ = json.Unmarshal(ja, &ma)
	_ = json.Unmarshal(jb, &mb)
	var d []string
	for k, va := range ma {
		if fmt.Sprint(va) != fmt.Sprint(mb[k]) {
			d = append(d, fmt.Sprintf("%s: %v vs %v", k, va, mb[k]))
		}
	}
	return d
}
