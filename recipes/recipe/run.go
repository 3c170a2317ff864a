package recipe

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

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/human"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/internal/runlock"
	"github.com/oryx-go/oryx/internal/seedrand"
	"github.com/oryx-go/oryx/oryx"
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

	// Retrain starts a finished run over (its checkpoints, trainer states, metrics, plot and summary are
	// removed); without it, a finished run is returned as it is and no file changes.
	Retrain bool `json:"-"`

	// Test hooks: stop as if killed after this many steps in this process (0: never), and the loss scale
	// used at a step (nil: Train.LossScale), e.g. NaN to simulate a non-finite step.
	stopAfter   int
	lossScaleAt func(step int) float64
	interruptAt int // deliver SIGTERM to the run once this step is done (0: never), as a signal would
}

// Summary is the outcome of a run, also written to summary.json.
type Summary struct {
	Name               string             `json:"name"`
	Variant            oryx.Variant       `json:"variant"`
	Params             int64              `json:"params"`
	Steps              int                `json:"steps"`
	Tokens             int64              `json:"tokens"`
	TrainLoss          rundir.Float       `json:"train_loss"` // mean over the last 10% of logged steps
	ValLoss            rundir.ValLosses   `json:"val_loss"`   // by validation mode (rundir.ValModes)
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

// Train runs (or resumes) r to r.Train.Steps steps.
func Train(r Run) (*Summary, error) {
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
	be, err := backend.Get()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(r.Out, 0o755); err != nil {
		return nil, err
	}
	// One writer per run directory: a second run on the same --out is refused (two at once left a directory
	// mixing both), and what killed runs left behind is removed.
	lock, err := runlock.Acquire(r.Out, r.Name, r.Log)
	if err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	defer lock.Release()
	// A finished run is left as it is: rerunning its command writes nothing (it used to overwrite summary.json
	// with this process's zero throughput and run.json's start time), unless r.Retrain starts it over.
	if sum, done, err := finishedRun(r); err != nil {
		return nil, err
	} else if done && !r.Retrain {
		fmt.Fprintf(r.Log, "%s: %s already finished (%d steps); --retrain to train it again from scratch\n", r.Name, r.Out, sum.Steps)
		return sum, nil
	} else if done {
		fmt.Fprintf(r.Log, "%s: %s already finished; retraining from scratch (--retrain)\n", r.Name, r.Out)
		if err := removeRun(r.Out); err != nil {
			return nil, err
		}
	}
	if err := cleanLeftovers(r.Out, r.Log); err != nil {
		return nil, err
	}
	tokFile, err := copyTokenizer(r.Out, r.Tokenizer, tok.Name())
	if err != nil {
		return nil, fmt.Errorf("--tokenizer: copying it into the run directory: %w", err)
	}

	// Fresh or resumed.
	tc := r.Train
	var (
		model *oryx.Model
		ctx   *context.Context
		st    *RunState
	)
	names, err := oryx.ListCheckpoints(r.Out)
	if err != nil {
		return nil, err
	}
	if len(names) > 0 {
		model, ctx, err = oryx.LoadCheckpoint(r.Out, &r.Model)
		if err != nil {
			return nil, fmt.Errorf("resuming from %s: %w", r.Out, err)
		}
		step := int(optimizers.GetGlobalStep(ctx))
		if st, err = readState(r.Out, step); err != nil {
			return nil, fmt.Errorf("resuming from %s: %w", r.Out, err)
		}
		if d := trajectoryDiff(st.Train, tc); len(d) > 0 {
			return nil, fmt.Errorf("resuming from %s: the training config differs from the checkpoint's (checkpoint vs now): %s; "+
				"use another --out to start a new run", r.Out, strings.Join(d, "; "))
		}
		if st.Data != r.Data {
			return nil, fmt.Errorf("resuming from %s: --data %q differs from the checkpoint's %q", r.Out, r.Data.Spec, st.Data.Spec)
		}
	} else {
		if model, err = oryx.New(r.Model); err != nil {
			return nil, err
		}
		ctx = context.New()
		ctx.SetParam(context.ParamInitialSeed, int64(tc.Seed))
	}
	trainer, err := NewTrainer(be, model, ctx, tc)
	if err != nil {
		return nil, err
	}

	// Data.
	var state json.RawMessage
	if st != nil {
		state = st.DataState
	}
	stream, err := datasets.OpenTraining(r.Data, tok, tc.SeqLen, tc.Seed, state, r.Log)
	if err != nil {
		return nil, fmt.Errorf("--data: %w", err)
	}
	evalN := tc.EvalBatches * tc.MicroBatch
	var valSeqs [][]int32
	valWhat := ""
	if evalN > 0 {
		if valSeqs, valWhat, err = datasets.ValidationSet(r.Data, r.ValData, tok, tc.SeqLen, evalN, r.Log); err != nil {
			return nil, err
		}
	}

	// Outputs.
	startStep := 0
	if st != nil {
		startStep = st.Step
	} else {
		st = &RunState{Train: tc, Data: r.Data, Tokenizer: tok.Name()}
	}
	if err := writeRunJSON(r, be.Name(), tokFile); err != nil {
		return nil, err
	}
	keep := -1
	if startStep > 0 {
		keep = startStep
	}
	mlog, err := rundir.OpenMetrics(r.Out, keep)
	if err != nil {
		return nil, fmt.Errorf("metrics log: %w", err)
	}
	defer mlog.Close()

	report := oryx.CountParams(r.Model)
	prog := newProgress(r.Log, tc.Steps, startStep)
	if startStep > 0 {
		prog.message("%s: resuming at step %d/%d from %s (%s tokens seen)", r.Name, startStep, tc.Steps, r.Out,
			human.Int(st.TokensSeen))
	} else {
		prog.message("%s: %s parameters, %d steps × %d tokens = %s tokens, backend %s", r.Name,
			human.Int(report.Total), tc.Steps, tc.TokensPerStep(), human.Int(int64(tc.Steps)*tc.TokensPerStep()), be.Name())
	}

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(stop)
	if r.interruptAt > 0 && startStep >= r.interruptAt {
		r.interruptAt = 0
	}

	savedStep := -1 // the step of the newest checkpoint in r.Out
	if startStep > 0 {
		savedStep = startStep
	}
	save := func() error {
		if st.DataState, err = stream.State(); err != nil {
			return fmt.Errorf("saving the data position: %w", err)
		}
		if err := rundir.WriteState(r.Out, st.Step, st); err != nil {
			return fmt.Errorf("saving trainer state: %w", err)
		}
		if err := oryx.SaveCheckpointKeep(r.Out, r.Model, ctx, tc.KeepCheckpoints); err != nil {
			return err
		}
		savedStep = st.Step
		names, err := oryx.ListCheckpoints(r.Out)
		if err != nil {
			return err
		}
		return rundir.PruneStates(r.Out, names)
	}
	validate := func(record bool) (map[string]rundir.Float, error) {
		if len(valSeqs) == 0 {
			return nil, nil
		}
		out := map[string]rundir.Float{}
		for _, vm := range validationModes(r.Model.Variant, tc) {
			var sum float64
			var n int
			for i := 0; i < len(valSeqs); i += tc.MicroBatch {
				batch := valSeqs[i : i+tc.MicroBatch]
				var modes [][]oryx.Mode
				if vm.schedule != nil {
					modes = vm.schedule(len(batch), tc.SeqLen, uint64(i))
				}
				s, c, err := trainer.EvalLoss(batch, modes)
				if err != nil {
					return nil, err
				}
				sum += s
				n += c
			}
			out[vm.name] = rundir.Float(sum / float64(n))
		}
		if !record {
			return out, nil
		}
		if err := mlog.Write(rundir.ValRecord{Kind: "val", Step: st.Step, Tokens: st.TokensSeen, Loss: out}); err != nil {
			return nil, err
		}
		return out, nil
	}

	var (
		lastVal    map[string]rundir.Float
		procStart  = time.Now()
		procTokens int64
		winStart   = time.Now()
		winTokens  int64
		stepTimes  []float64
	)
	elapsedBase := st.ElapsedSec
	for st.Step < tc.Steps {
		seqs, masks, err := stream.MaskedBatch(tc.Batch)
		if err != nil {
			return nil, fmt.Errorf("reading training data at step %d: %w", st.Step, err)
		}
		modes, attnFrac := trainingModes(r.Model.Variant, tc, st.Step)
		lr := tc.LearningRate(st.Step)
		scale := tc.LossScale
		if r.lossScaleAt != nil {
			scale = r.lossScaleAt(st.Step)
		}
		stepStart := time.Now()
		stats, err := trainer.step(seqs, masks, modes, lr, scale)
		stepTimes = append(stepTimes, time.Since(stepStart).Seconds())
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", st.Step, err)
		}
		st.Step++
		st.TokensSeen += tc.TokensPerStep()
		procTokens += tc.TokensPerStep()
		winTokens += tc.TokensPerStep()
		st.ElapsedSec = elapsedBase + time.Since(procStart).Seconds()
		if stats.Applied {
			st.BadInRow = 0
		} else {
			st.Skipped++
			st.BadInRow++
			prog.message("step %d: non-finite loss %v or gradient norm %v: update skipped (%d in a row, %d in all)",
				st.Step, stats.Loss, stats.GradNorm, st.BadInRow, st.Skipped)
			if st.BadInRow >= tc.MaxBadSteps {
				_ = mlog.Write(stepRecord(st, stats, lr, 0, attnFrac))
				return nil, fmt.Errorf("stopping at step %d: %d non-finite steps in a row (max_bad_steps %d); the last "+
					"checkpoint in %s is intact — lower --lr or check the data, then rerun to resume from it",
					st.Step, st.BadInRow, tc.MaxBadSteps, r.Out)
			}
		}
		if st.Step%tc.LogEvery == 0 || !stats.Applied || st.Step == tc.Steps {
			rate := float64(winTokens) / time.Since(winStart).Seconds()
			winStart, winTokens = time.Now(), 0
			if err := mlog.Write(stepRecord(st, stats, lr, rate, attnFrac)); err != nil {
				return nil, err
			}
		}
		prog.update(st.Step, fmt.Sprintf("loss %.4f  lr %.2e  %s tok/s", stats.Loss, lr,
			human.Int(int64(float64(procTokens)/time.Since(procStart).Seconds()))), st.Step == tc.Steps)

		final := st.Step == tc.Steps
		if final || (tc.EvalEvery > 0 && st.Step%tc.EvalEvery == 0) {
			if lastVal, err = validate(true); err != nil {
				return nil, fmt.Errorf("validation at step %d: %w", st.Step, err)
			}
			if lastVal != nil {
				prog.message("step %d: validation loss %s", st.Step, formatLosses(lastVal))
			}
			if err := writeCurves(r.Out); err != nil {
				prog.message("warning: plotting curves: %v", err)
			}
		}
		if final || (tc.CheckpointEvery > 0 && st.Step%tc.CheckpointEvery == 0) {
			if err := save(); err != nil {
				return nil, fmt.Errorf("checkpoint at step %d: %w", st.Step, err)
			}
		}
		if r.interruptAt > 0 && st.Step == r.interruptAt {
			stop <- syscall.SIGTERM
		}
		select {
		case sig := <-stop:
			prog.done()
			// A step just checkpointed is not saved again: a duplicate of the same step would evict an older
			// checkpoint for nothing.
			if savedStep != st.Step {
				if err := save(); err != nil {
					return nil, fmt.Errorf("%v: checkpoint at step %d: %w", sig, st.Step, err)
				}
			}
			return nil, ErrInterrupted
		default:
		}
		if r.stopAfter > 0 && st.Step-startStep >= r.stopAfter && !final {
			return nil, errSimulatedKill
		}
	}
	prog.done()
	if lastVal == nil && len(valSeqs) > 0 { // resumed after the final step: validate for the summary (logged already)
		if lastVal, err = validate(false); err != nil {
			return nil, err
		}
	}
	sum := &Summary{
		Name: r.Name, Variant: r.Model.Variant, Params: report.Total, Steps: st.Step, Tokens: st.TokensSeen,
		ValLoss: lastVal, Skipped: st.Skipped, ElapsedSec: st.ElapsedSec, PeakRSSBytes: peakRSS(),
		Backend: be.Name(), ResumedAt: startStep, ValidationSet: valWhat,
	}
	if d := time.Since(procStart).Seconds(); procTokens > 0 && d > 0 {
		sum.TokensPerSec = float64(procTokens) / d
	}
	if len(stepTimes) > 0 {
		half := append([]float64(nil), stepTimes[len(stepTimes)/2:]...)
		sort.Float64s(half)
		sum.SteadyTokensPerSec = float64(tc.TokensPerStep()) / half[len(half)/2]
	}
	sum.FLOPsPerToken = trainFLOPsPerToken(r.Model, tc)
	sum.TFLOPs = sum.SteadyTokensPerSec * sum.FLOPsPerToken / 1e12
	if train, _, err := rundir.ReadMetrics(r.Out); err == nil && len(train) > 0 {
		n := max(1, len(train)/10)
		var s float64
		var c int
		for _, rec := range train[len(train)-n:] {
			if v := float64(rec.Loss); !math.IsNaN(v) {
				s += v
				c++
			}
		}
		sum.TrainLoss = rundir.Float(s / float64(max(c, 1)))
	}
	if err := rundir.WriteJSON(r.Out, rundir.SummaryFile, sum); err != nil {
		return nil, err
	}
	return sum, nil
}

