// Package evalrun is what `go run ./evals` does: load a checkpoint, run the requested harness tasks under a
// schedule, and write one leaderboard run file; and merge run files into leaderboard.json and a markdown
// table.
package evalrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"
	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/leaderboard"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/runinfo"
	"github.com/oryx-go/oryx/oryx"

	// Task families register themselves with the harness.
	_ "github.com/oryx-go/oryx/evals/lmeval"
	_ "github.com/oryx-go/oryx/evals/niahtask"
	_ "github.com/oryx-go/oryx/evals/recall"
)

// Options are the flags of an evaluation run.
type Options struct {
	Checkpoint string
	Tasks      string // harness task list (names, groups, "all")
	Mixed      bool   // the paper's mixed setting (per-task split points)
	Schedule   string // an oryx schedule spec for every token (exclusive with Mixed); "" = attention
	Out        string // run file path ("" = results/<model>-<schedule>.json)
	Tokenizer  string // datasets.LoadTokenizer spec ("" = from the run's run.json, else bytes)
	Harness    harness.Config
	Limit      int
	Batch      int
	MaxLength  int
	ScoreMemMB int // oryxlm.Options.ScoreMemMB (0 = default)
	Bootstrap  int
	LogSamples string
	ModelName  string
	Log        io.Writer
}

// Run evaluates and writes the run file; it returns the file's path.
func Run(o Options) (string, error) {
	if o.Log == nil {
		o.Log = os.Stderr
	}
	if o.Checkpoint == "" {
		return "", errors.New("--checkpoint is required")
	}
	if o.Mixed && o.Schedule != "" {
		return "", errors.New("--mixed and --schedule are exclusive")
	}
	tasks, err := harness.Resolve(o.Tasks, o.Harness)
	if err != nil {
		return "", fmt.Errorf("--tasks: %w", err)
	}
	spec := o.Tokenizer
	if spec == "" {
		spec = runinfo.Tokenizer(o.Checkpoint)
	}
	tok, err := datasets.LoadTokenizer(spec)
	if err != nil {
		return "", fmt.Errorf("--tokenizer: %w", err)
	}
	schedule := o.Schedule
	if o.Mixed {
		schedule = oryxlm.Mixed
	}
	m, ctx, err := oryx.LoadCheckpoint(o.Checkpoint, nil)
	if err != nil {
		return "", err
	}
	lm, err := oryxlm.New(m, ctx, tok, oryxlm.Options{MaxLength: o.MaxLength, Schedule: schedule, Batch: o.Batch,
		ScoreMemMB: o.ScoreMemMB})
	if err != nil {
		return "", err
	}
	hopts := harness.Options{Limit: o.Limit, Mixed: o.Mixed, BootstrapIters: o.Bootstrap,
		Progress: harness.ProgressBar(o.Log, time.Second)}
	if o.LogSamples != "" {
		if err := os.MkdirAll(filepath.Dir(o.LogSamples), 0o755); err != nil {
			return "", err
		}
		w, err := harness.CreateSampleFile(o.LogSamples)
		if err != nil {
			return "", fmt.Errorf("--log-samples: %w", err)
		}
		defer w.Close()
		hopts.Samples = w
	}
	var results []*harness.Result
	var flops float64
	for _, t := range tasks {
		lm.FLOPs = 0
		r, err := harness.Run(lm, t, hopts)
		if err != nil {
			return "", fmt.Errorf("task %s: %w", t.Name(), err)
		}
		r.FLOPs = lm.FLOPs
		flops += lm.FLOPs
		fmt.Fprintln(o.Log, r.Summary())
		results = append(results, r)
	}
	be, _ := backend.Get()
	info := leaderboard.RunInfo{
		Model: o.ModelName, Variant: string(m.Config.Variant), Size: presetName(m.Config),
		Parameters: oryx.CountParams(m.Config).Total, Checkpoint: o.Checkpoint,
		CheckpointStep: optimizers.GetGlobalStep(ctx), TokensSeen: tokensSeen(o.Checkpoint, optimizers.GetGlobalStep(ctx)),
		Schedule: lm.Schedule(), Tokenizer: tok.Name(), MaxLength: lm.MaxLength(), FLOPs: flops,
		Date: time.Now().UTC().Format(time.RFC3339),
	}
	if be != nil {
		info.Backend = be.Name()
	}
	if info.Model == "" {
		info.Model = filepath.Base(filepath.Clean(o.Checkpoint))
	}
	out := o.Out
	if out == "" {
		out = filepath.Join("results", info.Model+"-"+safeName(info.Schedule)+".json")
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	if err := leaderboard.NewRunFile(info, results).WriteFile(out); err != nil {
		return "", err
	}
	return out, nil
}

// Merge builds <dir>/leaderboard.json and <dir>/leaderboard.md from run files.
func Merge(dir string, files []string) error {
	if len(files) == 0 {
		return errors.New("merge: no run files given")
	}
	l, err := leaderboard.Merge(files...)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return l.WriteFiles(filepath.Join(dir, "leaderboard.json"), filepath.Join(dir, "leaderboard.md"))
}

// tokensSeen reads the training tokens of the checkpoint's step from its trainer-state file, when present.
func tokensSeen(dir string, step int64) int64 {
	data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("trainer-state-%08d.json", step)))
	if err != nil {
		return 0
	}
	var st struct {
		Tokens int64 `json:"tokens_seen"`
	}
	_ = json.Unmarshal(data, &st)
	return st.Tokens
}

// presetName is the preset whose shape the config has ("" if none).
func presetName(c oryx.Config) string {
	for _, n := range oryx.PresetNames {
		if p, err := oryx.Preset(n, c.Variant); err == nil && p.DModel == c.DModel && p.Layers == c.Layers && p.MLPHidden == c.MLPHidden {
			return n
		}
	}
	return ""
}

var unsafeRE = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func safeName(s string) string { return strings.Trim(unsafeRE.ReplaceAllString(s, "_"), "_") }
