// Package study is the project's main job: the paper's three claims measured in miniature on a CPU. It
// trains tiny models on the same synthetic mixture with the same token budget — a Transformer, a Gated
// DeltaNet and an Oryx-TG (mixed training, p = 0.5), the controls that attribute Oryx's loss gap (Oryx-TG
// trained all-attention and all-linear; the baselines at half the tokens) and an ablation (complementary
// mode training) — evaluates each under the schedules that apply (all-attention, all-linear, mixed: context
// in linear mode, questions in attention, < 10 % of tokens) on validation loss, MQAR, a mini needle, a copy
// probe and a mode-switch test, then measures the Oryx-TG main model's attention-budget frontier (MQAR
// accuracy against FLOPs per budget and placement policy, frontier.go), and writes study.json (with a
// machine-readable verdict per claim), per-run result files, leaderboard.json, report.md and PNG plots.
package study

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/oryx-go/oryx/evals/evalrun"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
	"github.com/oryx-go/oryx/recipes/train"
)

// RunSpec is one trained model of the study.
type RunSpec struct {
	Name          string       `json:"name"` // its run directory is runs/<Name>-tiny
	Variant       oryx.Variant `json:"variant"`
	AttentionProb float64      `json:"attention_prob"` // multi-mixer variants: p of the block-random mixed training
	ModeTraining  string       `json:"mode_training"`  // multi-mixer variants: mixed | complementary
	Role          string       `json:"role"`           // main | control | ablation
}

// Roles of the runs.
const (
	RoleMain     = "main"
	RoleControl  = "control"
	RoleAblation = "ablation"
)

// DefaultRuns are the study's models. The half-token controls of the baselines are not separate runs: with
// warm-up then a constant learning rate and the same data order, a run's first N/2 steps are exactly a run
// of N/2 steps, so they are read from the full runs' validation curves (validated every 25 steps).
func DefaultRuns() []RunSpec {
	return []RunSpec{
		{Name: "transformer", Variant: oryx.Transformer, Role: RoleMain},
		{Name: "gdn", Variant: oryx.GDN, Role: RoleMain},
		{Name: "oryx-tg", Variant: oryx.OryxTG, AttentionProb: 0.5, ModeTraining: train.ModeTrainingMixed, Role: RoleMain},
		{Name: "oryx-tg-p1", Variant: oryx.OryxTG, AttentionProb: 1, ModeTraining: train.ModeTrainingMixed, Role: RoleControl},
		{Name: "oryx-tg-p0", Variant: oryx.OryxTG, AttentionProb: 0, ModeTraining: train.ModeTrainingMixed, Role: RoleControl},
		{Name: "oryx-tg-complementary", Variant: oryx.OryxTG, AttentionProb: 0.5, ModeTraining: train.ModeTrainingComplementary,
			Role: RoleAblation},
	}
}

// Config sizes the study.
type Config struct {
	Out   string            `json:"out"`   // everything goes here (runs/, results/, plots, report.md, study.json)
	Runs  []RunSpec         `json:"runs"`  // models, trained one after the other
	Data  string            `json:"data"`  // training mixture (datasets mixture spec)
	Train train.TrainConfig `json:"train"` // every run's, but for the runs' mode training

	MQARPairs    []int `json:"mqar_pairs"`    // evaluated numbers of key–value pairs
	ClaimPairs   []int `json:"claim_pairs"`   // the pair counts the claims pool (those trained on: the mixture's 4..pairs)
	MQARExamples int   `json:"mqar_examples"` // examples per pair count

	NeedleLengths []int     `json:"needle_lengths"` // mini needle prompt lengths (tokens = bytes), answer included ≤ SeqLen
	NeedleDepths  []float64 `json:"needle_depths"`  // needle depths
	NeedleSamples int       `json:"needle_samples"` // samples per (length, depth)

	SwitchSequences int  `json:"switch_sequences"` // held-out text sequences for the per-position mode-switch loss curves
	Quick           bool `json:"quick"`            // the smoke variant
	PureGoBudget    bool `json:"pure_go_budget"`   // the pure-Go budget (PureGoConfig)
	// Jobs is how many runs train and evaluate at once (≤ 1: one after the other; jobs.go). The results do not
	// depend on it.
	Jobs int `json:"jobs"`
	// TrainWorker trains run i of c when Jobs > 1 (nil: TrainRun in a goroutine). The tiny-study command
	// trains each run in a child process: two XLA CPU trainings in one process share its PJRT client and ran
	// no faster together than one after the other, two processes 1.5× faster (jobs.go).
	TrainWorker func(ctx context.Context, c Config, i int, log io.Writer) error `json:"-"`

	// The attention-budget frontier of the Oryx-TG main model (frontier.go): MQAR over ClaimPairs with the
	// first FrontierExamples evaluation examples per pair count (0: no frontier), at each budget under each
	// policy.
	FrontierBudgets  []float64         `json:"frontier_budgets"`
	FrontierPolicies []schedule.Policy `json:"frontier_policies"`
	FrontierExamples int               `json:"frontier_examples"`
}

