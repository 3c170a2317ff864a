package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/internal/human"
	"github.com/oryx-go/oryx/internal/jsonnum"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/internal/runwriter"
	"github.com/oryx-go/oryx/internal/seedrand"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// Run is one training run: the architecture, the optimisation, the data and where everything goes.
//
// The run directory Out holds the files package rundir describes: the checkpoints (every CheckpointEvery
// steps and at the end, the KeepCheckpoints newest) with their trainer-state files, run.json, metrics.jsonl,
// curves.png and, at the end, summary.json.
//
// Running the same command again in a directory that holds checkpoints resumes from the newest one with the
// same data order, schedules and optimizer state, so the loss curve continues as if never interrupted.
type Run struct {
	Name      string            `json:"name"`
	Model     oryx.Config       `json:"model"`
	Train     TrainConfig       `json:"train"`
	Data      datasets.DataSpec `json:"data"`
	ValData   datasets.DataSpec `json:"val_data"`
	Tokenizer string            `json:"tokenizer"` // tokenizers.Load spec
	Out       string            `json:"out"`

	Log io.Writer `json:"-"` // progress and messages (nil: os.Stderr)

	// Probe, when set, is called at every validation point (every EvalEvery steps and the last step) with the
	// model in training — through t, whose EvalGreedy and EvalLoss reuse the validation's compiled graph,
	// and whose Model and Context hold the weights as of that step — and the step; what it returns is
	// written to metrics.jsonl as a "probe" line (rundir.ProbeRecord), which a resumed run keeps like the
	// validation lines (nil: nothing measured at this step). It must only read the weights (e.g. score a
	// fixed evaluation subset).
	Probe func(t *Trainer, step int) (map[string]float64, error) `json:"-"`

	// Retrain starts a finished run over (its checkpoints, trainer states, metrics, plot and summary are
	// removed); without it, a finished run is returned as it is and no file changes.
	Retrain bool `json:"-"`

	// Force writes into an Out that holds another command's output (an export, a tokenized corpus, ...),
	// which Train otherwise refuses (claim.Dir).
	Force bool `json:"-"`
}

// hooks are where a test steps into a run (hooks_test.go): the loss scale of a step (e.g. NaN, to make a
// step non-finite), a signal after a step, and a kill after a step. Train runs with none.
type hooks interface {
	lossScale(step int, configured float64) float64
	// signalAfter reports whether SIGTERM is delivered once step is done, as a signal would be.
	signalAfter(step int) bool
	// killAfter returns a non-nil error to end the run after step (stepsHere of them in this process) as a
	// kill would: without saving. It is not asked after the final step.
	killAfter(step, stepsHere int) error
}

// Summary is the outcome of a run, also written to summary.json.
type Summary struct {
	Name               string             `json:"name"`
	Variant            oryx.Variant       `json:"variant"`
	Params             int64              `json:"params"`
	Steps              int                `json:"steps"`
	Tokens             int64              `json:"tokens"`
	TrainLoss          jsonnum.Float      `json:"train_loss"` // mean over the last 10% of logged steps
	ValLoss            rundir.ValLosses   `json:"val_loss"`   // by validation mode (ValModes)
	Skipped            int                `json:"skipped_steps"`
	TokensPerSec       float64            `json:"tokens_per_s"`          // over this process's steps, the first (compiling) one included
	SteadyTokensPerSec float64            `json:"steady_tokens_per_s"`   // tokens per step / median step time of this process's second half
	FLOPsPerToken      float64            `json:"train_flops_per_token"` // model FLOPs, forward + backward (Plan)
	TFLOPs             float64            `json:"achieved_tflops"`       // steady_tokens_per_s × train_flops_per_token / 1e12
	ElapsedSec         float64            `json:"elapsed_s"`             // training time over all restarts
	PeakRSSBytes       int64              `json:"peak_rss_bytes"`
	Backend            string             `json:"backend"`
	ResumedAt          int                `json:"resumed_at_step,omitempty"`
	ValidationSet      string             `json:"validation_set"`
	Extra              map[string]float64 `json:"extra,omitempty"`
}

