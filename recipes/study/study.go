package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/evalapi"
	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/claim"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/recipes/train"
)

// Report is the study's outcome, also written to study.json (scale.json, attribution.json for the other
// kinds).
type Report struct {
	Config   Config         `json:"config"`
	Models   []*ModelResult `json:"models"`   // one per run and seed, in Config.jobs() order
	Controls []Comparison   `json:"controls"` // the loss comparisons that attribute claim (a)'s gap, per seed
	Claims   []Claim        `json:"claims"`
	Seconds  float64        `json:"elapsed_s"`
	Backend  string         `json:"backend"`
	Date     string         `json:"date"`

	// Frontier is the attention-budget frontier of the Oryx-TG main model (frontier.go).
	Frontier *evalapi.FrontierSummary `json:"frontier"`
	// Scale is study-scale's table of the claims' gaps by width and budget (KindScale; scale.go).
	Scale *ScaleResult `json:"scale,omitempty"`
	// Attribution is the attribution's table (KindAttribution; attribution.go).
	Attribution *AttributionResult `json:"attribution,omitempty"`
	// Decompose is the (a) decomposition (KindDecompose; decompose.go).
	Decompose *DecomposeResult `json:"decompose,omitempty"`
	// Decide is the sequential study's looks (KindDecide; decide.go).
	Decide *DecideResult `json:"decide,omitempty"`
	// Trend is the gaps against tokens and width with their fits (KindTrend; trend.go).
	Trend *TrendResult `json:"trend,omitempty"`
}

