// Package evalrun is what `go run ./evals` does: load a checkpoint, run the requested harness tasks under a
// schedule, and write one leaderboard results file; and `evals merge`: merge results files into leaderboard.json and a
// markdown table. The other subcommands have rooms of their own: the synthetic probes (`evals mqar`, `evals
// switch`) are evals/probes, `evals frontier` is evals/frontier; what they share in setting up from flags is
// evals/evalsetup.
package evalrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/oryx-go/oryx/evals/evalsetup"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/leaderboard"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/internal/claim"
	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// Options are the flags of an evaluation run.
type Options struct {
	Checkpoint string
	Tasks      string // harness task list (names, groups, "all")
	Mixed      bool   // the paper's mixed setting (per-task split points)
	Schedule   string // an oryx schedule spec for every token (exclusive with Mixed); "" = attention
	Out        string // results file path ("" = results/<model>-<schedule>.json)
	Tokenizer  string // tokenizers.Load spec ("" = from the run's run.json, else bytes)
	Harness    harness.Config
	// DataRootSource says how Harness.DataRoot was found ("flag", "env", "walk-up"; harness.ResolveDataRoot),
	// for error messages.
	DataRootSource string
	Limit          int
	Batch          int
	// MaxLength is the max_length of the NIAH and recall tasks (recall is also capped at JRT's 2048);
	// LMMaxLength that of the LM tasks (lm-eval's max_length, 2048 by default). The model takes calls up to
	// the larger of the two.
	MaxLength   int
	LMMaxLength int
	Bootstrap   int
	// ScoreMemMB bounds the memory of log-likelihood scoring (oryxlm.Options.ScoreMemMB; 0 = default).
	ScoreMemMB int
	// GenMemMB bounds the memory of a generation batch (oryxlm.Options.GenMemMB; 0 = default): the batch is
	// cut below Batch to fit.
	GenMemMB int
	// LogSamples writes samples_<task>_<timestamp>.jsonl (lm-eval's per-document records) into the
	// lm-eval folder next to Out (LMEvalDir).
	LogSamples bool
	// Force reruns the tasks Out already holds (by default a rerun with the same Out skips them).
	Force     bool
	ModelName string
	Log       io.Writer // progress and per-task lines
	Stdout    io.Writer // the lm-eval results table at the end (nil: not printed)
}

// validate refuses bad option values before anything is read or computed.
func (o *Options) validate() error {
	switch {
	case o.Checkpoint == "":
		return errors.New("--checkpoint is required")
	case o.Mixed && o.Schedule != "":
		return errors.New("--mixed and --schedule are exclusive")
	case o.Limit < 0:
		return fmt.Errorf("--limit %d: want 0 (all documents) or a positive count", o.Limit)
	case o.Batch < 1:
		return fmt.Errorf("--batch %d: want at least 1 request per model call", o.Batch)
	case o.MaxLength < 2:
		return fmt.Errorf("--max-length %d: want at least 2 tokens", o.MaxLength)
	case o.LMMaxLength < 2:
		return fmt.Errorf("--lm-max-length %d: want at least 2 tokens", o.LMMaxLength)
	}
	if o.Schedule != "" { // before the data root, the checkpoint and the model: a usage error
		if _, err := schedule.ParseSpec(o.Schedule); err != nil {
			return fmt.Errorf("--schedule %q: %w", o.Schedule, err)
		}
	}
	return nil
}

// groupLengths are the max lengths of the task groups.
func (o *Options) groupLengths() map[string]int {
	return map[string]int{"lm": o.LMMaxLength, "recall": o.MaxLength, "niah": o.MaxLength}
}

