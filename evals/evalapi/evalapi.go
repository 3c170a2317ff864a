// Package evalapi is the evaluation packages as the tiny study (recipes/study) sees them: the study, the only
// package that joins training and evaluation, imports evals/evalapi and no other evaluation package. What it
// needs of oryxlm (the model under a schedule), mqar and modeswitch (the switch tests), harness and
// leaderboard (the result files), probes (MQAR, held-out text, the generation probes) and frontier (the
// attention-budget frontier) is named here, as aliases of those packages' own types and thin calls of their
// functions, so that the study reads one API and the evaluation packages stay free to move behind it.
package evalapi

import (
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/frontier"
	"github.com/oryx-go/oryx/evals/frontier/measure"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/leaderboard"
	"github.com/oryx-go/oryx/evals/modeswitch"
	"github.com/oryx-go/oryx/evals/mqar"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/evals/probes"
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

// WriteResultsFile writes results to path as one leaderboard results file (leaderboard.NewResultsFile), with
// the fraction of the tokens read in attention.
func WriteResultsFile(path string, info RunInfo, results []*Result, attentionFraction float64) error {
	run := leaderboard.NewResultsFile(info, results)
	run.AttentionFraction = attentionFraction
	return run.WriteFile(path)
}

// MergeLeaderboard merges results files into a leaderboard (leaderboard.Merge).
func MergeLeaderboard(paths ...string) (*Leaderboard, error) { return leaderboard.Merge(paths...) }

// The probes the study runs on its models (evals/probes).
type (
	// MQAROptions configure `evals mqar` (probes.MQAROptions).
	MQAROptions = probes.MQAROptions
	// GenProbe is one prompt of a generation probe; ProbeScore its result at one prompt length (probes).
	GenProbe   = probes.GenProbe
	ProbeScore = probes.ProbeScore
)

// MiniNeedleAnswerTokens is how many tokens the mini-needle probe generates (probes.MiniNeedleAnswerTokens).
const MiniNeedleAnswerTokens = probes.MiniNeedleAnswerTokens

// ScoreMQAR scores MQAR under every schedule of the model's variant for each number of pairs (probes.ScoreMQAR).
func ScoreMQAR(lm *LM, cfg datasets.MQARConfig, pairs []int, n int, offset int32) (map[int][]MQARResult, error) {
	return probes.ScoreMQAR(lm, cfg, pairs, n, offset)
}

// SwitchMQAR runs MQAR's mode-switch test for each number of pairs (probes.SwitchMQAR).
func SwitchMQAR(lm *LM, cfg datasets.MQARConfig, pairs []int, n int, offset int32) (map[int][]MQARResult, error) {
	return probes.SwitchMQAR(lm, cfg, pairs, n, offset)
}

// FormatMQAR is a log line's account of MQAR results (probes.FormatMQAR).
func FormatMQAR(rs []MQARResult) string { return probes.FormatMQAR(rs) }

// HeldOut reads n sequences of seqLen+1 tokens of held-out text (probes.HeldOut).
func HeldOut(data datasets.DataSpec, tok tokenizers.Tokenizer, seqLen, n int) ([][]int32, error) {
	return probes.HeldOut(data, tok, seqLen, n)
}

// MiniNeedleProbe builds the mini needle-in-a-haystack probe (probes.MiniNeedleProbe).
func MiniNeedleProbe(tok tokenizers.Tokenizer, lengths []int, depths []float64, samples int, seed uint64) ([]GenProbe, error) {
	return probes.MiniNeedleProbe(tok, lengths, depths, samples, seed)
}

// CopyProbe builds the copy probe (probes.CopyProbe).
func CopyProbe(tok tokenizers.Tokenizer, lengths []int, n int, seed uint64) ([]GenProbe, error) {
	return probes.CopyProbe(tok, lengths, n, seed)
}

// RunGenProbe generates greedily for every item and returns the scores by prompt length (probes.RunGenProbe).
func RunGenProbe(lm harness.Model, items []GenProbe) (map[int]ProbeScore, error) {
	return probes.RunGenProbe(lm, items)
}

// The attention-budget frontier (evals/frontier: the data; evals/frontier/measure: measuring it).
type (
	// Frontier is frontier.json; FrontierPoint one task under one budget and policy; FrontierOptions
	// configure a run (frontier, frontier/measure).
	Frontier        = frontier.Frontier
	FrontierPoint   = frontier.Point
	FrontierOptions = measure.Options
	// FrontierSummary is a frontier read as one curve per policy (frontier.Summary).
	FrontierSummary = frontier.Summary
)

// FrontierMQAR is the frontier's MQAR task; FrontierTolerance how close to the all-attention accuracy a
// policy must come to recover it (frontier).
const (
	FrontierMQAR      = frontier.TaskMQAR
	FrontierTolerance = frontier.Tolerance
)

// DefaultBudgets are the attention fractions of `evals frontier` (measure.DefaultBudgets).
var DefaultBudgets = measure.DefaultBudgets

// RunFrontier runs every task under every budget and policy and writes the frontier (measure.Run).
func RunFrontier(o FrontierOptions) (*Frontier, error) { return measure.Run(o) }

// BudgetList formats attention budgets for reports and plots (frontier.BudgetList).
func BudgetList(bs []float64) string { return frontier.BudgetList(bs) }