// Run trains and evaluates every model of c (every run, every seed), then writes the artefacts of c's kind.
// A model whose run directory already holds a finished run is not retrained (its checkpoint is resumed at
// the last step), so an interrupted study continues where it stopped.
//
// Cancelling ctx (SIGINT in the command) stops Run between steps: a run in training is stopped by its own
// signal handling (recipe.Train saves a checkpoint and returns train.ErrInterrupted); the finished runs
// stay in c.Out, so running the study again continues with the next model.
func Run(ctx context.Context, c Config, log io.Writer) (*Report, error) {
	start := time.Now()
	be, err := oryx.Backend()
	if err != nil {
		return nil, err
	}
	rep := &Report{Config: c, Backend: be.Name()}
	if err := checkConfig(c); err != nil {
		return nil, err
	}
	if c.evaluation() == EvalFull {
		if err := checkProbes(c); err != nil {
			return nil, err
		}
	}
	if err := checkFrontier(c); err != nil {
		return nil, err
	}
	if err := claim.Dir("--out", c.Out, claim.Study, c.Force); err != nil {
		return nil, err
	}
	if err := checkOtherKind(c); err != nil {
		return nil, err
	}
	if c.kind() == KindDecide {
		if err := runDecide(ctx, c, rep, log, start); err != nil {
			return nil, err
		}
		return rep, nil
	}
	// The runs: trained c.Jobs at a time (jobs.go), each evaluated here once trained; the results in the
	// study's order.
	if rep.Models, err = trainAndEvaluateAll(ctx, c, log); err != nil {
		return nil, err
	}
	switch c.kind() {
	case KindStudy:
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("interrupted before the frontier (the runs are finished in %s): %w", filepath.Join(c.Out, "runs"), err)
		}
		if rep.Frontier, err = runFrontier(c, log); err != nil {
			return nil, err
		}
		rep.Controls = controls(c, rep.Models)
		rep.Claims = claims(c, rep.Models, rep.Controls)
	case KindScale:
		rep.Scale = scaleResult(c, rep.Models)
	case KindAttribution:
		rep.Attribution = attributionResult(c, rep.Models)
	case KindDecompose:
		rep.Controls = controls(c, rep.Models)
		rep.Claims = claims(c, rep.Models, rep.Controls)
		rep.Decompose = decomposeResult(c, rep.Models, rep.Claims)
	case KindTrend:
		if rep.Trend, err = trendResult(c, rep.Models); err != nil {
			return nil, err
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	rep.Date = time.Now().UTC().Format(time.RFC3339)
	if err := writeArtefacts(c, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// checkOtherKind refuses an Out that already holds the record of another kind of study (decompose.json when
// c is the study, ...): c would replace its report.md and leaderboard beside it, leaving a directory whose
// report no longer describes its record. c.Force writes there anyway.
func checkOtherKind(c Config) error {
	if c.Force {
		return nil
	}
	for _, rec := range claim.StudyRecords {
		kind := strings.TrimSuffix(rec, ".json")
		if kind == c.kind() {
			continue
		}
		if _, err := os.Lstat(filepath.Join(c.Out, rec)); err == nil {
			return fmt.Errorf("--out %s holds a study of kind %q (%s): refusing to write a study of kind %q there "+
				"(it would replace the other's report.md and leaderboard); choose another --out, or pass --force to "+
				"write there anyway", c.Out, kind, rec, c.kind())
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("--out %s: %w", c.Out, err)
		}
	}
	return nil
}

// checkConfig refuses what the study cannot run, before anything is trained.
func checkConfig(c Config) error {
	switch c.kind() {
	case KindStudy, KindScale, KindAttribution, KindDecompose, KindDecide, KindTrend:
	default:
		return fmt.Errorf("study: kind %q: want %s, %s, %s, %s, %s or %s", c.Kind, KindStudy, KindScale, KindAttribution, KindDecompose,
			KindDecide, KindTrend)
	}
	switch c.evaluation() {
	case EvalFull, EvalMQAR, EvalCurves:
	default:
		return fmt.Errorf("study: evaluation %q: want %s, %s or %s", c.Evaluation, EvalFull, EvalMQAR, EvalCurves)
	}
	if c.Seeds < 0 || c.Seeds > MaxSeeds {
		return fmt.Errorf("study: seeds %d must be in [1, %d] (0: one)", c.Seeds, MaxSeeds)
	}
	if c.CurveExamples < 0 {
		return fmt.Errorf("study: curve examples %d must be ≥ 0 (0: no recall curves)", c.CurveExamples)
	}
	if c.CurveExamples > 0 {
		if len(c.CurvePairs) == 0 {
			return fmt.Errorf("study: recall curves need at least one pair count (curve_pairs)")
		}
		for _, p := range c.CurvePairs {
			if _, err := datasets.NewMQARGenerator(datasets.MQARConfig{Vocab: datasets.MQARVocab, SeqLen: c.Train.SeqLen, NumPairs: p}); err != nil {
				return fmt.Errorf("study: recall curves at %d pairs: %w", p, err)
			}
		}
	}
	if c.kind() == KindScale {
		if c.CurveExamples == 0 {
			return fmt.Errorf("study: study-scale reads the retrieval gap from the recall curves: curve examples must be > 0")
		}
		for _, b := range c.ScaleBudgets {
			if b <= 0 || b > c.Train.Steps || (b != c.Train.Steps && (c.curveSteps() <= 0 || b%c.curveSteps() != 0)) {
				return fmt.Errorf("study: scale budget %d steps: must be a step of the recall curves (a multiple of %d) ≤ the %d training steps",
					b, c.curveSteps(), c.Train.Steps)
			}
		}
	}
	if c.kind() == KindTrend {
		if err := checkTrend(c); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for _, r := range c.Runs {
		if seen[r.Label()] {
			return fmt.Errorf("study: two runs are labelled %s", r.Label())
		}
		seen[r.Label()] = true
		if _, err := modelConfig(r); err != nil {
			return err
		}
	}
	return nil
}

// TrainRun trains job i of c (c.jobs(): run i/Seeds with seed i%Seeds+1) in this process, or resumes it (a
// finished run is left as it is), and returns its summary. It is what a training worker runs
// (Config.TrainWorker). With c.CurveExamples > 0 the recall curves are measured at every validation point
// (curves.go).
func TrainRun(c Config, i int, log io.Writer) (*train.Summary, error) {
	run, err := trainingRun(c, i, log)
	if err != nil {
		return nil, err
	}
	j, _ := c.job(i)
	fmt.Fprintf(log, "\n[%d/%d] training %s (%s) on %s (%d steps × %d tokens, seed %d)\n", i+1, c.Trainings(), run.Name,
		j.Run.Role, c.Data, run.Train.Steps, run.Train.TokensPerStep(), run.Train.Seed)
	sum, err := train.Train(run)
	if err != nil {
		return nil, fmt.Errorf("training %s: %w", run.Name, err)
	}
	return sum, nil
}

// trainingRun is the training of job i: the study's training config with the job's seed and its run's
// changes (mode training, block length, learning rate), the run's architecture, its run directory, and the
// recall-curve probe.
func trainingRun(c Config, i int, log io.Writer) (train.Run, error) {
	j, ok := c.job(i)
	if !ok {
		return train.Run{}, fmt.Errorf("study: training %d of %d", i, c.Trainings())
	}
	rs := j.Run
	tc := c.Train
	tc.Seed = c.trainSeed(j.Seed)
	if rs.Variant.IsMultiMixer() {
		tc.AttentionProb, tc.ModeTraining = rs.AttentionProb, rs.ModeTraining
		if rs.BlockLen > 0 {
			tc.BlockLen = rs.BlockLen
		}
	}
	if rs.LR > 0 {
		tc.LR = rs.LR
	}
	cfg, err := modelConfig(rs)
	if err != nil {
		return train.Run{}, err
	}
	run := train.Run{Name: c.label(j), Model: cfg, Train: tc, Data: datasets.DataSpec{Spec: c.Data}, Tokenizer: "bytes",
		Out: c.jobDir(j), Log: log}
	if c.CurveExamples > 0 {
		probe := newRecallProbe(c)
		run.Probe = func(tr *train.Trainer, step int) (map[string]float64, error) {
			if !c.curveAt(step) {
				return nil, nil
			}
			return probe.measure(tr)
		}
	}
	run.Probe = withTrendProbe(c, j, run.Probe)
	return run, nil
}

// modelConfig is a run's architecture: the tiny preset, widened by rs.Width (d_model, heads and MLP width
// times the width; the head dimensions stay), with the byte vocabulary and rs's attention-key options.
func modelConfig(rs RunSpec) (oryx.Config, error) {
	cfg, err := oryx.Preset("tiny", rs.Variant)
	if err != nil {
		return oryx.Config{}, err
	}
	w := rs.width()
	cfg.DModel, cfg.Heads, cfg.MLPHidden = w*cfg.DModel, w*cfg.Heads, w*cfg.MLPHidden
	cfg.Vocab = 320 // the byte tokenizer's 258 ids, padded to a multiple of 64
	cfg.AttentionKeyNorm, cfg.AttentionKeySource = rs.AttentionKeyNorm, rs.AttentionKeySource
	if err := cfg.Validate(); err != nil {
		return oryx.Config{}, fmt.Errorf("study: run %s: %w", rs.Label(), err)
	}
	return cfg, nil
}

// trainAndEvaluateAll trains every job and evaluates it. With c.Jobs ≤ 1 each job is trained here and
// evaluated right after, in order. Otherwise c.Jobs workers (c.TrainWorker, or TrainRun in a goroutine)
// train the jobs longest first, and each finished run is evaluated here while the others train: its
// summary is read back by TrainRun, which finds the run finished. The results are in c.jobs() order.
func trainAndEvaluateAll(ctx context.Context, c Config, log io.Writer) ([]*ModelResult, error) {
	jobs := c.jobs()
	models := make([]*ModelResult, len(jobs))
	evaluateRun := func(i int, sum *train.Summary, log io.Writer) error {
		name, dir := c.label(jobs[i]), c.jobDir(jobs[i])
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted before evaluating %s (its run is finished in %s): %w", name, dir, err)
		}
		key, err := evalKey(c, jobs[i], sum)
		if err != nil {
			return err
		}
		if res, err := cachedEvaluation(c, jobs[i], key); err != nil || res != nil {
			if res != nil {
				fmt.Fprintf(log, "[%d/%d] %s: evaluated before (%s)\n", i+1, len(jobs), name, evalCachePath(c, jobs[i]))
				res.Summary = sum
				models[i] = res
			}
			return err
		}
		fmt.Fprintf(log, "[%d/%d] evaluating %s\n", i+1, len(jobs), name)
		res, err := evaluate(c, jobs[i], dir, sum, log)
		if err != nil {
			return fmt.Errorf("evaluating %s: %w", name, err)
		}
		models[i] = res
		return cacheEvaluation(c, jobs[i], key, res)
	}
	if c.Jobs <= 1 {
		for i, j := range jobs {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("interrupted before training %s: %w", c.label(j), err)
			}
			sum, err := TrainRun(c, i, log)
			if err != nil {
				return nil, err
			}
			if err := evaluateRun(i, sum, log); err != nil {
				return nil, err
			}
		}
		return models, nil
	}
	worker := c.TrainWorker
	if worker == nil {
		worker = func(_ context.Context, c Config, i int, log io.Writer) error {
			_, err := TrainRun(c, i, log)
			return err
		}
	}
	logs := &lineWriters{out: log}
	width := 0
	for _, j := range jobs {
		width = max(width, len(c.label(j)))
	}
	label := func(i int) string { return fmt.Sprintf("%-*s ", max(width, 28), c.label(jobs[i])) }
	trained := make(chan int, len(jobs))
	var trainErr error
	go func() {
		trainErr = forEachRun(ctx, startOrder(jobs), c.Jobs, func(ctx context.Context, i int) error {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("interrupted before training %s: %w", c.label(jobs[i]), err)
			}
			w := logs.prefixed(label(i))
			defer w.Flush()
			if err := worker(ctx, c, i, w); err != nil {
				return err
			}
			trained <- i
			return nil
		})
		close(trained)
	}()
	var evalErr error
	for i := range trained {
		if evalErr != nil {
			continue // drain: the workers finish their runs (a run in training cannot be stopped from here)
		}
		w := logs.prefixed(label(i))
		sum, err := TrainRun(c, i, io.Discard) // the finished run's summary
		if err == nil {
			err = evaluateRun(i, sum, w)
		}
		w.Flush()
		evalErr = err
	}
	if trainErr != nil {
		return nil, trainErr
	}
	return models, evalErr
}

// checkProbes builds every needle prompt the evaluation will use, so that a length too short for a needle
// fails before the training, not after it.
func checkProbes(c Config) error {
	for _, l := range c.NeedleLengths {
		if l+evalapi.MiniNeedleAnswerTokens > c.Train.SeqLen {
			return fmt.Errorf("study: needle length %d: the prompt and its %d-token answer exceed the training length %d", l,
				evalapi.MiniNeedleAnswerTokens, c.Train.SeqLen)
		}
	}
	if _, err := evalapi.MiniNeedleProbe(tokenizers.NewByteTokenizer(), c.NeedleLengths, c.NeedleDepths, c.NeedleSamples, needleEvalSeed); err != nil {
		return fmt.Errorf("study: %w", err)
	}
	return nil
}

// writeArtefacts writes the kind's artefacts: for the study results/<run>-<schedule>.json, leaderboard.json,
// leaderboard.md and study.json; scale.json or attribution.json for the other kinds (EvalCurves has no
// per-schedule results); then report.md and the plots.
func writeArtefacts(c Config, rep *Report) error {
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return err
	}
	if c.evaluation() != EvalCurves {
		if err := writeResults(c, rep); err != nil {
			return err
		}
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(c.Out, c.kind()+".json"), append(data, '\n')); err != nil {
		return err
	}
	if err := writePlots(c, rep); err != nil {
		return err
	}
	var md string
	switch c.kind() {
	case KindScale:
		md = scaleMarkdown(c, rep)
	case KindAttribution:
		md = attributionMarkdown(c, rep)
	case KindDecompose:
		md = decomposeMarkdown(c, rep)
	case KindDecide:
		md = decideMarkdown(c, rep)
	case KindTrend:
		md = trendMarkdown(c, rep)
	default:
		md = markdown(c, rep)
	}
	return atomicfile.WriteFile(filepath.Join(c.Out, "report.md"), []byte(md))
}

