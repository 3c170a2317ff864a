package evalrun

// The evaluation packages as the tiny study (recipes/study) sees them: the study, the only package that joins
// training and evaluation, imports evals/evalrun and no other evaluation package. What it needs of oryxlm
// (the model under a schedule), mqar and modeswitch (the switch tests), harness and leaderboard (the result
// files) is named here, as aliases of those packages' own types and thin calls of their functions, so that
// the study reads one API and the evaluation packages stay free to move behind it.

import (
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/leaderboard"
	"github.com/oryx-go/oryx/evals/modeswitch"
	"github.com/oryx-go/oryx/evals/mqar"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/oryx"
)

// Schedule names of the evaluations. AttentionToLinear and LinearToAttention name the switch schedules, the
// same in MQAR's switch test (mqar) and in the mode-switch curves (modeswitch); Mixed is the evaluations'
// per-request mixed schedule (linear context, attention from the question on: oryxlm.Mixed).
const (
	AttentionToLinear = mqar.AttentionToLinear
	LinearToAttention = mqar.LinearToAttention
	Mixed             = oryxlm.Mixed
	// SwitchAttention and SwitchLinear are the mode-switch curves of the pure modes (modeswitch).
	SwitchAttention = modeswitch.Attention
	SwitchLinear    = modeswitch.Linear
	// SwitchWindow is the mode-switch curves' default recovery window (modeswitch.DefaultWindow).
	SwitchWindow = modeswitch.DefaultWindow
)

type (
	// LM is a checkpoint as a harness model read under a schedule (oryxlm.Model).
	LM = oryxlm.Model
	// LMOptions configure an LM (oryxlm.Options).
	LMOptions = oryxlm.Options
	// MQARResult is one MQAR accuracy with its standard error (mqar.Result).
	MQARResult = mqar.Result
	// SwitchCurves are the per-position losses around a mode switch (modeswitch.Curves).
	SwitchCurves = modeswitch.Curves
	// Result and Metric are a task's result and one of its metrics (harness).
	Result = harness.Result
	Metric = harness.Metric
	// RunInfo describes the run of a result file; Leaderboard is merged result files (leaderboard).
	RunInfo     = leaderboard.RunInfo
	Leaderboard = leaderboard.Leaderboard
)

// NewLM wraps a loaded model for the evaluations (oryxlm.New).
func NewLM(m *oryx.Model, ctx *context.Context, tok tokenizers.Tokenizer, opts LMOptions) (*LM, error) {
	return oryxlm.New(m, ctx, tok, opts)
}

// ModeSwitch computes the per-position loss curves of seqs around a switch at switchAt (modeswitch.Run).
func ModeSwitch(lm *LM, seqs [][]int32, switchAt int) (*SwitchCurves, error) {
	return modeswitch.Run(lm, seqs, switchAt)
}

// Mean is the mean of xs (harness.Mean).
func Mean(xs []float64) float64 { return harness.Mean(xs) }

// WriteRunFile writes one leaderboard run file of results to path (leaderboard.NewRunFile), with the fraction
// of the tokens read in attention.
func WriteRunFile(path string, info RunInfo, results []*Result, attentionFraction float64) error {
	run := leaderboard.NewRunFile(info, results)
	run.AttentionFraction = attentionFraction
	return run.WriteFile(path)
}

// MergeLeaderboard merges run files into a leaderboard (leaderboard.Merge).
func MergeLeaderboard(paths ...string) (*Leaderboard, error) { return leaderboard.Merge(paths...) }
