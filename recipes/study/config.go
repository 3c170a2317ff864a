// Package study is the project's main job: the paper's three claims measured in miniature on a CPU. It
// trains tiny models on the same synthetic mixture with the same token budget — a Transformer, a Gated
// DeltaNet and an Oryx-TG (mixed training, p = 0.5), the controls that attribute Oryx's loss gap (Oryx-TG
// trained all-attention and all-linear; the baselines at half the tokens; the complementary-training ablation
// is the attribution's, AttributionRuns) — evaluates each under the schedules that apply (all-attention, all-linear, mixed: context
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
	"sort"
	"strconv"
	"strings"

	"github.com/oryx-go/oryx/evals/evalapi"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
	"github.com/oryx-go/oryx/recipes/train"
)

// RunSpec is one trained model of the study (trained once per seed: Config.Seeds).
type RunSpec struct {
	Name          string       `json:"name"` // its run directories are runs/<Name>-<size>[-s<seed>] (Label, jobs.go)
	Variant       oryx.Variant `json:"variant"`
	AttentionProb float64      `json:"attention_prob"` // multi-mixer variants: p of the block-random mixed training
	ModeTraining  string       `json:"mode_training"`  // multi-mixer variants: block-random | complementary
	Role          string       `json:"role"`           // main | control | ablation | scale | attribution
	// Width scales the tiny preset's d_model, heads and MLP width (0 or 1: "tiny"; 2: "tiny2x", d 128 and 4
	// heads of the same head dimensions; modelConfig).
	Width int `json:"width,omitempty"`
	// The single changes of the attribution runs (attribution.go); the zero value keeps the study's: the
	// mode-block length, the peak learning rate, and what attention reads (oryx.Config.AttentionKeyNorm,
	// AttentionKeySource).
	BlockLen           int     `json:"block_len,omitempty"`
	LR                 float64 `json:"lr,omitempty"`
	AttentionKeyNorm   string  `json:"attention_key_norm,omitempty"`
	AttentionKeySource string  `json:"attention_key_source,omitempty"`
	Change             string  `json:"change,omitempty"` // the attribution run's change in words ("" for the reference)
}

// Roles of the runs.
const (
	RoleMain        = "main"
	RoleControl     = "control"
	RoleAblation    = "ablation"
	RoleScale       = "scale"       // study-scale's runs (ScaleConfig)
	RoleAttribution = "attribution" // the attribution's single-change runs (AttributionConfig)
)

// Kinds of study: what is trained and what is written (Config.Kind).
const (
	KindStudy       = "study"       // the main job: claims, controls, frontier (study.json)
	KindScale       = "scale"       // the claims' gaps against width and tokens over seeds (scale.json; scale.go)
	KindAttribution = "attribution" // single-change Oryx-TG runs (attribution.json; attribution.go)
)

// What each trained run is evaluated on after its training (Config.Evaluation).
const (
	// EvalFull: MQAR under every schedule and its switch test, the mini needle, the copy probe, the
	// per-position mode-switch curves (the study).
	EvalFull = "full"
	// EvalMQAR: MQAR under every schedule only (the attribution).
	EvalMQAR = "mqar"
	// EvalCurves: nothing after training: the validation losses and the recall curves measured during it
	// (study-scale).
	EvalCurves = "curves"
)

// DemoWidth is the width of the demo's models: tiny2x (d 128, 4 heads, MLP 256), where study-scale measured
// every seed of mixed Oryx-TG learning recall at this budget (91–97 % MQAR; at the tiny width 2.6–97 %, so
// that the demo's one seed could not answer (b) and (c)).
const DemoWidth = 2

// DemoSteps is the demo's budget (3.69M tokens), chosen from the recall transitions measured at tiny2x with matched
// initialisation (make study-decompose, seeds 2–4, 2026-12-05): the Transformer reaches 90 % MQAR at 1.2–1.5M
// tokens on every seed, Oryx-TG (p = 0.5) at ~2.0M on two seeds and at 3.48M on the third (50 % at 3.2M, step
// ~780), so the earlier 700 steps (2.87M) left that seed at 6 % and the demo's verdicts on a spread of bimodal
// seeds; 900 steps has every seed measured past its transition (docs/studies.md §2).
const DemoSteps = 900