// Run evaluates and writes the results file; it returns the file's path. The file is written after every
// finished task, so a later failure loses nothing; --out is checked writable before any compute; tasks the
// file already holds (same checkpoint, schedule, limit and lengths) are skipped unless Force; a failing task
// is reported and the others still run, and Run then returns the path with an error naming every failed
// task.
//
// Cancelling ctx (SIGINT in `go run ./evals`) stops Run at once: the tasks finished so far are in the
// results file already, the one in progress is dropped (a partial task has no score; its computation is
// abandoned, and a rerun of the same command continues with it), and the error wraps ctx.Err().
func Run(ctx context.Context, o Options) (string, error) {
	o.setDefaults()
	if err := o.validate(); err != nil {
		return "", cli.Usage(err)
	}
	sched, model, out := o.names()
	if err := checkModelName(model, o.ModelName != "", o.Checkpoint); err != nil {
		return "", cli.Usage(err)
	}
	if err := checkLMEvalDirOutsideCheckpoint(LMEvalDir(out, model), o.Checkpoint, out, model); err != nil {
		return "", cli.Usage(err)
	}
	tasks, err := o.resolveTasks()
	if err != nil {
		return "", err
	}
	lengths := o.groupLengths()
	modelMax := max(o.MaxLength, o.LMMaxLength)
	if err := claimResults(out, model, o.Force); err != nil {
		return "", err
	}
	if err := checkWritable(out); err != nil {
		return "", fmt.Errorf("--out: %w", err)
	}
	tok, err := evalsetup.LoadTokenizer(o.Tokenizer, o.Checkpoint)
	if err != nil {
		return "", err
	}
	var prev *leaderboard.ResultsFile
	if !o.Force {
		if prev, err = previousResults(out, o, sched, tok.Name(), lengths); err != nil {
			return "", err
		}
	}
	// The weights, their step and their hash, all of one checkpoint (a training may be saving into it).
	m, mctx, hash, err := oryx.LoadCheckpointHashed(o.Checkpoint, nil)
	if err != nil {
		return "", err
	}
	lm, err := oryxlm.New(m, mctx, tok, oryxlm.Options{MaxLength: modelMax, Schedule: sched, Batch: o.Batch,
		ScoreMemMB: o.ScoreMemMB, GenMemMB: o.GenMemMB, Log: o.Log})
	if err != nil {
		return "", err
	}
	defer lm.Close()
	info := o.runInfo(m, optimizers.GetGlobalStep(mctx), lm, model, modelMax, lengths)
	info.CheckpointHash = hash
	done := reusableTasks(prev, info, tasks, out, o.Log)
	// budget:F:question reads each task's split: the harness passes it in mixed mode.
	b, isBudget := lm.Budget()
	hopts := harness.Options{Limit: o.Limit, Mixed: o.Mixed || (isBudget && b.Policy == schedule.PolicyQuestion),
		BootstrapIters: o.Bootstrap, GroupMaxLength: lengths, Progress: harness.ProgressBar(o.Log, time.Second)}
	start := time.Now()
	stamp := start.Format("2006-01-02T15-04-05.000000") // lm-eval's date_id: isoformat() with ":" → "-"
	lmDir := LMEvalDir(out, model)
	results := map[string]*harness.Result{}
	maps.Copy(results, done)
	failed := map[string]string{}
	var errs []error
	write := func() error {
		info.Date = time.Now().UTC().Format(time.RFC3339)
		info.Seconds = time.Since(start).Seconds()
		info.Failed = failed
		var rs []*harness.Result
		var flops float64
		for _, t := range tasks {
			if r := results[t.Name()]; r != nil {
				rs = append(rs, r)
				flops += r.FLOPs
			}
		}
		info.FLOPs = flops
		rf := leaderboard.NewResultsFile(info, rs)
		if err := rf.WriteFile(out); err != nil {
			return err
		}
		// The same file where lm-eval's tools look for it: <dir>/<model_name_sanitized>/results_<date>.json.
		if err := os.MkdirAll(lmDir, 0o755); err != nil {
			return fmt.Errorf("lm-eval results folder: %w", err)
		}
		return rf.WriteFile(filepath.Join(lmDir, "results_"+stamp+".json"))
	}
	for _, t := range tasks {
		name := t.Name()
		if r := done[name]; r != nil {
			fmt.Fprintf(o.Log, "%s: already in %s, skipped (--force reruns it)\n", name, out)
			continue
		}
		if err := ctx.Err(); err != nil {
			return out, interrupted(name, out, len(results), err)
		}
		r, err := o.runTaskCtx(ctx, lm, t, hopts, lmDir, stamp)
		if cerr := ctx.Err(); cerr != nil {
			return out, interrupted(name, out, len(results), cerr)
		}
		if err != nil {
			failed[name] = err.Error()
			errs = append(errs, fmt.Errorf("task %s: %w", name, err))
			fmt.Fprintf(o.Log, "%s: FAILED: %v\n", name, err)
		} else {
			recordDataHash(r, o.Log)
			results[name] = r
			delete(failed, name)
			fmt.Fprintln(o.Log, r.Summary())
		}
		if err := write(); err != nil {
			return "", err
		}
	}
	if len(results) > 0 && o.Stdout != nil {
		if err := printResultsTable(o.Stdout, out); err != nil {
			return "", err
		}
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("%d of %d tasks failed (the others are in %s):\n%w", len(errs), len(tasks), out, errors.Join(errs...))
	}
	return out, nil
}