// ErrInterrupted is returned when the run stopped on SIGINT/SIGTERM after saving a checkpoint.
var ErrInterrupted = errors.New("interrupted: checkpoint saved; run the same command to resume")

// Train runs (or resumes) r to r.Train.Steps steps. Its steps, in order: check the run (setUp), take the
// run directory (openRunDir: a finished run ends here), start fresh or resume from the newest checkpoint
// (resume), open the outputs (openOutputs), train (loop: each step, then validate and save when due), and
// write the summary (finish).
func Train(r Run) (*Summary, error) { return train(r, nil) }

// train is Train with hooks (nil: none).
func train(r Run, h hooks) (*Summary, error) {
	tok, err := setUp(&r)
	if err != nil {
		return nil, err
	}
	be, err := oryx.Backend()
	if err != nil {
		return nil, err
	}
	// The one writer of the run directory (internal/runwriter): never another command's output (unless
	// --force); a second run on the same --out is refused (two at once left a directory mixing both); what
	// killed runs left behind is removed.
	w, err := runwriter.Open(r.Out, runwriter.Options{Flag: "--out", Command: r.Name, Force: r.Force, Log: r.Log})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if sum, done, err := openRunDir(r, w); err != nil || done {
		return sum, err
	}
	tokFile, err := rundir.CopyTokenizer(r.Out, r.Tokenizer, tok.Name())
	if err != nil {
		return nil, fmt.Errorf("--tokenizer: copying it into the run directory: %w", err)
	}
	s, err := resume(r, w, be, tok)
	if err != nil {
		return nil, err
	}
	s.hooks = h
	if err := s.openOutputs(tokFile); err != nil {
		return nil, err
	}
	defer s.closeOutputs()
	if err := s.loop(); err != nil {
		return nil, err
	}
	return s.finish()
}

// setUp fills r's defaults and checks the run before anything is touched: the training and model configs,
// the mode training against the variant, the run directory, the warm-up, and the tokenizer against the
// model's vocabulary, which it returns loaded.
func setUp(r *Run) (tokenizers.Tokenizer, error) {
	if r.Log == nil {
		r.Log = os.Stderr
	}
	r.Train = r.Train.WithDefaults()
	if err := r.Train.Validate(); err != nil {
		return nil, fmt.Errorf("training config: %w", err)
	}
	if err := r.Model.Validate(); err != nil {
		return nil, fmt.Errorf("model config: %w", err)
	}
	if r.Train.ModeTraining == ModeTrainingComplementary && !r.Model.Variant.IsMultiMixer() {
		return nil, fmt.Errorf("--mode-training %s: variant %s has one readout (only multi-mixer variants train two)",
			ModeTrainingComplementary, r.Model.Variant)
	}
	if r.Out == "" {
		return nil, errors.New("--out: the run directory is required")
	}
	// The validation set is built whole, before the first step (Validate bounds its sequences).
	if n := r.Train.EvalBatches * r.Train.MicroBatch; n > 0 {
		b, _ := guard.MulAll(int64(n), int64(r.Train.SeqLen+1), 4)
		what := fmt.Sprintf("the validation set (eval_batches × micro_batch = %d sequences of %d tokens)", n, r.Train.SeqLen)
		if err := guard.CheckMemory(what, b); err != nil {
			return nil, err
		}
	}
	if r.Train.WarmupSteps > r.Train.Steps {
		fmt.Fprintf(r.Log, "%s: warning: the warm-up (%d steps) is longer than the run (%d steps): the learning rate "+
			"never reaches its peak %g (set --warmup below --steps)\n", r.Name, r.Train.WarmupSteps, r.Train.Steps, r.Train.LR)
	}
	tok, err := tokenizers.Load(r.Tokenizer)
	if err != nil {
		return nil, fmt.Errorf("--tokenizer: %w", err)
	}
	if tok.VocabSize() > r.Model.Vocab {
		return nil, fmt.Errorf("--tokenizer %s has %d tokens but the model's vocabulary is %d: use a model config "+
			"with vocab ≥ %d", tok.Name(), tok.VocabSize(), r.Model.Vocab, tok.VocabSize())
	}
	return tok, nil
}

