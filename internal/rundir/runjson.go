// Package rundir owns the run directory's format: the names of its files and the reading and writing of
// run.json, the trainer-state files, metrics.jsonl and summary.json. The training loop (recipes/recipe) writes
// them; evaluation (evals/evalrun), the study and `oryx generate` read them. The checkpoints themselves
// (config.json, checkpoint-*) are oryx's (oryx.SaveCheckpoint); this package only reads their step.
//
// A run directory holds:
//
//	config.json, checkpoint-*.json/.bin   the model and optimizer state (oryx.SaveCheckpoint)
//	trainer-state-SSSSSSSS.json           step, data cursor and counters of each kept checkpoint (state.go)
//	run.json                              the run's full configuration and the backend (runjson.go)
//	metrics.jsonl                         one line per logged step and per validation (metrics.go)
//	curves.png                            training and validation loss, learning rate and gradient norm
//	summary.json                          written at the end: final losses, throughput, memory
package rundir

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// File names in a run directory.
const (
	RunFile     = "run.json"
	MetricsFile = "metrics.jsonl"
	SummaryFile = "summary.json"
	CurvesFile  = "curves.png"
)

// WriteJSON writes v as indented JSON to dir/name atomically (run.json, summary.json).
func WriteJSON(dir, name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, name), append(data, '\n'))
}

// Tokenizer returns the tokenizer spec (tokenizers.Load) recorded in dir/run.json, or "bytes" when
// there is none (checkpoints written by `oryx init` or outside a recipe).
func Tokenizer(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, RunFile))
	if err == nil {
		var r struct {
			Tokenizer string `json:"tokenizer"`
		}
		if json.Unmarshal(data, &r) == nil && r.Tokenizer != "" {
			return r.Tokenizer
		}
	}
	return "bytes"
}

// TrainedOn returns the training data spec and sequence length recorded in dir/run.json; ok is false when
// there is no run.json or it does not say (checkpoints written by `oryx init` or outside a recipe).
func TrainedOn(dir string) (data string, seqLen int, ok bool) {
	raw, err := os.ReadFile(filepath.Join(dir, RunFile))
	if err != nil {
		return "", 0, false
	}
	var r struct {
		Data struct {
			Spec string `json:"Spec"`
		} `json:"data"`
		Train struct {
			SeqLen int `json:"seq_len"`
		} `json:"train"`
	}
	if json.Unmarshal(raw, &r) != nil || r.Data.Spec == "" || r.Train.SeqLen <= 0 {
		return "", 0, false
	}
	return r.Data.Spec, r.Train.SeqLen, true
}