// printResultsTable prints lm-eval's results table of the results file out to w.
func printResultsTable(w io.Writer, out string) error {
	rf, err := leaderboard.ReadResultsFile(out)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, rf.ResultsTable())
	return nil
}

// setDefaults fills what library callers may leave zero with the command's defaults.
func (o *Options) setDefaults() {
	if o.Log == nil {
		o.Log = os.Stderr
	}
	if o.MaxLength == 0 && o.LMMaxLength == 0 {
		o.MaxLength, o.LMMaxLength = 8192, evalsetup.DefaultLMMaxLength
	}
	if o.Batch == 0 {
		o.Batch = 8
	}
}

// resolveTasks resolves o.Tasks and checks their data root and each task's length against its group's
// maximum: usage errors, before any compute.
func (o *Options) resolveTasks() ([]harness.Task, error) {
	tasks, err := harness.Resolve(o.Tasks, o.Harness)
	if err != nil {
		return nil, cli.Usagef("--tasks: %w", err)
	}
	if err := evalsetup.CheckDataRoot(o.Harness, o.DataRootSource, tasks); err != nil {
		return nil, err
	}
	lengths := o.groupLengths()
	modelMax := max(o.MaxLength, o.LMMaxLength)
	for _, t := range tasks {
		if c, ok := t.(harness.Checker); ok {
			n := modelMax
			if l, ok := lengths[harness.GroupOf(t.Name())]; ok {
				n = l
			}
			if err := c.Check(n); err != nil {
				return nil, cli.Usagef("task %s: %w", t.Name(), err)
			}
		}
	}
	return tasks, nil
}

// names are the run's schedule spec (Mixed, or o.Schedule, "attention" by default), model name (default:
// the checkpoint directory's) and results file (default: results/<model>-<schedule>.json, the model name
// sanitized as lm-eval's folder: "org/m" → results/org__m-attention.json).
func (o *Options) names() (sched, model, out string) {
	sched = o.Schedule
	switch {
	case o.Mixed:
		sched = oryxlm.Mixed
	case sched == "":
		sched = "attention"
	}
	model = o.ModelName
	if model == "" {
		// The directory's own name: "--checkpoint .." is named after the parent, not "..".
		abs, err := filepath.Abs(o.Checkpoint)
		if err != nil {
			abs = filepath.Clean(o.Checkpoint)
		}
		model = filepath.Base(abs)
	}
	out = o.Out
	if out == "" {
		out = filepath.Join("results", leaderboard.SanitizeModelName(model)+"-"+safeName(sched)+".json")
	}
	return sched, model, out
}