// openRunDir prepares the run directory Train holds open (w). A finished run is left as it is and its
// summary returned with done: rerunning its command writes nothing (it used to overwrite summary.json with
// this process's zero throughput and run.json's start time), unless r.Retrain starts it over.
func openRunDir(r Run, w *runwriter.Writer) (*Summary, bool, error) {
	sum, done, err := finishedRun(r)
	switch {
	case err != nil:
		return nil, false, err
	case done && !r.Retrain:
		fmt.Fprintf(r.Log, "%s: %s already finished (%d steps); --retrain to train it again from scratch\n", r.Name, r.Out, sum.Steps)
		return sum, true, nil
	case done:
		fmt.Fprintf(r.Log, "%s: %s already finished; retraining from scratch (--retrain)\n", r.Name, r.Out)
		if err := w.RemoveRun(); err != nil {
			return nil, false, err
		}
	}
	return nil, false, nil
}

// session is a run in training: what resume set up, the outputs, and the counters of this process.
type session struct {
	r       Run
	w       *runwriter.Writer // r.Out, held open: checkpoints are saved through it
	tc      TrainConfig
	be      backends.Backend
	tok     tokenizers.Tokenizer
	model   *oryx.Model
	ctx     *context.Context
	trainer *Trainer
	stream  datasets.BatchSource
	valSeqs [][]int32 // the held-out sequences (none: no validation)
	valWhat string    // what they are (Summary.ValidationSet)

	st        *RunState // the state after st.Step steps, saved with each checkpoint
	startStep int       // the step this process started at (0: a fresh run)
	savedStep int       // the step of the newest checkpoint in r.Out (-1: none)
	lastVal   rundir.ValLosses

	mlog  *rundir.MetricsLog
	prog  *trainProgress
	stop  chan os.Signal // SIGINT and SIGTERM
	hooks hooks          // nil but in tests

	// This process's throughput: since its start, in the current logging window, and each step's time.
	procStart   time.Time
	procTokens  int64
	winStart    time.Time
	winTokens   int64
	stepTimes   []float64
	elapsedBase float64 // st.ElapsedSec at the start of this process
}

// resume builds the session: the model, its optimizer state and the run state from the newest checkpoint
// in r.Out, checked against r (the training config and the data must be the checkpoint's), or a fresh model
// when there is none; the trainer; the training data at the saved position; and the validation set.
func resume(r Run, w *runwriter.Writer, be backends.Backend, tok tokenizers.Tokenizer) (*session, error) {
	s := &session{r: r, w: w, tc: r.Train, be: be, tok: tok, savedStep: -1}
	names, err := oryx.ListCheckpoints(r.Out)
	if err != nil {
		return nil, err
	}
	if len(names) > 0 {
		if err := s.loadCheckpoint(); err != nil {
			return nil, fmt.Errorf("resuming from %s: %w", r.Out, err)
		}
	} else {
		if s.model, err = oryx.New(r.Model); err != nil {
			return nil, err
		}
		s.ctx = context.New()
		s.ctx.SetParam(context.ParamInitialSeed, int64(s.tc.Seed))
	}
	if s.trainer, err = NewTrainer(be, s.model, s.ctx, s.tc); err != nil {
		return nil, err
	}
	var state json.RawMessage
	if s.st != nil {
		state = s.st.DataState
	}
	if s.stream, err = datasets.OpenTraining(r.Data, tok, s.tc.SeqLen, s.tc.Seed, state, r.Log); err != nil {
		return nil, fmt.Errorf("--data: %w", err)
	}
	if evalN := s.tc.EvalBatches * s.tc.MicroBatch; evalN > 0 {
		if s.valSeqs, s.valWhat, err = datasets.ValidationSet(r.Data, r.ValData, tok, s.tc.SeqLen, evalN, r.Log); err != nil {
			return nil, err
		}
	}
	if s.st != nil {
		s.startStep, s.savedStep = s.st.Step, s.st.Step
	} else {
		s.st = &RunState{Train: s.tc, Data: r.Data, Tokenizer: tok.Name()}
	}
	return s, nil
}

