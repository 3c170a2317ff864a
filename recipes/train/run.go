package train

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/internal/rundir"
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

	// checked is Train as Check resolved it: while Train is unchanged, Train (the function) uses it as it is.
	checked *TrainConfig
}

// Check resolves r.Train (TrainConfig.Resolve: the defaults filled, every field checked), which is what Train
// does first: a command calls it to report a bad flag, and to plan with the config the run will use, before its
// other work; Train then takes r.Train as checked instead of checking it again, unless it changed since.
func (r *Run) Check() error {
	tc, err := r.Train.Resolve()
	if err != nil {
		return fmt.Errorf("training config: %w", err)
	}
	r.Train, r.checked = tc, &tc
	return nil
}

// ErrInterrupted is returned when the run stopped on SIGINT/SIGTERM after saving a checkpoint.
var ErrInterrupted = errors.New("interrupted: checkpoint saved; run the same command to resume")

// Train runs (or resumes) r to r.Train.Steps steps. Its steps, in order: check the run (setUp), take the
// run directory (openRunDir: another run's checkpoint is refused and a finished run ends here), start fresh
// or resume from the newest checkpoint (resume), open the outputs (openOutputs), train (loop: each step, then validate and save when due), and
// write the summary (finish).
func Train(r Run) (*Summary, error) { return train(r, osControl{}) }

// train is Train under ctl (Train's: osControl; tests inject their own).
func train(r Run, ctl control) (*Summary, error) {
	tok, err := setUp(&r)
	if err != nil {
		return nil, err
	}
	be, err := oryx.Backend()
	if err != nil {
		return nil, err
	}
	// The one writer of the run directory (oryx.OpenCheckpointDir: internal/runwriter): never another command's output (unless
	// --force); a second run on the same --out is refused (two at once left a directory mixing both); what
	// killed runs left behind is removed.
	w, err := oryx.OpenCheckpointDir(r.Out, oryx.CheckpointDirOptions{Flag: "--out", Command: r.Name, Force: r.Force, Log: r.Log})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	st, sum, done, err := openRunDir(r, w)
	if err != nil || done {
		return sum, err
	}
	tokFile, err := rundir.CopyTokenizer(r.Out, r.Tokenizer, tok.Name())
	if err != nil {
		return nil, fmt.Errorf("--tokenizer: copying it into the run directory: %w", err)
	}
	s, err := resume(r, w, be, tok, st)
	if err != nil {
		return nil, err
	}
	s.ctl = ctl
	if err := s.openOutputs(tokFile); err != nil {
		return nil, err
	}
	defer s.closeOutputs()
	if err := s.loop(); err != nil {
		return nil, err
	}
	return s.finish()
}

// setUp fills r's defaults and checks the run before anything is touched: the training config (Check, unless
// the caller did), the model config,
// the mode training against the variant, the run directory, the warm-up, and the tokenizer against the
// model's vocabulary, which it returns loaded.
func setUp(r *Run) (tokenizers.Tokenizer, error) {
	if r.Log == nil {
		r.Log = os.Stderr
	}
	if r.checked == nil || *r.checked != r.Train {
		if err := r.Check(); err != nil {
			return nil, err
		}
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