// runInfo describes the run for the results file: the model and checkpoint (at step), the schedule,
// tokenizer, lengths and limits, the backend.
func (o *Options) runInfo(m *oryx.Model, step int64, lm *oryxlm.Model, model string, modelMax int, lengths map[string]int) leaderboard.RunInfo {
	info := leaderboard.RunInfo{
		Model: model, Variant: string(m.Config.Variant), Size: presetName(m.Config),
		Parameters: oryx.CountParams(m.Config).Total, Checkpoint: o.Checkpoint,
		CheckpointStep: step, TokensSeen: rundir.TokensSeen(o.Checkpoint, step),
		Schedule: lm.Schedule(), Tokenizer: lm.Tokenizer().Name(), MaxLength: modelMax, Limit: o.Limit, BatchSize: o.Batch,
		BootstrapIters: harness.Options{BootstrapIters: o.Bootstrap}.Iters(), MaxLengths: lengths,
		Groups: harness.RequestedGroups(o.Tasks),
	}
	if be, _ := oryx.Backend(); be != nil {
		info.Backend = be.Name()
	}
	return info
}

// LMEvalDir is the folder where a run whose results file is out writes lm-eval's files, as lm-eval's
// EvaluationTracker lays them out for --output_path dir(out): <dir(out)>/<model_name_sanitized>/ holding
// results_<date>.json (the results file again) and, with --log-samples, samples_<task>_<date>.jsonl. lm-eval's
// tools (the Zeno uploader, the loaders that find the latest results file of a model) read that folder.
func LMEvalDir(out, model string) string {
	return filepath.Join(filepath.Dir(out), leaderboard.SanitizeModelName(model))
}

// interrupted is Run's error when ctx was cancelled before or during task name.
func interrupted(name, out string, finished int, err error) error {
	where := "no task had finished, nothing was written"
	if finished > 0 {
		where = fmt.Sprintf("the %d finished task(s) are in %s", finished, out)
	}
	return fmt.Errorf("interrupted before task %s finished (%s; rerun the same command to continue): %w", name, where, err)
}

// runTaskCtx is runTask, returning as soon as ctx is cancelled (the task's goroutine is abandoned: the model
// calls have no cancellation point, and a command exits right after).
func (o *Options) runTaskCtx(ctx context.Context, lm *oryxlm.Model, t harness.Task, hopts harness.Options, dir, stamp string) (*harness.Result, error) {
	type outcome struct {
		r   *harness.Result
		err error
	}
	c := make(chan outcome, 1)
	go func() {
		r, err := o.runTask(lm, t, hopts, dir, stamp)
		c <- outcome{r, err}
	}()
	select {
	case res := <-c:
		if res.err == nil {
			res.err = CheckResult(res.r) // a NaN score or no documents is a failure, never a number in the file
		}
		return res.r, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// runTask runs one task, with its samples file when asked for (removed again when the task fails), and
// names the data flags when the task's data is missing.
func (o *Options) runTask(lm *oryxlm.Model, t harness.Task, hopts harness.Options, dir, stamp string) (*harness.Result, error) {
	var samplesPath string
	if o.LogSamples {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("--log-samples: %w", err)
		}
		samplesPath = filepath.Join(dir, fmt.Sprintf("samples_%s_%s.jsonl", t.Name(), stamp))
		w, err := harness.CreateSampleFile(samplesPath)
		if err != nil {
			return nil, fmt.Errorf("--log-samples: %w", err)
		}
		hopts.Samples = w
	}
	lm.ResetCounters()
	r, err := harness.Run(lm, t, hopts)
	err = evalsetup.NameLengthFlag(t, hopts, err)
	if hopts.Samples != nil {
		if cerr := hopts.Samples.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(samplesPath)
		}
	}
	if err != nil {
		if evalsetup.IsMissingData(err) {
			err = fmt.Errorf("%w\n  data root %s; %s", err, evalsetup.DataRootDesc(o.Harness, o.DataRootSource), evalsetup.DataHint)
		}
		return nil, err
	}
	recordCost(r, lm)
	return r, nil
}

// recordCost writes lm's counters (reset before the task) and its budget policy into the task's result.
func recordCost(r *harness.Result, lm *oryxlm.Model) {
	r.FLOPs, r.FLOPsGathered, r.LinearPassTokens = lm.FLOPs, lm.FLOPsGathered, lm.LinearPassTokens
	if b, ok := lm.Budget(); ok {
		f := b.Fraction
		r.Policy, r.Budget = string(b.Policy), &f
	}
}

