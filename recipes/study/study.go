package study

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/evalrun"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/recipes/train"
)

// Report is the study's outcome, also written to study.json.
type Report struct {
	Config   Config         `json:"config"`
	Models   []*ModelResult `json:"models"`
	Controls []Comparison   `json:"controls"` // the loss comparisons that attribute claim (a)'s gap
	Claims   []Claim        `json:"claims"`
	Seconds  float64        `json:"elapsed_s"`
	Backend  string         `json:"backend"`
	Date     string         `json:"date"`

	// Frontier is the attention-budget frontier of the Oryx-TG main model (frontier.go).
	Frontier *evalrun.FrontierSummary `json:"frontier"`
}

// Run trains and evaluates every model of c, then writes the artefacts. A model whose run directory already
// holds a finished run is not retrained (its checkpoint is resumed at the last step), so an interrupted
// study continues where it stopped.
//
// Cancelling ctx (SIGINT in the command) stops Run between steps: a run in training is stopped by its own
// signal handling (train.Train saves a checkpoint and returns train.ErrInterrupted); the finished runs
// stay in c.Out, so running the study again continues with the next model.
func Run(ctx context.Context, c Config, log io.Writer) (*Report, error) {
	start := time.Now()
	be, err := backend.Get()
	if err != nil {
		return nil, err
	}
	rep := &Report{Config: c, Backend: be.Name()}
	if err := checkProbes(c); err != nil {
		return nil, err
	}
	if err := checkFrontier(c); err != nil {
		return nil, err
	}
	// The runs: trained c.Jobs at a time (jobs.go), each evaluated here once trained; the results in the
	// study's order.
	if rep.Models, err = trainAndEvaluateAll(ctx, c, log); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted before the frontier (the runs are finished in %s): %w", filepath.Join(c.Out, "runs"), err)
	}
	if rep.Frontier, err = runFrontier(c, log); err != nil {
		return nil, err
	}
	rep.Controls = controls(c, rep.Models)
	rep.Claims = claims(c, rep.Models, rep.Controls)
	rep.Seconds = time.Since(start).Seconds()
	rep.Date = time.Now().UTC().Format(time.RFC3339)
	if err := writeArtefacts(c, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// TrainRun trains run i of c in this process (or resumes it; a finished run is left as it is) and returns
// its summary. It is what a training worker runs (Config.TrainWorker).
func TrainRun(c Config, i int, log io.Writer) (*train.Summary, error) {
	if i < 0 || i >= len(c.Runs) {
		return nil, fmt.Errorf("study: run %d of %d", i, len(c.Runs))
	}
	rs := c.Runs[i]
	name := rs.Name + "-tiny"
	tc := c.Train
	if rs.Variant.IsMultiMixer() {
		tc.AttentionProb, tc.ModeTraining = rs.AttentionProb, rs.ModeTraining
	}
	fmt.Fprintf(log, "\n[%d/%d] training %s (%s) on %s (%d steps × %d tokens)\n", i+1, len(c.Runs), name, rs.Role, c.Data,
		tc.Steps, tc.TokensPerStep())
	cfg, err := oryx.Preset("tiny", rs.Variant)
	if err != nil {
		return nil, err
	}
	cfg.Vocab = 320 // the byte tokenizer's 258 ids, padded to a multiple of 64
	sum, err := train.Train(train.Run{Name: name, Model: cfg, Train: tc, Data: datasets.DataSpec{Spec: c.Data},
		Tokenizer: "bytes", Out: runDir(c, c.Runs[i].Name), Log: log})
	if err != nil {
		return nil, fmt.Errorf("training %s: %w", name, err)
	}
	return sum, nil
}

// trainAndEvaluateAll trains every run and evaluates it. With c.Jobs ≤ 1 each run is trained here and
// evaluated right after, in order. Otherwise c.Jobs workers (c.TrainWorker, or TrainRun in a goroutine)
// train the runs longest first, and each finished run is evaluated here while the others train: its
// summary is read back by TrainRun, which finds the run finished.
func trainAndEvaluateAll(ctx context.Context, c Config, log io.Writer) ([]*ModelResult, error) {
	models := make([]*ModelResult, len(c.Runs))
	evaluateRun := func(i int, sum *train.Summary, log io.Writer) error {
		name := c.Runs[i].Name + "-tiny"
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted before evaluating %s (its run is finished in %s): %w", name, runDir(c, c.Runs[i].Name), err)
		}
		fmt.Fprintf(log, "[%d/%d] evaluating %s\n", i+1, len(c.Runs), name)
		res, err := evaluate(c, c.Runs[i], runDir(c, c.Runs[i].Name), sum, log)
		if err != nil {
			return fmt.Errorf("evaluating %s: %w", name, err)
		}
		models[i] = res
		return nil
	}
	if c.Jobs <= 1 {
		for i, rs := range c.Runs {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("interrupted before training %s: %w", rs.Name+"-tiny", err)
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
	label := func(i int) string { return fmt.Sprintf("%-28s ", c.Runs[i].Name+"-tiny") }
	trained := make(chan int, len(c.Runs))
	var trainErr error
	go func() {
		trainErr = forEachRun(startOrder(c.Runs), c.Jobs, func(i int) error {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("interrupted before training %s: %w", c.Runs[i].Name+"-tiny", err)
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
		if l+evalrun.MiniNeedleAnswerTokens > c.Train.SeqLen {
			return fmt.Errorf("study: needle length %d: the prompt and its %d-token answer exceed the training length %d", l,
				evalrun.MiniNeedleAnswerTokens, c.Train.SeqLen)
		}
	}
	if _, err := evalrun.MiniNeedleProbe(tokenizers.NewByteTokenizer(), c.NeedleLengths, c.NeedleDepths, c.NeedleSamples, needleEvalSeed); err != nil {
		return fmt.Errorf("study: %w", err)
	}
	return nil
}

// writeArtefacts writes results/<model>-<schedule>.json, leaderboard.json, leaderboard.md, study.json,
// report.md and the plots.
func writeArtefacts(c Config, rep *Report) error {
	resDir := filepath.Join(c.Out, "results")
	if err := os.MkdirAll(resDir, 0o755); err != nil {
		return err
	}
	var files []string
	for _, m := range rep.Models {
		for _, s := range m.Schedules {
			f := filepath.Join(resDir, fmt.Sprintf("%s-tiny-%s.json", m.Name, s.Schedule))
			info := evalrun.RunInfo{Model: m.Name + "-tiny", Variant: string(m.Variant), Size: "tiny",
				Parameters: m.Params, Checkpoint: filepath.Join(c.Out, "runs", m.Name+"-tiny"),
				CheckpointStep: int64(m.Summary.Steps), TokensSeen: m.Summary.Tokens, Schedule: s.Schedule,
				Backend: rep.Backend, Tokenizer: "bytes", MaxLength: 4096, Date: rep.Date}
			if err := evalrun.WriteRunFile(f, info, scheduleResults(s), s.AttentionFraction); err != nil {
				return err
			}
			files = append(files, f)
		}
	}
	lb, err := evalrun.MergeLeaderboard(files...)
	if err != nil {
		return err
	}
	if err := lb.WriteFiles(filepath.Join(c.Out, "leaderboard.json"), filepath.Join(c.Out, "leaderboard.md")); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.Out, "study.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	if err := writePlots(c, rep); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.Out, "report.md"), []byte(markdown(c, rep)), 0o644)
}

// scheduleResults turns a schedule's measurements into harness results for the run file.
func scheduleResults(s ScheduleResult) []*evalrun.Result {
	var out []*evalrun.Result
	if !math.IsNaN(float64(s.ValLoss)) {
		out = append(out, &evalrun.Result{Task: "val", Metrics: map[string]evalrun.Metric{"loss": {Value: float64(s.ValLoss), Stderr: math.NaN()}}})
	}
	mqar := map[int]evalrun.ProbeScore{}
	for p, cell := range s.MQARCells {
		mqar[p] = evalrun.ProbeScore{Score: cell.Accuracy, StdErr: cell.StdErr, N: cell.Queries}
	}
	mq := cellsResult("mqar", "acc", mqar)
	mq.AttentionFraction = s.AttentionFraction
	return append(out, mq, cellsResult("mini_niah", "score", s.Needle), cellsResult("copy", "acc", s.Copy))
}

// cellsResult turns per-size cells into a result with metrics "<metric>@<size>" and their mean "<metric>".
func cellsResult(task, metric string, cells map[int]evalrun.ProbeScore) *evalrun.Result {
	r := &evalrun.Result{Task: task, Metrics: map[string]evalrun.Metric{}}
	var all []float64
	for k, cell := range cells {
		r.Metrics[fmt.Sprintf("%s@%d", metric, k)] = evalrun.Metric{Value: cell.Score, Stderr: cell.StdErr, N: cell.N}
		all = append(all, cell.Score)
	}
	r.Metrics[metric] = evalrun.Metric{Value: evalrun.Mean(all), Stderr: math.NaN(), N: len(all)}
	return r
}
