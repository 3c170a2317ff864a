// Package study is the project's main job: the paper's claims in miniature on 2 CPU cores. It trains tiny
// models (a Transformer, a Gated DeltaNet and an Oryx-TG by default) on the same synthetic mixture with the
// same token budget, evaluates each under the schedules that apply — all-attention, all-linear and mixed
// (context in linear mode, queries/answers in attention, < 10 % of tokens) — on per-mode validation loss,
// MQAR, a mini needle-in-a-haystack and mode-switch curves, and writes per-run result files,
// leaderboard.json, a markdown report and PNG plots.
package study

import (
	"fmt"
	"strings"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/recipes/recipe"
)

// Config sizes the study.
type Config struct {
	Out      string         // everything goes here (runs/, results/, plots, report.md)
	Variants []oryx.Variant // models, trained one after the other
	Data     string         // training mixture (recipe mixture spec)
	Train    recipe.TrainConfig

	MQARPairs    []int // evaluated numbers of key–value pairs
	MQARExamples int   // examples per pair count

	NeedleLengths []int     // mini needle prompt lengths (tokens = bytes)
	NeedleDepths  []float64 // needle depths
	NeedleSamples int       // samples per (length, depth)

	SwitchSequences int // held-out sequences for the mode-switch curves
	Quick           bool
}

// Default is the full study: three models × 819K tokens (200 steps of 16 × 256 tokens), sized to finish in
// ≤ 15 minutes on 2 cores (measured: 170 steps took 9.9 minutes in all; tiny training runs at 2.9–5.4K
// tokens/s there).
func Default() Config {
	tc := recipe.TrainConfig{
		SeqLen: 256, Batch: 16, MicroBatch: 16, Steps: 200,
		LR: 3e-3, MinLRRatio: 0.1, WarmupSteps: 15, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.1,
		ClipNorm: 1, Precision: "f32", BlockLen: 64, AttentionProb: 0.5, Seed: 1,
		CheckpointEvery: 50, KeepCheckpoints: 1, EvalEvery: 50, EvalBatches: 4, LogEvery: 1,
	}
	return Config{
		Out:       "runs/study",
		Variants:  []oryx.Variant{oryx.Transformer, oryx.GDN, oryx.OryxTG},
		Data:      "mix:synth=2,mqar=1,needle=1,pairs=16",
		Train:     tc,
		MQARPairs: []int{4, 8, 16}, MQARExamples: 64,
		NeedleLengths: []int{256, 512, 1024}, NeedleDepths: []float64{0, 0.25, 0.5, 0.75, 1}, NeedleSamples: 4,
		SwitchSequences: 32,
	}
}

// QuickConfig is the CI smoke variant (≤ 3 minutes): the same pipeline at a fraction of the budget. Its
// numbers mean nothing; it checks that every artefact is produced.
func QuickConfig() Config {
	c := Default()
	c.Out = "runs/study-quick"
	c.Quick = true
	c.Train.Steps, c.Train.Batch, c.Train.MicroBatch = 12, 8, 8
	c.Train.WarmupSteps, c.Train.CheckpointEvery, c.Train.EvalEvery, c.Train.EvalBatches = 2, 12, 6, 1
	c.MQARPairs, c.MQARExamples = []int{4, 8}, 8
	c.NeedleLengths, c.NeedleDepths, c.NeedleSamples = []int{256, 512}, []float64{0, 1}, 2
	c.SwitchSequences = 8
	return c
}

// ParseVariants parses a comma-separated variant list.
func ParseVariants(s string) ([]oryx.Variant, error) {
	var out []oryx.Variant
	for _, f := range strings.Split(s, ",") {
		v := oryx.Variant(strings.TrimSpace(f))
		ok := false
		for _, k := range oryx.Variants {
			ok = ok || k == v
		}
		if !ok {
			return nil, fmt.Errorf("unknown variant %q: want some of %v", v, oryx.Variants)
		}
		out = append(out, v)
	}
	return out, nil
}