// writeResults writes results/<run>-<schedule>.json per run and schedule, and their leaderboard.
func writeResults(c Config, rep *Report) error {
	resDir := filepath.Join(c.Out, "results")
	if err := os.MkdirAll(resDir, 0o755); err != nil {
		return err
	}
	var files []string
	for _, m := range rep.Models {
		label := filepath.Base(m.RunDir)
		for _, s := range m.Schedules {
			f := filepath.Join(resDir, fmt.Sprintf("%s-%s.json", label, s.Schedule))
			info := evalapi.RunInfo{Model: label, Variant: string(m.Variant), Size: m.Size(),
				Parameters: m.Params, Checkpoint: filepath.Join(c.Out, m.RunDir),
				CheckpointStep: int64(m.Summary.Steps), TokensSeen: m.Summary.Tokens, Schedule: s.Schedule,
				Backend: rep.Backend, Tokenizer: "bytes", MaxLength: 4096, Date: rep.Date}
			if err := evalapi.WriteResultsFile(f, info, scheduleResults(s), s.AttentionFraction); err != nil {
				return err
			}
			files = append(files, f)
		}
	}
	lb, err := evalapi.MergeLeaderboard(files...)
	if err != nil {
		return err
	}
	return lb.WriteFiles(filepath.Join(c.Out, "leaderboard.json"), filepath.Join(c.Out, "leaderboard.md"))
}

