// Package measure is `evals frontier`: accuracy against FLOPs for attention budgets and the policies that
// place them (oryx/schedule/budget.go), on MQAR, the mini needle, and harness tasks (NIAH, LM tasks), written
// as frontier.json and its plots (evals/frontier).
package measure

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/evalsetup"
	"github.com/oryx-go/oryx/evals/frontier"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/leaderboard"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/evals/probes"
	"github.com/oryx-go/oryx/internal/claim"
	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// DefaultBudgets are the attention fractions of `evals frontier`.
var DefaultBudgets = []float64{0, 0.02, 0.05, 0.1, 0.2, 0.5, 1}

// Seeds of the frontier's synthetic examples: the tiny study's evaluation seeds (unseen in training).
const (
	frontierMQARSeed   = 77
	frontierNeedleSeed = 78
)

// Options configure `evals frontier`.
type Options struct {
	Checkpoint string
	Tokenizer  string   // "" = the training run's
	Tasks      []string // "mqar", "needle", harness task names and groups
	Budgets    []float64
	Policies   []schedule.Policy
	// Harness, DataRootSource: the harness tasks' data (as Options).
	Harness        harness.Config
	DataRootSource string
	// Limit caps the documents of each harness task, the MQAR examples per pair count and the needle
	// samples (0: each task's default: all documents, 128 MQAR examples, 60 needles).
	Limit       int
	Batch       int
	MaxLength   int // NIAH (as Options.MaxLength)
	LMMaxLength int // LM tasks (as Options.LMMaxLength)
	ScoreMemMB  int
	// GenMemMB bounds the memory of a generation batch of the needle and the NIAH tasks
	// (oryxlm.Options.GenMemMB; 0 = default): the batch is cut below Batch to fit, and each choice logged.
	GenMemMB int
	// MQAR sizes (probes.MQAROptions: unset ones from the checkpoint's run.json).
	MQAR probes.MQAROptions
	// Needle: prompt lengths (default: the run's seq_len − 6, else 122), depths (default 0, 0.25, 0.5,
	// 0.75, 1) and samples per (length, depth) (default 12).
	NeedleLengths []int
	NeedleDepths  []float64
	NeedleSamples int
	Out           string // directory: frontier.json, frontier.png, frontier_fraction.png
	Force         bool   // recompute the points Out already holds
	Log           io.Writer
}

// Run runs every task under every budget and policy and writes Out/frontier.json (after each point:
// a rerun with the same Out continues, skipping the points it holds unless Force) and the plots
// Out/frontier.png (accuracy against gathered FLOPs per token, a panel per task, a line per policy) and
// Out/frontier_fraction.png (against the realised attention fraction). A failing task is recorded and the
// others still run; Run then returns an error naming it.
func Run(o Options) (*frontier.Frontier, error) {
	if o.Log == nil {
		o.Log = os.Stderr
	}
	if err := o.validate(); err != nil {
		return nil, cli.Usage(err) // exit status 2, as every flag mistake
	}
	htasks, own, lengths, err := o.tasks()
	if err != nil {
		return nil, err
	}
	mo := o.MQAR
	mo.Checkpoint = o.Checkpoint
	if slices.Contains(own, frontier.TaskMQAR) {
		mo = mo.Resolve(o.Log)
		if o.Limit > 0 {
			mo.Examples = min(mo.Examples, o.Limit)
		}
		if err := o.checkMQARMemory(mo); err != nil {
			return nil, err
		}
	}
	tok, err := evalsetup.LoadTokenizer(o.Tokenizer, o.Checkpoint)
	if err != nil {
		return nil, err
	}
	var needles []datasets.MiniNeedle
	if slices.Contains(own, frontier.TaskNeedle) {
		if err := o.checkNeedleMemory(); err != nil {
			return nil, err
		}
		if needles, err = o.needles(tok); err != nil {
			return nil, err
		}
	}
	if err := claim.Dir("--out", o.Out, claim.Frontier, o.Force); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	jsonPath := filepath.Join(o.Out, claim.FrontierFile)

	maxLen := max(o.MaxLength, o.LMMaxLength, mo.SeqLen+1)
	for _, n := range needles {
		maxLen = max(maxLen, len(n.PromptTokens)+8)
	}
	lm, step, hash, err := o.loadModel(tok, maxLen)
	if err != nil {
		return nil, err
	}
	defer lm.Close()
	f := o.newFrontier(lm, step)
	f.CheckpointHash = hash
	f.Settings = o.settings(mo, needles, lengths)
	done := map[string]frontier.Point{}
	if !o.Force {
		if done, err = frontier.PreviousPoints(jsonPath, f, o.Log); err != nil {
			return nil, err
		}
	}
	save := func() error { return f.Save(jsonPath) }
	var failed []error
	for _, r := range o.runners(lm, own, htasks, lengths, mo, needles) {
		if err := o.runTask(lm, f, r.name, r.run, done, save); err != nil {
			f.Failed[r.name] = err.Error()
			failed = append(failed, fmt.Errorf("%s: %w", r.name, err))
			fmt.Fprintf(o.Log, "frontier %s: FAILED: %v\n", r.name, err)
			if err := save(); err != nil {
				return nil, err
			}
		}
	}
	if err := save(); err != nil {
		return nil, err
	}
	if err := f.WritePNG(filepath.Join(o.Out, "frontier.png"), false); err != nil {
		return f, err
	}
	if err := f.WritePNG(filepath.Join(o.Out, "frontier_fraction.png"), true); err != nil {
		return f, err
	}
	if len(failed) > 0 {
		return f, fmt.Errorf("%d task(s) failed (the others are in %s):\n%w", len(failed), jsonPath, errors.Join(failed...))
	}
	return f, nil
}

