package recipe

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"
	"time"
)

// StepRecord is one line of metrics.jsonl for a training step (every LogEvery steps).
type StepRecord struct {
	Kind         string  `json:"kind"` // "train"
	Step         int     `json:"step"` // steps completed, this one included
	Tokens       int64   `json:"tokens"`
	Loss         Float   `json:"loss"`
	LR           float64 `json:"lr"`
	GradNorm     Float   `json:"grad_norm"`
	TokensPerSec float64 `json:"tokens_per_s"`
	AttnFraction float64 `json:"attn_fraction"` // fraction of this step's tokens read in attention mode
	Skipped      bool    `json:"skipped,omitempty"`
	ElapsedSec   float64 `json:"elapsed_s"`
}

// ValRecord is one line of metrics.jsonl for a validation: the mean token loss per mode schedule.
type ValRecord struct {
	Kind   string           `json:"kind"` // "val"
	Step   int              `json:"step"`
	Tokens int64            `json:"tokens"`
	Loss   map[string]Float `json:"loss"` // "attention", "linear", "mixed" (those the variant has)
}

// Float is a float64 that survives JSON when it is not finite: NaN and ±Inf are written as null (JSON
// has no such numbers) and null reads back as NaN, so a skipped step's loss stays visibly missing.
type Float float64

// MarshalJSON writes non-finite values as null.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads null as NaN.
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Float(v)
	return nil
}

// metricsLog appends JSON lines to metrics.jsonl.
type metricsLog struct {
	f *os.File
	w *bufio.Writer
}

// openMetrics opens path for appending. On resume (keepUpTo ≥ 0) it first drops every line whose step is
// greater than keepUpTo — what a killed run logged after its last checkpoint — so that the file continues
// exactly as the uninterrupted run's would; keepUpTo < 0 starts a new file.
func openMetrics(path string, keepUpTo int) (*metricsLog, error) {
	var kept []byte
	if keepUpTo >= 0 {
		data, err := os.ReadFile(path)
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
	if err := writeFileAtomic(path, kept); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	return &metricsLog{f: f, w: bufio.NewWriter(f)}, nil
}

func (m *metricsLog) write(rec any) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	m.w.Write(data)
	m.w.WriteByte('\n')
	return m.w.Flush()
}

func (m *metricsLog) Close() error {
	if err := m.w.Flush(); err != nil {
		return err
	}
	return m.f.Close()
}

// readMetrics reads metrics.jsonl back (for plots and tests).
func readMetrics(path string) (train []StepRecord, val []ValRecord, err error) {
	data, err := os.ReadFile(path)
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

// progress draws a one-line progress bar with rate and ETA on a terminal, or a plain line every interval
// when the output is not a terminal (CI logs).
type progress struct {
	w        io.Writer
	tty      bool
	total    int
	start    time.Time
	startAt  int
	last     time.Time
	interval time.Duration
}

func newProgress(w io.Writer, total, startAt int) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	iv := 10 * time.Second
	if tty {
		iv = 200 * time.Millisecond
	}
	return &progress{w: w, tty: tty, total: total, start: time.Now(), startAt: startAt, interval: iv}
}

// update shows step (completed) of total with a status text; force draws even within the interval.
func (p *progress) update(step int, status string, force bool) {
	now := time.Now()
	if !force && now.Sub(p.last) < p.interval {
		return
	}
	p.last = now
	done := step - p.startAt
	eta := "?"
	if done > 0 {
		rem := time.Duration(float64(now.Sub(p.start)) / float64(done) * float64(p.total-step))
		eta = rem.Round(time.Second).String()
	}
	frac := float64(step) / float64(max(p.total, 1))
	if p.tty {
		const width = 24
		n := int(frac * width)
		bar := strings.Repeat("█", n) + strings.Repeat("·", width-n)
		fmt.Fprintf(p.w, "\r\033[K%s %5.1f%% %d/%d  %s  ETA %s", bar, 100*frac, step, p.total, status, eta)
	} else {
		fmt.Fprintf(p.w, "step %d/%d (%.1f%%)  %s  ETA %s\n", step, p.total, 100*frac, status, eta)
	}
}

// done ends the bar's line on a terminal.
func (p *progress) done() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

// message prints a line without breaking the bar.
func (p *progress) message(format string, args ...any) {
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}