// loadCheckpoint loads the newest checkpoint and its run state, refusing a training config or data that
// differ from the checkpoint's.
func (s *session) loadCheckpoint() error {
	var err error
	if s.model, s.ctx, err = oryx.LoadCheckpoint(s.r.Out, &s.r.Model); err != nil {
		return err
	}
	step := int(optimizers.GetGlobalStep(s.ctx))
	if s.st, err = readState(s.r.Out, step); err != nil {
		return err
	}
	if d := trajectoryDiff(s.st.Train, s.tc); len(d) > 0 {
		return fmt.Errorf("the training config differs from the checkpoint's (checkpoint vs now): %s; "+
			"use another --out to start a new run", strings.Join(d, "; "))
	}
	if s.st.Data != s.r.Data {
		return fmt.Errorf("--data %q differs from the checkpoint's %q", s.r.Data.Spec, s.st.Data.Spec)
	}
	return nil
}

// openOutputs writes run.json, opens metrics.jsonl (on resume, cut after the checkpoint's step), starts the
// progress display with the run's first line, and listens for SIGINT and SIGTERM.
func (s *session) openOutputs(tokFile string) error {
	r, tc := s.r, s.tc
	if err := writeRunJSON(r, s.be.Name(), tokFile); err != nil {
		return err
	}
	keep := -1
	if s.startStep > 0 {
		keep = s.startStep
	}
	var err error
	if s.mlog, err = rundir.OpenMetrics(r.Out, keep); err != nil {
		return fmt.Errorf("metrics log: %w", err)
	}
	s.prog = newProgress(r.Log, tc.Steps, s.startStep)
	if s.startStep > 0 {
		s.prog.message("%s: resuming at step %d/%d from %s (%s tokens seen)", r.Name, s.startStep, tc.Steps, r.Out,
			human.Int(s.st.TokensSeen))
	} else {
		s.prog.message("%s: %s parameters, %d steps × %d tokens = %s tokens, backend %s", r.Name,
			human.Int(oryx.CountParams(r.Model).Total), tc.Steps, tc.TokensPerStep(),
			human.Int(int64(tc.Steps)*tc.TokensPerStep()), s.be.Name())
	}
	s.stop = make(chan os.Signal, 1)
	signal.Notify(s.stop, os.Interrupt, syscall.SIGTERM)
	return nil
}

// closeOutputs stops listening for signals and closes metrics.jsonl.
func (s *session) closeOutputs() {
	signal.Stop(s.stop)
	s.mlog.Close()
}

// loop trains to the last step: each step, then a validation and a checkpoint when due, then a signal
// check (a signal saves and ends the run with ErrInterrupted).
func (s *session) loop() error {
	tc := s.tc
	s.procStart, s.winStart, s.elapsedBase = time.Now(), time.Now(), s.st.ElapsedSec
	for s.st.Step < tc.Steps {
		if err := s.step(); err != nil {
			return err
		}
		final := s.st.Step == tc.Steps
		if final || (tc.EvalEvery > 0 && s.st.Step%tc.EvalEvery == 0) {
			if err := s.validateAndPlot(); err != nil {
				return fmt.Errorf("validation at step %d: %w", s.st.Step, err)
			}
		}
		if final || (tc.CheckpointEvery > 0 && s.st.Step%tc.CheckpointEvery == 0) {
			if err := s.save(); err != nil {
				return fmt.Errorf("checkpoint at step %d: %w", s.st.Step, err)
			}
		}
		if err := s.checkSignal(); err != nil {
			return err
		}
		if s.hooks != nil && !final {
			if err := s.hooks.killAfter(s.st.Step, s.st.Step-s.startStep); err != nil {
				return err
			}
		}
	}
	s.prog.done()
	return nil
}