// tasks splits o.Tasks into harness tasks (resolved, their data root and lengths checked) and the
// frontier's own tasks, and returns the harness's maximum lengths per task group.
func (o *Options) tasks() (htasks []harness.Task, own []string, lengths map[string]int, err error) {
	for _, name := range o.Tasks {
		if name == frontier.TaskMQAR || name == frontier.TaskNeedle {
			own = append(own, name)
			continue
		}
		ts, err := harness.Resolve(name, o.Harness)
		if err != nil {
			return nil, nil, nil, cli.Usagef("--tasks: %w (the frontier's own tasks: %s, %s)", err, frontier.TaskMQAR, frontier.TaskNeedle)
		}
		htasks = append(htasks, ts...)
	}
	if len(htasks) > 0 {
		if err := evalsetup.CheckDataRoot(o.Harness, o.DataRootSource, htasks); err != nil {
			return nil, nil, nil, err
		}
	}
	lengths = map[string]int{"lm": o.LMMaxLength, "recall": o.MaxLength, "niah": o.MaxLength}
	for _, t := range htasks {
		if c, ok := t.(harness.Checker); ok {
			n := max(o.MaxLength, o.LMMaxLength)
			if l, ok := lengths[harness.GroupOf(t.Name())]; ok {
				n = l
			}
			if err := c.Check(n); err != nil {
				return nil, nil, nil, fmt.Errorf("task %s: %w", t.Name(), err)
			}
		}
	}
	return htasks, own, lengths, nil
}

// checkMQARMemory refuses, before any example is generated or the model loaded, an MQAR sequence length whose
// memory would not fit this process (checkLengthMemory).
func (o *Options) checkMQARMemory(mo probes.MQAROptions) error {
	seqLen := mo.SeqLen
	if seqLen <= 0 {
		seqLen = 256 // MQAR's default
	}
	return o.checkLengthMemory(fmt.Sprintf("--seq-len %d (MQAR tokens per example)", seqLen),
		fmt.Sprintf("--examples %d", mo.Examples), max(mo.Examples, 1), max(min(o.Batch, mo.Examples), 1), seqLen)
}

