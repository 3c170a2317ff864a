package leaderboard

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/oryx-go/oryx/evals/harness"
)

// RunInfo is the metadata of one evaluation run, filled by the caller.
type RunInfo struct {
	Model          string   `json:"model"`                // model name, e.g. "oryx-gdn-360m"
	Variant        string   `json:"variant"`              // mixer variant, e.g. "gdn", "mamba2"
	Size           string   `json:"size"`                 // preset, e.g. "360m"
	Parameters     int64    `json:"parameters"`           // parameter count
	Checkpoint     string   `json:"checkpoint,omitempty"` // checkpoint directory
	CheckpointStep int64    `json:"checkpoint_step"`
	TokensSeen     int64    `json:"tokens_seen"`         // training tokens of the checkpoint
	Schedule       string   `json:"schedule"`            // "mixed", or the --schedule spec the model ran
	Backend        string   `json:"backend"`             // e.g. "go", "xla:cuda"
	Tokenizer      string   `json:"tokenizer,omitempty"` // tokenizer name
	MaxLength      int      `json:"max_length,omitempty"`
	FLOPs          float64  `json:"flops,omitempty"` // forward FLOPs of the whole run, when the caller counts them
	Date           string   `json:"date,omitempty"`  // when the run finished (the caller's format, e.g. RFC 3339)
	Notes          []string `json:"notes,omitempty"`
}

// RunFile is the result file of one run.
type RunFile struct {
	RunInfo
	// AttentionFraction is Σ attention tokens / Σ tokens over all tasks.
	AttentionFraction float64 `json:"attention_fraction"`
	// Tasks maps task name → its result (metrics with value, stderr and n; counts; time).
	Tasks map[string]*harness.Result `json:"tasks"`
	// Averages are the papers' averages (see Averages).
	Averages map[string]Average `json:"averages"`
}

// NewRunFile assembles a run file from the run's metadata and its task results (a later result of the
// same task replaces an earlier one).
func NewRunFile(info RunInfo, results []*harness.Result) *RunFile {
	r := &RunFile{RunInfo: info, Tasks: map[string]*harness.Result{}}
	for _, res := range results {
		if res != nil {
			r.Tasks[res.Task] = res
		}
	}
	var tok, att int64
	for _, res := range r.Tasks {
		tok += res.Tokens
		att += res.AttentionTokens
	}
	if tok > 0 {
		r.AttentionFraction = float64(att) / float64(tok)
	}
	r.Averages = ComputeAverages(r.Tasks)
	return r
}

// WriteFile writes the run file as indented JSON, atomically (a temporary file next to path, then a
// rename).
func (r *RunFile) WriteFile(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("leaderboard: %s: %w", path, err)
	}
	return writeAtomic(path, append(b, '\n'))
}

// ReadRunFile reads a run file written by WriteFile; errors name the file.
func ReadRunFile(path string) (*RunFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("leaderboard: %w", err)
	}
	var r RunFile
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("leaderboard: %s: not a run file: %w", path, err)
	}
	if r.Tasks == nil {
		return nil, fmt.Errorf("leaderboard: %s: not a run file: no \"tasks\"", path)
	}
	for name, res := range r.Tasks {
		if res == nil {
			return nil, fmt.Errorf("leaderboard: %s: not a run file: task %q is null", path, name)
		}
	}
	return &r, nil
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("leaderboard: %w", err)
	}
	name := tmp.Name()
	// CreateTemp makes the file 0600; results are readable by all like every other output (0644).
	if err = tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("leaderboard: writing %s: %w", path, err)
	}
	if _, err = tmp.Write(data); err == nil {
		err = tmp.Close()
	} else {
		tmp.Close()
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("leaderboard: writing %s: %w", path, err)
	}
	return nil
}