// step trains one step: the batch, its mode schedule and learning rate, the update; it counts a skipped
// (non-finite) step and stops the run after MaxBadSteps of them in a row, and logs the step.
func (s *session) step() error {
	tc, st := s.tc, s.st
	seqs, masks, err := s.stream.MaskedBatch(tc.Batch)
	if err != nil {
		return fmt.Errorf("reading training data at step %d: %w", st.Step, err)
	}
	modes, attnFrac := trainingModes(s.r.Model.Variant, tc, st.Step)
	lr := tc.LearningRate(st.Step)
	scale := tc.LossScale
	if s.hooks != nil {
		scale = s.hooks.lossScale(st.Step, scale)
	}
	stepStart := time.Now()
	stats, err := s.trainer.step(seqs, masks, modes, lr, scale)
	s.stepTimes = append(s.stepTimes, time.Since(stepStart).Seconds())
	if err != nil {
		return fmt.Errorf("step %d: %w", st.Step, err)
	}
	st.Step++
	st.TokensSeen += tc.TokensPerStep()
	s.procTokens += tc.TokensPerStep()
	s.winTokens += tc.TokensPerStep()
	st.ElapsedSec = s.elapsedBase + time.Since(s.procStart).Seconds()
	if stats.Applied {
		st.BadInRow = 0
	} else {
		st.Skipped++
		st.BadInRow++
		s.prog.message("step %d: non-finite loss %v or gradient norm %v: update skipped (%d in a row, %d in all)",
			st.Step, stats.Loss, stats.GradNorm, st.BadInRow, st.Skipped)
		if st.BadInRow >= tc.MaxBadSteps {
			_ = s.mlog.Write(stepRecord(st, stats, lr, 0, attnFrac))
			return fmt.Errorf("stopping at step %d: %d non-finite steps in a row (max_bad_steps %d); the last "+
				"checkpoint in %s is intact — lower --lr or check the data, then rerun to resume from it",
				st.Step, st.BadInRow, tc.MaxBadSteps, s.r.Out)
		}
	}
	if st.Step%tc.LogEvery == 0 || !stats.Applied || st.Step == tc.Steps {
		rate := float64(s.winTokens) / time.Since(s.winStart).Seconds()
		s.winStart, s.winTokens = time.Now(), 0
		if err := s.mlog.Write(stepRecord(st, stats, lr, rate, attnFrac)); err != nil {
			return err
		}
	}
	s.prog.update(st.Step, fmt.Sprintf("loss %.4f  lr %.2e  %s tok/s", stats.Loss, lr,
		human.Int(int64(float64(s.procTokens)/time.Since(s.procStart).Seconds()))), st.Step == tc.Steps)
	return nil
}

// validateAndPlot validates, logs the losses to metrics.jsonl and the progress display, and redraws
// curves.png.
func (s *session) validateAndPlot() error {
	var err error
	if s.lastVal, err = s.validate(); err != nil {
		return err
	}
	if s.lastVal != nil {
		if err := s.mlog.Write(rundir.ValRecord{Kind: "val", Step: s.st.Step, Tokens: s.st.TokensSeen, Loss: s.lastVal}); err != nil {
			return err
		}
		s.prog.message("step %d: validation loss %s", s.st.Step, formatLosses(s.lastVal))
	}
	if s.r.Probe != nil {
		if err := s.probe(); err != nil {
			return err
		}
	}
	if err := writeCurves(s.r.Out); err != nil {
		s.prog.message("warning: plotting curves: %v", err)
	}
	return nil
}