// checkNeedleMemory is checkMQARMemory for the mini needles: the longest of --needle-lengths, as many
// needles as the lengths, depths and --needle-samples (or --limit) make.
func (o *Options) checkNeedleMemory() error {
	longest := slices.Max(append([]int{0}, o.NeedleLengths...))
	if longest == 0 {
		return nil // the run's length
	}
	depths, samples := len(o.NeedleDepths), o.NeedleSamples
	if depths == 0 {
		depths = 5 // needles()'s defaults
	}
	if samples == 0 {
		samples = 12
	}
	n := len(o.NeedleLengths) * depths * samples
	if o.Limit > 0 {
		n = min(n, o.Limit)
	}
	return o.checkLengthMemory(fmt.Sprintf("--needle-lengths %d (mini needle tokens)", longest),
		fmt.Sprintf("%d needles", n), n, 1, longest) // generation sizes its batch to --gen-mem-mb: one row at least
}

// checkLengthMemory refuses n sequences of seqLen tokens (named by what and count) whose memory would not
// fit this process (evalsetup.CheckLengthMemory) before they are generated.
func (o *Options) checkLengthMemory(what, count string, n, rows, seqLen int) error {
	return evalsetup.CheckLengthMemory(o.Checkpoint, o.ScoreMemMB, what, count, n, rows, seqLen)
}

// loadModel loads the checkpoint, a multi-mixer model, as the evaluations' LM of maxLen tokens and returns
// it with the checkpoint's step and hash (of the one checkpoint loaded: oryx.LoadCheckpointHashed).
func (o *Options) loadModel(tok tokenizers.Tokenizer, maxLen int) (*oryxlm.Model, int64, string, error) {
	m, mctx, hash, err := oryx.LoadCheckpointHashed(o.Checkpoint, nil)
	if err != nil {
		return nil, 0, "", err
	}
	if !m.Config.Variant.IsMultiMixer() {
		return nil, 0, "", fmt.Errorf("--checkpoint %s: variant %s has one readout; the frontier needs a multi-mixer model (oryx-tg, oryx-tm)", o.Checkpoint, m.Config.Variant)
	}
	lm, err := oryxlm.New(m, mctx, tok, oryxlm.Options{Batch: o.Batch, MaxLength: maxLen, ScoreMemMB: o.ScoreMemMB,
		GenMemMB: o.GenMemMB, Log: o.Log})
	if err != nil {
		return nil, 0, "", err
	}
	return lm, optimizers.GetGlobalStep(mctx), hash, nil
}

// newFrontier starts frontier.json's record of lm at the checkpoint's step: no points yet.
func (o *Options) newFrontier(lm *oryxlm.Model, step int64) *frontier.Frontier {
	f := &frontier.Frontier{Model: filepath.Base(filepath.Clean(o.Checkpoint)), Checkpoint: o.Checkpoint,
		CheckpointStep: step, Variant: string(lm.Config().Variant), Tokenizer: lm.Tokenizer().Name(),
		Limit: o.Limit, Tasks: o.Tasks, Budgets: o.Budgets, Notes: frontier.Notes, Failed: map[string]string{}}
	if be, err := oryx.Backend(); err == nil {
		f.Backend = be.Name()
	}
	for _, p := range o.Policies {
		f.Policies = append(f.Policies, string(p))
	}
	return f
}

// frontierRunner measures one task under lm's current schedule.
type frontierRunner struct {
	name string
	run  func() (frontier.Point, error)
}

// runners are the tasks' measurements, the frontier's own tasks first.
func (o *Options) runners(lm *oryxlm.Model, own []string, htasks []harness.Task, lengths map[string]int,
	mo probes.MQAROptions, needles []datasets.MiniNeedle) []frontierRunner {
	var runners []frontierRunner
	for _, name := range own {
		switch name {
		case frontier.TaskMQAR:
			runners = append(runners, frontierRunner{name, func() (frontier.Point, error) { return frontierMQAR(lm, mo) }})
		case frontier.TaskNeedle:
			runners = append(runners, frontierRunner{name, func() (frontier.Point, error) { return frontierNeedle(lm, needles) }})
		}
	}
	for _, t := range htasks {
		runners = append(runners, frontierRunner{t.Name(), func() (frontier.Point, error) {
			return frontierHarness(lm, t, harness.Options{Limit: o.Limit, GroupMaxLength: lengths, BootstrapIters: -1})
		}})
	}
	return runners
}

