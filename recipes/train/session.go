package train

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/human"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
)

// session is a run in training: what resume set up, the outputs, and the counters of this process.
type session struct {
	r       Run
	w       *oryx.CheckpointDir // r.Out, held open: checkpoints are saved through it
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

	mlog *rundir.MetricsLog
	prog *trainProgress
	stop chan os.Signal // SIGINT and SIGTERM (ctl.notify)
	ctl  control        // what steers the run from outside: the operating system's signals (osControl)

	// This process's throughput: since its start, in the current logging window, and each step's time.
	procStart   time.Time
	procTokens  int64
	winStart    time.Time
	winTokens   int64
	stepTimes   []float64
	elapsedBase float64 // st.ElapsedSec at the start of this process
}

// resume builds the session: the model, its optimizer state and the run state st of the newest checkpoint in
// r.Out (found to be r's by runCheckpoint), or a fresh model when st is nil; the trainer; the training data
// at the saved position; and the validation set.
func resume(r Run, w *oryx.CheckpointDir, be backends.Backend, tok tokenizers.Tokenizer, st *RunState) (*session, error) {
	s := &session{r: r, w: w, tc: r.Train, be: be, tok: tok, savedStep: -1, st: st}
	var err error
	if st != nil {
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
	if s.trainer, err = newTrainer(be, s.model, s.ctx, s.tc); err != nil {
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

// loadCheckpoint loads the weights and optimizer state of the newest checkpoint, whose run state s.st is.
func (s *session) loadCheckpoint() error {
	var err error
	if s.model, s.ctx, err = oryx.LoadCheckpoint(s.r.Out, &s.r.Model); err != nil {
		return err
	}
	if step := int(optimizers.GetGlobalStep(s.ctx)); step != s.st.Step {
		return fmt.Errorf("the newest checkpoint holds step %d, its name and trainer state step %d", step, s.st.Step)
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
	s.ctl.notify(s.stop)
	return nil
}

// closeOutputs stops listening for signals and closes metrics.jsonl.
func (s *session) closeOutputs() {
	s.ctl.stop(s.stop)
	s.mlog.Close()
}