// probe measures Run.Probe and logs it to metrics.jsonl and the progress display.
func (s *session) probe() error {
	start := time.Now()
	values, err := s.r.Probe(s.trainer, s.st.Step)
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	if values == nil {
		return nil
	}
	rec := rundir.ProbeRecord{Kind: "probe", Step: s.st.Step, Tokens: s.st.TokensSeen, Seconds: time.Since(start).Seconds(),
		Values: map[string]jsonnum.Float{}}
	names := make([]string, 0, len(values))
	for k, v := range values {
		rec.Values[k] = jsonnum.Float(v)
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %.3f", k, values[k])
	}
	s.prog.message("step %d: probe (%.1f s) %s", s.st.Step, rec.Seconds, strings.Join(parts, ", "))
	return s.mlog.Write(rec)
}

// save writes a checkpoint of the current step: the run state with the data position, the weights and
// optimizer state (keeping the KeepCheckpoints newest), and prunes the state files of evicted checkpoints.
func (s *session) save() error {
	var err error
	if s.st.DataState, err = s.stream.State(); err != nil {
		return fmt.Errorf("saving the data position: %w", err)
	}
	if err := rundir.WriteState(s.r.Out, s.st.Step, s.st); err != nil {
		return fmt.Errorf("saving trainer state: %w", err)
	}
	if err := oryx.SaveCheckpointKeep(s.w, s.r.Model, s.ctx, s.tc.KeepCheckpoints); err != nil {
		return err
	}
	s.savedStep = s.st.Step
	names, err := oryx.ListCheckpoints(s.r.Out)
	if err != nil {
		return err
	}
	return rundir.PruneStates(s.r.Out, names)
}

// checkSignal ends the run on SIGINT or SIGTERM (or a test's hooks.signalAfter): it saves the current step,
// unless it was just checkpointed, and returns ErrInterrupted.
func (s *session) checkSignal() error {
	if s.hooks != nil && s.hooks.signalAfter(s.st.Step) {
		s.stop <- syscall.SIGTERM
	}
	select {
	case sig := <-s.stop:
		s.prog.done()
		// A step just checkpointed is not saved again: a duplicate of the same step would evict an older
		// checkpoint for nothing.
		if s.savedStep != s.st.Step {
			if err := s.save(); err != nil {
				return fmt.Errorf("%v: checkpoint at step %d: %w", sig, s.st.Step, err)
			}
		}
		return ErrInterrupted
	default:
		return nil
	}
}

// finish writes summary.json: the final validation losses (validated now when this process resumed after
// the last step), this process's throughput, the model FLOPs and the mean training loss of the last 10 % of
// logged steps.
func (s *session) finish() (*Summary, error) {
	r, tc, st := s.r, s.tc, s.st
	if s.lastVal == nil && len(s.valSeqs) > 0 { // resumed after the final step: validate for the summary (logged already)
		var err error
		if s.lastVal, err = s.validate(); err != nil {
			return nil, err
		}
	}
	sum := &Summary{
		Name: r.Name, Variant: r.Model.Variant, Params: oryx.CountParams(r.Model).Total, Steps: st.Step, Tokens: st.TokensSeen,
		ValLoss: s.lastVal, Skipped: st.Skipped, ElapsedSec: st.ElapsedSec, PeakRSSBytes: peakRSS(),
		Backend: s.be.Name(), ResumedAt: s.startStep, ValidationSet: s.valWhat,
	}
	if d := time.Since(s.procStart).Seconds(); s.procTokens > 0 && d > 0 {
		sum.TokensPerSec = float64(s.procTokens) / d
	}
	if len(s.stepTimes) > 0 {
		half := append([]float64(nil), s.stepTimes[len(s.stepTimes)/2:]...)
		sort.Float64s(half)
		sum.SteadyTokensPerSec = float64(tc.TokensPerStep()) / half[len(half)/2]
	}
	sum.FLOPsPerToken = FLOPsPerToken(r.Model, tc)
	sum.TFLOPs = sum.SteadyTokensPerSec * sum.FLOPsPerToken / 1e12
	sum.TrainLoss = recentTrainLoss(r.Out)
	if err := rundir.WriteJSON(r.Out, rundir.SummaryFile, sum); err != nil {
		return nil, err
	}
	return sum, nil
}

