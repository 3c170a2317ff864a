package train

import (
	"fmt"
	"time"

	"github.com/oryx-go/oryx/internal/human"
	"github.com/oryx-go/oryx/internal/jsonnum"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/internal/seedrand"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// loop trains to the last step: each step, then a validation and a checkpoint when due, then the control's
// afterStep and a signal check (a signal saves and ends the run with ErrInterrupted).
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
		if err := s.ctl.afterStep(s.st.Step, s.st.Step-s.startStep, final); err != nil {
			return err
		}
		if err := s.checkSignal(); err != nil {
			return err
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
	scale := s.ctl.lossScale(st.Step, tc.LossScale)
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

// checkSignal ends the run on SIGINT or SIGTERM (delivered by the control): it saves the current step,
// unless it was just checkpointed, and returns ErrInterrupted.
func (s *session) checkSignal() error {
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