// scheduleResults turns a schedule's measurements into harness results for the results file.
func scheduleResults(s ScheduleResult) []*evalapi.Result {
	var out []*evalapi.Result
	if !math.IsNaN(float64(s.ValLoss)) {
		out = append(out, &evalapi.Result{Task: "val", Metrics: map[string]evalapi.Metric{"loss": {Value: float64(s.ValLoss), Stderr: math.NaN()}}})
	}
	mqar := map[int]evalapi.ProbeScore{}
	for p, cell := range s.MQARCells {
		mqar[p] = evalapi.ProbeScore{Score: cell.Accuracy, StdErr: cell.StdErr, N: cell.Queries}
	}
	mq := cellsResult("mqar", "acc", mqar)
	mq.AttentionFraction = s.AttentionFraction
	return append(out, mq, cellsResult("mini_niah", "score", s.Needle), cellsResult("copy", "acc", s.Copy))
}

// cellsResult turns per-size cells into a result with metrics "<metric>@<size>" and their mean "<metric>".
func cellsResult(task, metric string, cells map[int]evalapi.ProbeScore) *evalapi.Result {
	r := &evalapi.Result{Task: task, Metrics: map[string]evalapi.Metric{}}
	var all []float64
	for k, cell := range cells {
		r.Metrics[fmt.Sprintf("%s@%d", metric, k)] = evalapi.Metric{Value: cell.Score, Stderr: cell.StdErr, N: cell.N}
		all = append(all, cell.Score)
	}
	r.Metrics[metric] = evalapi.Metric{Value: evalapi.Mean(all), Stderr: math.NaN(), N: len(all)}
	return r
}