// recentTrainLoss is the mean training loss over the last 10 % of the steps logged in dir's metrics.jsonl
// (non-finite losses left out; 0 when there are none).
func recentTrainLoss(dir string) jsonnum.Float {
	train, _, err := rundir.ReadMetrics(dir)
	if err != nil || len(train) == 0 {
		return 0
	}
	n := max(1, len(train)/10)
	var sum float64
	var c int
	for _, rec := range train[len(train)-n:] {
		if v := float64(rec.Loss); !math.IsNaN(v) {
			sum += v
			c++
		}
	}
	return jsonnum.Float(sum / float64(max(c, 1)))
}

func stepRecord(st *RunState, s StepStats, lr, rate, attnFrac float64) rundir.StepRecord {
	return rundir.StepRecord{Kind: "train", Step: st.Step, Tokens: st.TokensSeen, Loss: jsonnum.Float(s.Loss), LR: lr,
		GradNorm: jsonnum.Float(s.GradNorm), TokensPerSec: rate, AttnFraction: attnFrac, Skipped: !s.Applied,
		ElapsedSec: st.ElapsedSec}
}

// trainingModes draws the step's mode schedule for multi-mixer variants: a fresh BlockRandom schedule per
// step (its seed mixes the run seed and the step, so a resumed run draws the same ones). It returns nil
// modes for single-mixer variants, and the fraction of tokens in attention mode.
func trainingModes(v oryx.Variant, tc TrainConfig, step int) ([][]oryx.Mode, float64) {
	switch {
	case !v.IsMultiMixer() && v.HasAttention():
		return nil, 1
	case !v.IsMultiMixer():
		return nil, 0
	}
	s, err := schedule.BlockRandom(tc.Batch, tc.SeqLen, tc.BlockLen, tc.AttentionProb, seedrand.Mix64(tc.Seed, uint64(step)))
	if err != nil {
		panic(err) // the arguments were validated
	}
	rows := make([][]oryx.Mode, tc.Batch)
	for b := range rows {
		rows[b] = s.Row(b)
	}
	return rows, s.AttentionFraction()
}

// trajectoryDiff lists the fields of TrainConfig that change what a run computes (everything but the
// logging, validation and checkpoint cadence and the device count), as "field: a vs b".
func trajectoryDiff(a, b TrainConfig) []string {
	a, b = a.WithDefaults(), b.WithDefaults() // a checkpoint written before a field existed has its default
	a.CheckpointEvery, a.KeepCheckpoints, a.EvalEvery, a.EvalBatches, a.LogEvery, a.MaxBadSteps, a.Devices = 0, 0, 0, 0, 0, 0, 0
	b.CheckpointEvery, b.KeepCheckpoints, b.EvalEvery, b.EvalBatches, b.LogEvery, b.MaxBadSteps, b.Devices = 0, 0, 0, 0, 0, 0, 0
	var ma, mb map[string]any
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	_ = json.Unmarshal(ja, &ma)
	_ = json.Unmarshal(jb, &mb)
	var d []string
	for k, va := range ma {
		if fmt.Sprint(va) != fmt.Sprint(mb[k]) {
			d = append(d, fmt.Sprintf("%s: %v vs %v", k, va, mb[k]))
		}
	}
	return d
}

// writeRunJSON records the run's configuration in run.json (rundir.WriteRunRecord), with the backend, the Go
// version, the start time and the run's copy of its tokenizer file.
func writeRunJSON(r Run, backendName, tokenizerFile string) error {
	return rundir.WriteRunRecord(r.Out, r, rundir.RunInfo{TokenizerFile: tokenizerFile, Backend: backendName,
		GoVersion: runtime.Version(), Started: time.Now().UTC().Format(time.RFC3339)})
}

// peakRSS returns the process's peak resident set size (VmHWM) in bytes, or 0 where /proc is unavailable.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}