// StudyBudgetSteps is the budget study-scale and the attribution were sized and run at (the demo's before
// DemoSteps): the attribution trains that many steps; study-scale reads its gaps there and at 1.5× (one run
// gives both, with a constant learning rate).
const StudyBudgetSteps = 700

// DefaultRuns are the study's models at width w: the Transformer, GDN and Oryx-TG (p = 0.5). The controls
// that attribute (a)'s gap (Oryx-TG at p = 1 and p = 0) are the decomposition's (decompose.go, three seeds).
// The half-token controls of the baselines are not separate runs: with warm-up then a constant learning rate
// and the same data order, a run's first N/2 steps are exactly a run of N/2 steps, so they are read from the
// full runs' validation curves.
func DefaultRuns(w int) []RunSpec {
	return []RunSpec{
		{Name: "transformer", Variant: oryx.Transformer, Role: RoleMain, Width: w},
		{Name: "gdn", Variant: oryx.GDN, Role: RoleMain, Width: w},
		{Name: "oryx-tg", Variant: oryx.OryxTG, AttentionProb: 0.5, ModeTraining: train.ModeTrainingBlockRandom, Role: RoleMain, Width: w},
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

	SwitchSequences int `json:"switch_sequences"` // held-out text sequences for the per-position mode-switch loss curves
	// HeldOutSequences is the held-out language set every run is scored on after training (heldout.go): claim
	// (a)'s gaps are read there, with the set's standard error. 0: none (the gaps from the trainer's validation).
	HeldOutSequences int  `json:"held_out_sequences"`
	Quick            bool `json:"quick"`          // the smoke variant
	PureGoBudget     bool `json:"pure_go_budget"` // the pure-Go budget (PureGoConfig)

	Kind       string `json:"kind"`       // KindStudy (""), KindScale or KindAttribution
	Evaluation string `json:"evaluation"` // EvalFull (""), EvalMQAR or EvalCurves

	// Seeds trains every run with this many seeds (≤ 1: one): seed k of 1..Seeds trains with Train.Seed+k−1
	// (data order, initial weights, mode schedules). The claims then use the mean ± standard error over seeds
	// (claims.go).
	Seeds int `json:"seeds"`

	// The recall learning curves (curves.go): at every validation point of a training, MQAR accuracy on a
	// fixed subset — CurveExamples examples at each of CurvePairs, generated from their own seed — in each
	// mode the run has, logged to its metrics.jsonl. 0 examples: no curves.
	CurvePairs    []int `json:"curve_pairs"`
	CurveExamples int   `json:"curve_examples"`
	// CurveEvery measures the curves at every CurveEvery-th validation (steps that are multiples of
	// CurveEvery·Train.EvalEvery) and at the last step (≤ 1: every validation).
	CurveEvery int `json:"curve_every"`
	// Jobs is how many runs train and evaluate at once (≤ 1: one after the other; jobs.go). The results do not
	// depend on it.
	Jobs int `json:"jobs"`
	// TrainWorker trains run i of c when Jobs > 1 (nil: TrainRun in a goroutine). The tiny-study command
	// trains each run in a child process: two XLA CPU trainings in one process share its PJRT client and ran
	// no faster together than one after the other, two processes 1.5× faster (jobs.go).
	TrainWorker func(ctx context.Context, c Config, i int, log io.Writer) error `json:"-"`
	// Force writes into an Out that holds another command's output (a run directory, an export, ...), which
	// Run otherwise refuses (claim.Dir).
	Force bool `json:"-"`

	// The attention-budget frontier of the Oryx-TG main model (frontier.go): MQAR over ClaimPairs with the
	// first FrontierExamples evaluation examples per pair count (0: no frontier), at each budget under each
	// policy.
	FrontierBudgets  []float64         `json:"frontier_budgets"`
	FrontierPolicies []schedule.Policy `json:"frontier_policies"`
	FrontierExamples int               `json:"frontier_examples"`

	// The sequential study (KindDecide; decide.go): its planned looks (seeds at each), the look whose seeds give
	// the one-seed spreads, and its budget.
	DecideLooks       []int  `json:"decide_looks,omitempty"`
	DecideSpreadSeeds int    `json:"decide_spread_seeds,omitempty"`
	DecideBudget      Budget `json:"decide_budget,omitempty"`

	// ScaleBudgets are the training steps at which study-scale reads the claims' gaps (each a validation
	// step, ≤ Train.Steps; KindScale only).
	ScaleBudgets []int `json:"scale_budgets,omitempty"`
	// TrendBudgets are the training steps at which the trend scores its held-out set and reads the gaps (each a
	// validation step, the last Train.Steps; KindTrend only: trend.go). TrendEnglish: it trains on real English.
	TrendBudgets []int `json:"trend_budgets,omitempty"`
	TrendEnglish bool  `json:"trend_english,omitempty"`
}

// Default is the full study, sized for `make demo` on 2 cores with XLA CPU (its time: the README; its sizing:
// docs/studies.md §2): sequences of 128 bytes, 32 per step, warm-up then a constant LR, validation every 25 steps.
// The mixture is language 1 : MQAR 2 : needles 1 with answer-only loss masks on the MQAR and needle rows.
// Steps is the budget knob (--steps): DemoSteps.
func Default() Config {
	tc := train.TrainConfig{
		SeqLen: 128, Batch: 32, MicroBatch: 32, Steps: DemoSteps,
		LR: 3e-3, LRSchedule: train.LRConstant, MinLRRatio: 0.1, WarmupSteps: 20, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8,
		WeightDecay: 0.1, ClipNorm: 1, Precision: "f32", BlockLen: 32, AttentionProb: 0.5, Seed: 1,
		CheckpointEvery: 100, KeepCheckpoints: 1, EvalEvery: 25, EvalBatches: 2, LogEvery: 1,
	}
	return Config{
		Out:       "runs/study",
		Runs:      DefaultRuns(DemoWidth),
		Data:      "mix:synth=1,mqar=2,needle=1,pairs=8",
		Train:     tc,
		MQARPairs: []int{4, 8, 16}, ClaimPairs: []int{4, 8}, MQARExamples: 64,
		NeedleLengths: []int{122}, NeedleDepths: []float64{0, 0.25, 0.5, 0.75, 1}, NeedleSamples: 12,
		SwitchSequences: 32, HeldOutSequences: DefaultHeldOutSequences,
		Kind: KindStudy, Evaluation: EvalFull, Seeds: 1,
		// The recall curves: 16 examples at 4 and at 8 pairs (64 and 128 queries), one micro-batch forward per
		// mode every other validation (every 50 steps; the cost measured in curves.go).
		CurvePairs: []int{4, 8}, CurveExamples: 16, CurveEvery: 2,
		// The frontier on the evaluation's own MQAR examples (so that F = 0 and 1 repeat the linear and
		// attention readings): 22 points, 25 s on XLA CPU under load (docs/history.md §1.4).
		FrontierBudgets: slices.Clone(evalapi.DefaultBudgets), FrontierPolicies: slices.Clone(schedule.Policies), FrontierExamples: 64,
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
	c.Runs = DefaultRuns(1) // the tiny width: tiny2x trains ~3× slower, beyond the demo's 15 minutes on pure Go
	c.PureGoBudget = true
	c.FrontierExamples = 16  // pure Go scores MQAR ~8× slower than XLA CPU: a quarter of the examples (docs/history.md §1.4)
	c.HeldOutSequences = 512 // a quarter, for the same reason: the set's SE (about twice the full set's) is in the bounds
	return c
}

// QuickConfig is the smoke variant (≤ 3 minutes, run by `go test` on the pure-Go backend): the same
// pipeline, every run and artefact, at a fraction of the budget. Its numbers mean nothing.
func QuickConfig() Config {
	c := Default()
	c.Out = "runs/study-quick"
	c.Quick = true
	c.Runs = DefaultRuns(1)
	c.Train.Steps, c.Train.Batch, c.Train.MicroBatch = 8, 8, 8
	c.Train.WarmupSteps, c.Train.CheckpointEvery, c.Train.EvalEvery, c.Train.EvalBatches = 2, 8, 4, 1
	c.MQARPairs, c.ClaimPairs, c.MQARExamples = []int{4, 8}, []int{4, 8}, 8
	c.NeedleLengths, c.NeedleDepths, c.NeedleSamples = []int{122}, []float64{0, 1}, 2
	c.SwitchSequences, c.HeldOutSequences = 4, 16
	c.FrontierBudgets, c.FrontierExamples = []float64{0, 0.1, 1}, c.MQARExamples
	c.CurveExamples, c.CurveEvery = 4, 1
	return c
}

// ScaleRuns are study-scale's models: the Transformer, GDN and Oryx-TG (p = 0.5) at the tiny width and at
// about twice it (tiny2x: d 128, 4 heads, MLP 256; modelConfig).
func ScaleRuns() []RunSpec {
	var out []RunSpec
	for _, w := range []int{1, 2} {
		out = append(out,
			RunSpec{Name: "transformer", Variant: oryx.Transformer, Role: RoleScale, Width: w},
			RunSpec{Name: "gdn", Variant: oryx.GDN, Role: RoleScale, Width: w},
			RunSpec{Name: "oryx-tg", Variant: oryx.OryxTG, AttentionProb: 0.5, ModeTraining: train.ModeTrainingBlockRandom, Role: RoleScale, Width: w})
	}
	return out
}

// ScaleConfig is `make study-scale` (scale.go): ScaleRuns × 3 seeds, each trained for 1.5× the study's
// budget (1,050 steps) with the study's warm-up and constant learning rate, so that the first 700 steps of
// every run are exactly a run of the study's budget (the same data order): both budgets from one run.
// Nothing is evaluated after training: the claims' gaps are read from the validation losses and the recall
// curves at ScaleBudgets. Validation every 50 steps (the study's 25 costs ~8 % of an Oryx-TG run) and the
// curves every 100 and at the end. Sized for ≤ 90 minutes at two runs at a time on XLA CPU with 2 cores
// from step rates measured under load (docs/history.md §2): twice the study's budget (--steps 1400) was estimated
// at 85–130 minutes.
func ScaleConfig() Config {
	c := Default()
	c.Out = "runs/study-scale"
	c.Kind, c.Evaluation, c.Seeds = KindScale, EvalCurves, 3
	c.Runs = ScaleRuns()
	c.Train.Steps = 3 * StudyBudgetSteps / 2
	c.Train.EvalEvery = 50
	c.ScaleBudgets = []int{StudyBudgetSteps, c.Train.Steps}
	c.FrontierExamples = 0
	return c
}

// QuickScaleConfig is ScaleConfig at the quick study's budget, 2 seeds (tests; numbers meaningless).
func QuickScaleConfig() Config {
	q := QuickConfig()
	c := ScaleConfig()
	c.Out, c.Quick, c.Seeds = "runs/study-scale-quick", true, 2
	c.Train, c.MQARPairs, c.ClaimPairs, c.MQARExamples, c.CurveExamples = q.Train, q.MQARPairs, q.ClaimPairs, q.MQARExamples, q.CurveExamples
	c.CurveEvery = q.CurveEvery
	c.ScaleBudgets = []int{q.Train.Steps / 2, q.Train.Steps}
	return c
}

// AttributionRuns are the attribution's Oryx-TG runs (p = 0.5, mixed training): the study's model and
// single changes of it, one hypothesis each about the recall gap to the Transformer — the mode-block length
// (32 → 8, 128), the attention probability (0.5 → 0.25, 0.75), what attention reads (the L2-normalised key
// GDN reads; the projection before the conv and SiLU) and the learning rate (3e-3 → 1e-3).
func AttributionRuns() []RunSpec {
	base := RunSpec{Name: "oryx-tg", Variant: oryx.OryxTG, AttentionProb: 0.5, ModeTraining: train.ModeTrainingBlockRandom, Role: RoleAttribution}
	with := func(name, change string, f func(*RunSpec)) RunSpec {
		r := base
		r.Name, r.Change = name, change
		f(&r)
		return r
	}
	return []RunSpec{base,
		with("oryx-tg-block8", "mode-block length 8", func(r *RunSpec) { r.BlockLen = 8 }),
		with("oryx-tg-block64", "mode-block length 64", func(r *RunSpec) { r.BlockLen = 64 }),
		with("oryx-tg-block128", "mode-block length 128", func(r *RunSpec) { r.BlockLen = 128 }),
		with("oryx-tg-p025", "attention probability 0.25", func(r *RunSpec) { r.AttentionProb = 0.25 }),
		with("oryx-tg-p075", "attention probability 0.75", func(r *RunSpec) { r.AttentionProb = 0.75 }),
		with("oryx-tg-key-l2", "attention reads the L2-normalised key (as GDN)", func(r *RunSpec) { r.AttentionKeyNorm = oryx.AttentionKeyL2 }),
		with("oryx-tg-key-preconv", "attention reads the key before the conv and SiLU", func(r *RunSpec) {
			r.AttentionKeySource = oryx.AttentionKeyProjection
		}),
		with("oryx-tg-lr1e-3", "learning rate 1e-3", func(r *RunSpec) { r.LR = 1e-3 }),
		// The one ablation of the training objective: every token trains both readouts (2× the mixer FLOPs). It
		// was the main job's sixth run until the demo's 15-minute budget needed its 2× cost back.
		with("oryx-tg-complementary", "complementary mode training (both readouts on every token, 2× mixer FLOPs)", func(r *RunSpec) {
			r.ModeTraining = train.ModeTrainingComplementary
		}),
	}
}

// AttributionConfig is `make study-attribution` (attribution.go): AttributionRuns at StudyBudgetSteps (the
// budget it was run at) and the study's seed, each evaluated on MQAR under every schedule, with the recall
// curves.
func AttributionConfig() Config {
	c := Default()
	c.Out = "runs/study-attribution"
	c.Kind, c.Evaluation = KindAttribution, EvalMQAR
	c.Runs = AttributionRuns()
	c.Train.Steps = StudyBudgetSteps
	c.FrontierExamples = 0
	return c
}

// QuickAttributionConfig is AttributionConfig at the quick study's budget (tests; numbers meaningless).
func QuickAttributionConfig() Config {
	q := QuickConfig()
	c := AttributionConfig()
	c.Out, c.Quick = "runs/study-attribution-quick", true
	c.Train, c.MQARPairs, c.ClaimPairs, c.MQARExamples, c.CurveExamples = q.Train, q.MQARPairs, q.ClaimPairs, q.MQARExamples, q.CurveExamples
	c.CurveEvery, c.HeldOutSequences = q.CurveEvery, q.HeldOutSequences
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

// SelectWidths keeps the runs of all whose width is in list (comma-separated widths: 1 the tiny preset, 2
// tiny2x; a run with Width 0 is width 1). A width no run has is an error naming the widths there are.
func SelectWidths(all []RunSpec, list string) ([]RunSpec, error) {
	have := map[int]bool{}
	for _, r := range all {
		have[max(r.Width, 1)] = true
	}
	want := map[int]bool{}
	for _, f := range strings.Split(list, ",") {
		w, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || !have[w] {
			var ws []string
			for w := range have {
				ws = append(ws, strconv.Itoa(w))
			}
			sort.Strings(ws)
			return nil, fmt.Errorf("width %q: want some of %s", strings.TrimSpace(f), strings.Join(ws, ","))
		}
		want[w] = true
	}
	var out []RunSpec
	for _, r := range all {
		if want[max(r.Width, 1)] {
			out = append(out, r)
		}
	}
	return out, nil
}