// Default is the full study, sized for `make demo` on 2 cores with XLA CPU (the budget is measured in the
// README): sequences of 128 bytes, 32 per step, warm-up then a constant LR, validation every 25 steps.
// The mixture is language 1 : MQAR 2 : needles 1 with answer-only loss masks on the MQAR and needle rows.
// Steps is the budget knob (--steps). It was sized on the Transformer's MQAR transition, measured on this
// mixture and seed (XLA CPU, 2026-12-02): MQAR accuracy at 4 / 8 pairs 1.6 / 1.6 % at step 400, 88.7 / 82.0 %
// at 500, 98.0 / 98.2 % at 700, 99.2 / 97.5 % at 800; 700 steps leaves a margin over the ≥ 90 % the study
// needs.
func Default() Config {
	tc := train.TrainConfig{
		SeqLen: 128, Batch: 32, MicroBatch: 32, Steps: 700,
		LR: 3e-3, LRSchedule: train.LRConstant, MinLRRatio: 0.1, WarmupSteps: 20, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8,
		WeightDecay: 0.1, ClipNorm: 1, Precision: "f32", BlockLen: 32, AttentionProb: 0.5, Seed: 1,
		CheckpointEvery: 100, KeepCheckpoints: 1, EvalEvery: 25, EvalBatches: 2, LogEvery: 1,
	}
	return Config{
		Out:       "runs/study",
		Runs:      DefaultRuns(),
		Data:      "mix:synth=1,mqar=2,needle=1,pairs=8",
		Train:     tc,
		MQARPairs: []int{4, 8, 16}, ClaimPairs: []int{4, 8}, MQARExamples: 64,
		NeedleLengths: []int{122}, NeedleDepths: []float64{0, 0.25, 0.5, 0.75, 1}, NeedleSamples: 12,
		SwitchSequences: 32,
		// The frontier on the evaluation's own MQAR examples (so that F = 0 and 1 repeat the linear and
		// attention readings): 22 points, 25 s on XLA CPU under load (README).
		FrontierBudgets: slices.Clone(evalrun.DefaultBudgets), FrontierPolicies: slices.Clone(schedule.Policies), FrontierExamples: 64,
	}
}

// PureGoConfig is the study sized for the pure-Go backend (no XLA plugin: no pip, or offline), which trains
// about 5–10× slower than XLA CPU: the three main models only, 200 steps (820K tokens) each, ≈ 15 minutes on
// 2 cores. That is before the Transformer's MQAR transition (measured at ~500 steps of this mixture), so the
// retrieval claims (b) and (c) are expected to come out not measurable there, and (a) has no p = 1 / p = 0
// controls; the report says so.
func PureGoConfig() Config {
	c := Default()
	c.Train.Steps = 200
	c.Runs = c.Runs[:3]
	c.PureGoBudget = true
	c.FrontierExamples = 16 // pure Go scores MQAR ~8× slower than XLA CPU: a quarter of the examples (README)
	return c
}

// QuickConfig is the smoke variant (≤ 3 minutes, run by `go test` on the pure-Go backend): the same
// pipeline, every run and artefact, at a fraction of the budget. Its numbers mean nothing.
func QuickConfig() Config {
	c := Default()
	c.Out = "runs/study-quick"
	c.Quick = true
	c.Train.Steps, c.Train.Batch, c.Train.MicroBatch = 8, 8, 8
	c.Train.WarmupSteps, c.Train.CheckpointEvery, c.Train.EvalEvery, c.Train.EvalBatches = 2, 8, 4, 1
	c.MQARPairs, c.ClaimPairs, c.MQARExamples = []int{4, 8}, []int{4, 8}, 8
	c.NeedleLengths, c.NeedleDepths, c.NeedleSamples = []int{122}, []float64{0, 1}, 2
	c.SwitchSequences = 4
	c.FrontierBudgets, c.FrontierExamples = []float64{0, 0.1, 1}, c.MQARExamples
	return c
}

// SelectRuns keeps the runs named in the comma-separated list (in the study's order).
func SelectRuns(all []RunSpec, list string) ([]RunSpec, error) {
	want := map[string]bool{}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		ok := false
		for _, r := range all {
			ok = ok || r.Name == f
		}
		if !ok {
			var names []string
			for _, r := range all {
				names = append(names, r.Name)
			}
			return nil, fmt.Errorf("unknown run %q: want some of %s", f, strings.Join(names, ","))
		}
		want[f] = true
	}
	var out []RunSpec
	for _, r := range all {
		if want[r.Name] {
			out = append(out, r)
		}
	}
	return out, nil
}