// errSimulatedKill ends a run early for tests (stopAfter), as a kill would, without saving.
var errSimulatedKill = errors.New("simulated kill")

func stepRecord(st *RunState, s StepStats, lr, rate, attnFrac float64) rundir.StepRecord {
	return rundir.StepRecord{Kind: "train", Step: st.Step, Tokens: st.TokensSeen, Loss: rundir.Float(s.Loss), LR: lr,
		GradNorm: rundir.Float(s.GradNorm), TokensPerSec: rate, AttnFraction: attnFrac, Skipped: !s.Applied,
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
	s, err := oryx.BlockRandom(tc.Batch, tc.SeqLen, tc.BlockLen, tc.AttentionProb, seedrand.Mix64(tc.Seed, uint64(step)))
	if err != nil {
		panic(err) // the arguments were validated
	}
	rows := make([][]oryx.Mode, tc.Batch)
	for b := range rows {
		rows[b] = s.Row(b)
	}
	return rows, s.AttentionFraction()
}

// validationMode is one schedule validation reads the held-out set with.
type validationMode struct {
	name     string
	schedule func(b, t int, offset uint64) [][]oryx.Mode // nil: the variant's only readout
}

// validationModes: multi-mixer variants are validated all-attention, all-linear and in block-random modes
// (rundir.ValBlockRandom: the training distribution, with a fixed seed); single-mixer variants in their one
// mode.
func validationModes(v oryx.Variant, tc TrainConfig) []validationMode {
	if !v.IsMultiMixer() {
		if v.HasAttention() {
			return []validationMode{{name: rundir.ValAttention}}
		}
		return []validationMode{{name: rundir.ValLinear}}
	}
	const valSeed = 0x56414c // "VAL"
	rows := func(s *oryx.Schedule) [][]oryx.Mode {
		r := make([][]oryx.Mode, s.Batch())
		for b := range r {
			r[b] = s.Row(b)
		}
		return r
	}
	return []validationMode{
		{rundir.ValAttention, func(b, t int, _ uint64) [][]oryx.Mode { s, _ := oryx.AllAttention(b, t); return rows(s) }},
		{rundir.ValLinear, func(b, t int, _ uint64) [][]oryx.Mode { s, _ := oryx.AllLinear(b, t); return rows(s) }},
		{rundir.ValBlockRandom, func(b, t int, off uint64) [][]oryx.Mode {
			s, _ := oryx.BlockRandom(b, t, tc.BlockLen, tc.AttentionProb, seedrand.Mix64(valSeed, off))
			return rows(s)
		}},
	}
}

func formatLosses(m map[string]rundir.Float) string {
	var parts []string
	for _, k := range rundir.ValModes {
		if v, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("%s %.4f", k, float64(v)))
		}
	}
	return strings.Join(parts, ", ")
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

// writeRunJSON records the run's configuration.
func writeRunJSON(r Run, backendName, tokenizerFile string) error {
	return rundir.WriteJSON(r.Out, rundir.RunFile, struct {
		Run
		TokenizerFile string `json:"tokenizer_file,omitempty"` // the run's copy, relative to the run directory
		Backend       string `json:"backend"`
		GoVersion     string `json:"go_version"`
		Started       string `json:"started"`
	}{r, tokenizerFile, backendName, runtime.Version(), time.Now().UTC().Format(time.RFC3339)})
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
