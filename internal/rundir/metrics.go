package rundir

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/oryx-go/oryx/internal/jsonnum"
	"github.com/oryx-go/oryx/internal/safefile"
)

// StepRecord is one line of metrics.jsonl for a training step (every LogEvery steps).
type StepRecord struct {
	Kind         string        `json:"kind"` // "train"
	Step         int           `json:"step"` // steps completed, this one included
	Tokens       int64         `json:"tokens"`
	Loss         jsonnum.Float `json:"loss"`
	LR           float64       `json:"lr"`
	GradNorm     jsonnum.Float `json:"grad_norm"`
	TokensPerSec float64       `json:"tokens_per_s"`
	AttnFraction float64       `json:"attn_fraction"` // fraction of this step's tokens read in attention mode
	Skipped      bool          `json:"skipped,omitempty"`
	ElapsedSec   float64       `json:"elapsed_s"`
}

// legacyValModes maps the validation-mode keys of older run directories to today's: the trainer's
// block-random mode (train.ValBlockRandom, the training distribution of the multi-mixer variants) was called
// "mixed" before it was renamed apart from the evaluations' mixed schedule.
var legacyValModes = map[string]string{"mixed": "block_random"}

// valMode returns today's key for a validation-mode key read from a run directory.
func valMode(key string) string {
	if k, ok := legacyValModes[key]; ok {
		return k
	}
	return key
}

// ValLosses is a loss per validation mode (the trainer's names: train.ValModes). Reading it renames the keys of
// older run directories (valMode).
type ValLosses map[string]jsonnum.Float

// UnmarshalJSON reads a JSON object of losses, renaming legacy mode keys.
func (l *ValLosses) UnmarshalJSON(b []byte) error {
	var m map[string]jsonnum.Float
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if m == nil {
		*l = nil
		return nil
	}
	out := make(ValLosses, len(m))
	for k, v := range m {
		out[valMode(k)] = v
	}
	*l = out
	return nil
}

// ValRecord is one line of metrics.jsonl for a validation: the mean token loss per validation mode. On the
// line each mode is its own number, "val_loss_<mode>" (one type per key, so that a table reader such as
// pandas gets plain columns; "loss" is the training lines' number only).
type ValRecord struct {
	Kind   string    `json:"kind"` // "val"
	Step   int       `json:"step"`
	Tokens int64     `json:"tokens"`
	Loss   ValLosses `json:"-"` // by validation mode (those the variant has)
}

// valLossPrefix starts the key of each mode's validation loss on a "val" line.
const valLossPrefix = "val_loss_"

// MarshalJSON writes the losses as val_loss_<mode> keys.
func (r ValRecord) MarshalJSON() ([]byte, error) {
	m := map[string]any{"kind": r.Kind, "step": r.Step, "tokens": r.Tokens}
	for k, v := range r.Loss {
		m[valLossPrefix+k] = v
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads val_loss_<mode> keys, and the "loss" object of files written before them; legacy
// mode keys are renamed (valMode).
func (r *ValRecord) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	var head struct {
		Kind   string    `json:"kind"`
		Step   int       `json:"step"`
		Tokens int64     `json:"tokens"`
		Loss   ValLosses `json:"loss"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	*r = ValRecord{Kind: head.Kind, Step: head.Step, Tokens: head.Tokens, Loss: head.Loss}
	if r.Loss == nil {
		r.Loss = ValLosses{}
	}
	return readPrefixed(raw, valLossPrefix, func(mode string, f jsonnum.Float) { r.Loss[valMode(mode)] = f })
}

// readPrefixed reads the numbers of raw whose keys start with prefix, passing each with the key's rest to set.
func readPrefixed(raw map[string]json.RawMessage, prefix string, set func(name string, f jsonnum.Float)) error {
	for k, v := range raw {
		if name, ok := strings.CutPrefix(k, prefix); ok {
			var f jsonnum.Float
			if err := json.Unmarshal(v, &f); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			set(name, f)
		}
	}
	return nil
}

// MetricsLog appends JSON lines to metrics.jsonl.
type MetricsLog struct {
	f *os.File
	w *bufio.Writer
}

// OpenMetrics opens dir/metrics.jsonl for appending. On resume (keepUpTo ≥ 0) it first drops every line whose step is
// greater than keepUpTo — what a killed run logged after its last checkpoint — so that the file continues
// exactly as the uninterrupted run's would; keepUpTo < 0 starts a new file.
func OpenMetrics(dir string, keepUpTo int) (*MetricsLog, error) {
	path := filepath.Join(dir, MetricsFile)
	var kept []byte
	if keepUpTo >= 0 {
		data, err := safefile.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 || !bytes.HasSuffix(line, []byte("\n")) {
				continue // empty, or a torn last line
			}
			var r struct {
				Step int `json:"step"`
			}
			if json.Unmarshal(line, &r) == nil && r.Step <= keepUpTo {
				kept = append(kept, line...)
			}
		}
	}
	if err := WriteFileAtomic(path, kept); err != nil {
		return nil, err
	}
	f, err := safefile.OpenAppend(path)
	if err != nil {
		return nil, err
	}
	return &MetricsLog{f: f, w: bufio.NewWriter(f)}, nil
}

// Write appends one record (a StepRecord or a ValRecord) as a line and flushes it.
func (m *MetricsLog) Write(rec any) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	m.w.Write(data)
	m.w.WriteByte('\n')
	return m.w.Flush()
}

// Close flushes and closes the file.
func (m *MetricsLog) Close() error {
	if err := m.w.Flush(); err != nil {
		return err
	}
	return m.f.Close()
}

// ReadMetrics reads dir/metrics.jsonl back (for plots, summaries and tests).
func ReadMetrics(dir string) (train []StepRecord, val []ValRecord, err error) {
	path := filepath.Join(dir, MetricsFile)
	data, err := safefile.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var kind struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(line, &kind); err != nil {
			return nil, nil, fmt.Errorf("%s line %d: %w", path, i+1, err)
		}
		switch kind.Kind {
		case "train":
			var r StepRecord
			if err := json.Unmarshal(line, &r); err != nil {
				return nil, nil, fmt.Errorf("%s line %d: %w", path, i+1, err)
			}
			train = append(train, r)
		case "val":
			var r ValRecord
			if err := json.Unmarshal(line, &r); err != nil {
				return nil, nil, fmt.Errorf("%s line %d: %w", path, i+1, err)
			}
			val = append(val, r)
		}
	}
	return train, val, nil
}