// claimResults refuses a results file out that would replace a file of another kind or go into another
// command's output directory, and an lm-eval folder (LMEvalDir) that is another command's output, unless
// force (internal/rundir's rules).
func claimResults(out, model string, force bool) error {
	isResultsFile := func(path string) error {
		_, err := leaderboard.ReadResultsFile(path)
		return err
	}
	if err := claim.File("--out", out, "a results file", isResultsFile, force); err != nil {
		return err
	}
	return claim.Shared("--out", LMEvalDir(out, model), "lm-eval's results_<date>.json", force)
}

// checkWritable creates out's directory and a temporary file in it, so that an unwritable --out fails
// before any compute.
func checkWritable(out string) error {
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a directory: want a results file path", out)
	}
	dir := filepath.Dir(out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(out)+".probe-*")
	if err != nil {
		return fmt.Errorf("%s is not writable: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// previousResults returns the results file out when it is one of the same run (checkpoint directory,
// schedule, tokenizer, limit, lengths), nil when there is none, and an error when it is another run's;
// reusableTasks then keeps the entries that still apply.
func previousResults(out string, o Options, schedule, tokName string, lengths map[string]int) (*leaderboard.ResultsFile, error) {
	if _, err := os.Stat(out); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	prev, err := leaderboard.ReadResultsFile(out)
	if err != nil {
		return nil, fmt.Errorf("--out %s exists and is not a results file (%w); use --force to overwrite it", out, err)
	}
	same := filepath.Clean(prev.Checkpoint) == filepath.Clean(o.Checkpoint) && prev.Schedule == schedule &&
		prev.Tokenizer == tokName && prev.Limit == o.Limit && maps.Equal(prev.MaxLengths, lengths)
	if !same {
		return nil, fmt.Errorf("--out %s holds another run (checkpoint %s, schedule %s, tokenizer %s, limit %d, lengths %v); "+
			"use --force to overwrite it or choose another --out", out, prev.Checkpoint, prev.Schedule, prev.Tokenizer, prev.Limit, prev.MaxLengths)
	}
	return prev, nil
}

// Merge builds <dir>/leaderboard.json and <dir>/leaderboard.md from results files (leaderboard.MergeWith:
// merge's own outputs among files are skipped; partial runs' averages are left out unless includePartial).
// It refuses a dir that is another command's output, or a leaderboard.json there that is not a leaderboard,
// unless force.
func Merge(dir string, files []string, includePartial, force bool) (*leaderboard.Leaderboard, error) {
	if len(files) == 0 {
		return nil, errors.New("merge: no results files given")
	}
	// A training run directory is the trainer's (and its prune's): a leaderboard written there is mistaken
	// for the run's own evaluation and mixed into what the trainer manages.
	if !force {
		h, err := claim.Classify(dir)
		if err != nil {
			return nil, fmt.Errorf("--out %s: %w", dir, err)
		}
		if slices.Contains(h.Kinds, claim.RunDir) {
			return nil, fmt.Errorf("--out %s holds %s: refusing to write a leaderboard into a training run directory; "+
				"choose another --out, or pass --force to write there anyway", dir, h.Describe())
		}
	}
	if err := claim.File("--out", filepath.Join(dir, "leaderboard.json"), "a leaderboard",
		leaderboard.CheckLeaderboardFile, force); err != nil {
		return nil, err
	}
	if err := claim.File("--out", filepath.Join(dir, "leaderboard.md"), "a leaderboard's table",
		leaderboard.CheckLeaderboardTable, force); err != nil {
		return nil, err
	}
	// A file's results are checked as a rerun checks them before trusting them again (checkMergedResult).
	l, err := leaderboard.MergeWith(leaderboard.MergeOptions{IncludePartial: includePartial, Check: checkMergedResult}, files...)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return l, l.WriteFiles(filepath.Join(dir, "leaderboard.json"), filepath.Join(dir, "leaderboard.md"))
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
