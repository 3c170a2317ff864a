// Package rundir is the run directory: its layout and the names of its files (layout.go), the reading and
// writing of run.json, the trainer-state files, metrics.jsonl and summary.json. Every writer opens the
// directory first through internal/runwriter (which claims it, holds its lock and removes what killed saves
// left); the trainer (recipes/train), `oryx init` and `oryx import` write run directories, the checkpoint writer
// (oryx.SaveCheckpoint) serialises the weights under the names given here; evaluation (evals), the
// study and `oryx generate` read them.
//
// A run directory holds:
//
//	config.json, checkpoint-*.json/.bin   the model and optimizer state (oryx.SaveCheckpoint; layout.go)
//	trainer-state-SSSSSSSS.json           step, data cursor and counters of each kept checkpoint (state.go)
//	run.json                              the run's full configuration and the backend (runjson.go)
//	metrics.jsonl                         one line per logged step and per validation (metrics.go)
//	curves.png                            training and validation loss, learning rate and gradient norm
//	summary.json                          written at the end: final losses, throughput, memory
//	tokenizer/                            the run's copy of its tokenizer file (CopyTokenizer)
//	.oryx.lock                            held by the one process writing the directory (internal/runwriter)
//
// and, only after a kill, leftovers: .staging-N folders, ".NAME.tmp-N" files (removed by the next writer's
// runwriter.Open).
package rundir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/oryx-go/oryx/internal/safefile"
)

// File names in a run directory.
const (
	RunFile     = "run.json"
	MetricsFile = "metrics.jsonl"
	SummaryFile = "summary.json"
	CurvesFile  = "curves.png"
)

// WriteJSON writes v as indented JSON to dir/name atomically (summary.json).
func WriteJSON(dir, name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, name), append(data, '\n'))
}

// ReadJSON reads dir/name (summary.json) into v; the error names the file, and wraps fs.ErrNotExist when it
// is not there.
func ReadJSON(dir, name string, v any) error {
	path := filepath.Join(dir, name)
	data, err := safefile.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// run.json, declared here once: the trainer writes its whole configuration (train.Run: name, model, train,
// data, val_data, tokenizer, out) with RunInfo's fields after it (WriteRunRecord), and readers read back
// RunRecord (Tokenizer, TrainedOn).

// RunInfo is what the trainer records in run.json beside its configuration.
type RunInfo struct {
	TokenizerFile string `json:"tokenizer_file,omitempty"` // the run's copy of its tokenizer file, relative to the run directory (CopyTokenizer)
	Backend       string `json:"backend"`
	GoVersion     string `json:"go_version"`
	Started       string `json:"started"` // RFC 3339, UTC
}

// RunRecord is what is read back from run.json: the parts of the trainer's configuration that other
// commands use, and RunInfo.
type RunRecord struct {
	Tokenizer string `json:"tokenizer"` // the spec the run was started with (tokenizers.Load)
	Data      struct {
		Spec string `json:"spec"` // "Spec" in run.json files written before the key was snake_case: encoding/json matches keys case-insensitively
	} `json:"data"`
	Train struct {
		SeqLen int `json:"seq_len"`
	} `json:"train"`
	RunInfo
}

// WriteRunRecord writes dir/run.json atomically: config's fields (a struct that encodes as a JSON object, the
// trainer's Run), then info's. A key of both is an error: info would hide it from a reader.
func WriteRunRecord(dir string, config any, info RunInfo) error {
	a, err := json.Marshal(config)
	if err != nil {
		return err
	}
	b, err := json.Marshal(info)
	if err != nil {
		return err
	}
	var ka, kb map[string]json.RawMessage
	if err := json.Unmarshal(a, &ka); err != nil {
		return fmt.Errorf("%s: the configuration is not a JSON object: %w", RunFile, err)
	}
	if err := json.Unmarshal(b, &kb); err != nil {
		return err
	}
	for k := range kb {
		if _, ok := ka[k]; ok {
			return fmt.Errorf("%s: the configuration has a key %q of its own", RunFile, k)
		}
	}
	// The two objects joined in their field order (a map would sort the keys).
	joined := append(append(a[:len(a)-1:len(a)-1], ','), b[1:]...)
	if len(ka) == 0 {
		joined = b
	}
	var out bytes.Buffer
	if err := json.Indent(&out, joined, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	return WriteFileAtomic(filepath.Join(dir, RunFile), out.Bytes())
}

// errNotRunRecord is wrapped by readRunRecord's error when run.json is not a run record.
var errNotRunRecord = errors.New("not a run record")

// readRunRecord reads dir/run.json: the error is the read's (fs.ErrNotExist when there is none), or wraps
// errNotRunRecord.
func readRunRecord(dir string) (RunRecord, error) {
	var r RunRecord
	path := filepath.Join(dir, RunFile)
	data, err := safefile.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("%s: %w (%v)", path, errNotRunRecord, err)
	}
	return r, nil
}

// Tokenizer returns the tokenizer spec (tokenizers.Load) of the run in dir: "bytes" when dir/run.json
// is absent or names none (checkpoints written by `oryx init` or outside a recipe), else the run's copy of
// its tokenizer file (tokenizer_file), else the recorded spec resolved relative to dir. A path that leaves
// dir (absolute, or through "..") or a run.json that cannot be read is an error naming the file and saying to
// pass --tokenizer.
func Tokenizer(dir string) (string, error) {
	path := filepath.Join(dir, RunFile)
	r, err := readRunRecord(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "bytes", nil
	case errors.Is(err, errNotRunRecord):
		return "", fmt.Errorf("%w; pass --tokenizer to choose the tokenizer", err)
	case err != nil:
		return "", fmt.Errorf("%s: %w (pass --tokenizer to choose the tokenizer)", path, err)
	}
	field, spec := "tokenizer_file", r.TokenizerFile
	if spec == "" {
		field, spec = "tokenizer", r.Tokenizer
		if spec == "" || spec == "bytes" {
			return "bytes", nil
		}
	}
	if !filepath.IsLocal(spec) {
		return "", fmt.Errorf("%s: %s %q is outside the run directory; paths read from a run directory must stay "+
			"inside it: pass --tokenizer %q to use that file", path, field, spec, spec)
	}
	resolved := filepath.Join(dir, spec)
	if _, err := os.Stat(resolved); err != nil {
		return "", fmt.Errorf("%s: %s %q: %s is missing (the path is relative to the run directory); pass "+
			"--tokenizer to choose the tokenizer", path, field, spec, resolved)
	}
	// A symbolic link inside the directory may point out of it: the same rule applies to its target.
	realDir, err1 := filepath.EvalSymlinks(dir)
	realFile, err2 := filepath.EvalSymlinks(resolved)
	if err1 != nil || err2 != nil {
		return "", fmt.Errorf("%s: %s %q: resolving %s: %w", path, field, spec, resolved, errors.Join(err1, err2))
	}
	if rel, err := filepath.Rel(realDir, realFile); err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s: %s %q is a link to %s, outside the run directory; pass --tokenizer %q to use "+
			"that file", path, field, spec, realFile, realFile)
	}
	return resolved, nil
}

// TrainedOn returns the training data spec and sequence length recorded in dir/run.json; ok is false when
// there is no run.json or it does not say (checkpoints written by `oryx init` or outside a recipe).
func TrainedOn(dir string) (data string, seqLen int, ok bool) {
	r, err := readRunRecord(dir)
	if err != nil || r.Data.Spec == "" || r.Train.SeqLen <= 0 {
		return "", 0, false
	}
	return r.Data.Spec, r.Train.SeqLen, true
}