// runTask measures one task at every budget and policy (budgets 0 and 1 once), adding the points to f.
func (o *Options) runTask(lm *oryxlm.Model, f *frontier.Frontier, task string, run func() (frontier.Point, error),
	done map[string]frontier.Point, save func() error) error {
	delete(f.Failed, task)
	for _, b := range o.Budgets {
		shared := b == 0 || b == 1
		for k, p := range o.Policies {
			if shared && k > 0 {
				pt := f.Find(task, string(o.Policies[0]), b)
				if pt == nil {
					break
				}
				cp := *pt
				cp.Policy, cp.Shared = string(p), true
				f.Add(cp)
				continue
			}
			key := frontier.PointKey(task, string(p), b)
			if pt, ok := done[key]; ok {
				f.Add(pt)
				continue
			}
			spec := schedule.BudgetSpec(b, p)
			if err := lm.SetSchedule(spec); err != nil {
				return err
			}
			lm.ResetCounters()
			start := time.Now()
			pt, err := run()
			if err != nil {
				return fmt.Errorf("%s: %w", spec, err)
			}
			if math.IsNaN(pt.Value) || math.IsInf(pt.Value, 0) {
				return fmt.Errorf("%s: %s is %v (non-finite scores)", spec, pt.Metric, pt.Value)
			}
			pt.Task, pt.Policy, pt.Budget, pt.Shared = task, string(p), b, shared
			pt.FLOPs, pt.FLOPsGathered, pt.LinearPassTokens = lm.FLOPs, lm.FLOPsGathered, lm.LinearPassTokens
			if pt.Tokens > 0 {
				pt.FLOPsPerToken, pt.FLOPsGatheredPerToken = pt.FLOPs/float64(pt.Tokens), pt.FLOPsGathered/float64(pt.Tokens)
			}
			pt.Seconds = time.Since(start).Seconds()
			f.Add(pt)
			fmt.Fprintf(o.Log, "frontier %s %s: %s %.4f, attention %.2f%%, %.3g GFLOP/token gathered (%.3g as computed), %.1fs\n",
				task, spec, pt.Metric, pt.Value, 100*pt.AttentionFraction, pt.FLOPsGatheredPerToken/1e9, pt.FLOPsPerToken/1e9, pt.Seconds)
			if err := save(); err != nil {
				return err
			}
		}
	}
	return nil
}

// settings describes what produced a point besides the checkpoint, tokenizer, limit, budget and policy.
func (o *Options) settings(mo probes.MQAROptions, needles []datasets.MiniNeedle, lengths map[string]int) map[string]string {
	s := map[string]string{
		"max_lengths": fmt.Sprintf("%v max %d lm %d", lengths, o.MaxLength, o.LMMaxLength),
		"data_root":   o.Harness.DataRoot,
	}
	if slices.Contains(o.Tasks, frontier.TaskMQAR) {
		s["mqar"] = fmt.Sprintf("pairs %v seq_len %d vocab %d offset %d examples %d seed %d", mo.Pairs, mo.SeqLen,
			mo.Vocab, mo.Offset, mo.Examples, mo.Seed)
	}
	if slices.Contains(o.Tasks, frontier.TaskNeedle) {
		s["needle"] = fmt.Sprintf("lengths %v depths %v samples %d needles %d", o.NeedleLengths, o.NeedleDepths,
			o.NeedleSamples, len(needles))
	}
	return s
}

func (o *Options) validate() error {
	switch {
	case o.Checkpoint == "":
		return errors.New("--checkpoint is required")
	case len(o.Tasks) == 0:
		return errors.New("--tasks: no task")
	case len(o.Budgets) == 0:
		return errors.New("--budgets: no budget")
	case len(o.Policies) == 0:
		return errors.New("--policies: no policy")
	case o.Out == "":
		return errors.New("--out is required")
	case o.Limit < 0:
		return fmt.Errorf("--limit %d: want 0 (each task's default) or a positive count", o.Limit)
	}
	for _, b := range o.Budgets {
		if math.IsNaN(b) || b < 0 || b > 1 {
			return fmt.Errorf("--budgets: %v is not a fraction in [0, 1]", b)
		}
	}
	if o.Batch == 0 {
		o.Batch = 8
	}
	if o.MaxLength == 0 && o.LMMaxLength == 0 {
		o.MaxLength, o.LMMaxLength = 8192, evalsetup.DefaultLMMaxLength
	}
	return nil
}

// needles builds the mini needle samples.
func (o *Options) needles(tok tokenizers.Tokenizer) ([]datasets.MiniNeedle, error) {
	lengths, depths, samples := o.NeedleLengths, o.NeedleDepths, o.NeedleSamples
	if len(lengths) == 0 {
		l := 122 // the tiny study's: 128 − 6, so that the answer fits the training length
		if _, seqLen, ok := evalsetup.TrainedOn(o.Checkpoint); ok && seqLen > 16 {
			l = seqLen - 6
		}
		lengths = []int{l}
	}
	if len(depths) == 0 {
		depths = []float64{0, 0.25, 0.5, 0.75, 1}
	}
	if samples == 0 {
		samples = 12
	}
	var out []datasets.MiniNeedle
	for _, l := range lengths {
		for _, d := range depths {
			for range samples {
				if o.Limit > 0 && len(out) >= o.Limit {
					return out, nil
				}
				s, err := datasets.GenerateMiniNeedle(tok, l, d, frontierNeedleSeed, len(out))
				if err != nil {
					return nil, fmt.Errorf("needle: %w", err)
				}
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// frontierMQAR is MQAR pooled over the pair counts, under lm's schedule (probes.PooledMQAR).
func frontierMQAR(lm *oryxlm.Model, o probes.MQAROptions) (frontier.Point, error) {
	r, err := probes.PooledMQAR(lm, o, frontierMQARSeed)
	return frontier.Point{Metric: "acc", Value: r.Value, StdErr: r.StdErr, AttentionFraction: r.AttentionFraction,
		Tokens: r.Tokens}, err
}

// frontierNeedle is the mini needles' score under lm's schedule (probes.PooledNeedles).
func frontierNeedle(lm *oryxlm.Model, needles []datasets.MiniNeedle) (frontier.Point, error) {
	r, err := probes.PooledNeedles(lm, needles)
	return frontier.Point{Metric: "score", Value: r.Value, StdErr: r.StdErr, AttentionFraction: r.AttentionFraction,
		Tokens: r.Tokens}, err
}

// frontierHarness runs a harness task under lm's schedule (budget:F:question gets the task's split) and
// reads its accuracy metric.
func frontierHarness(lm *oryxlm.Model, t harness.Task, hopts harness.Options) (frontier.Point, error) {
	b, _ := lm.Budget()
	hopts.Mixed = b.Policy == schedule.PolicyQuestion
	r, err := harness.Run(lm, t, hopts)
	err = evalsetup.NameLengthFlag(t, hopts, err)
	if err != nil {
		return frontier.Point{}, err
	}
	name := accuracyMetric(t.Name(), r.Metrics)
	if name == "" {
		return frontier.Point{}, fmt.Errorf("no metric in the task's result")
	}
	m := r.Metrics[name]
	return frontier.Point{Metric: name, Value: m.Value, StdErr: m.Stderr, AttentionFraction: r.AttentionFraction, Tokens: r.Tokens}, nil
}

// accuracyMetric is the metric a task is plotted by: the one the papers' averages use, else the first of
// score, acc, acc_norm, contains, and then any (sorted).
func accuracyMetric(task string, ms map[string]harness.Metric) string {
	for _, a := range leaderboard.Averages {
		for _, r := range a.Members {
			if _, ok := ms[r.Metric]; ok && r.Task == task {
				return r.Metric
			}
		}
	}
	for _, n := range []string{"score", "acc", "acc_norm", "contains", "word_perplexity", "perplexity"} {
		if _, ok := ms[n]; ok {
			return n
		}
	}
	names := make([]string, 0, len(ms))
	for n := range ms {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}
