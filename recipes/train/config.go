package train

import (
	"errors"
	"fmt"
	"math"

	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/oryx"
)

// TrainConfig holds the optimisation hyperparameters of a run. The architecture is an oryx.Config; the data
// and output locations are Run's fields (run.go).
//
// Token batch: Batch sequences of SeqLen tokens per optimizer step, processed MicroBatch sequences at a time
// (gradient accumulation over Batch/MicroBatch micro-steps; the gradient is the mean over the whole batch).
type TrainConfig struct {
	SeqLen     int `json:"seq_len"`     // T: tokens per sequence
	Batch      int `json:"batch"`       // sequences per optimizer step (the global batch)
	MicroBatch int `json:"micro_batch"` // sequences per forward/backward; divides Batch (0 = Batch)
	Steps      int `json:"steps"`       // optimizer steps of the whole run

	LR          float64 `json:"lr"`            // peak learning rate
	LRSchedule  string  `json:"lr_schedule"`   // after warm-up: "cosine" (to LR·MinLRRatio at Steps) or "constant" (LR)
	MinLRRatio  float64 `json:"min_lr_ratio"`  // the cosine decays to LR·MinLRRatio at Steps
	WarmupSteps int     `json:"warmup_steps"`  // linear warm-up from 0 to LR over these steps
	Beta1       float64 `json:"beta1"`         // AdamW β₁
	Beta2       float64 `json:"beta2"`         // AdamW β₂
	Eps         float64 `json:"eps"`           // AdamW ε (added to √v̂)
	WeightDecay float64 `json:"weight_decay"`  // decoupled, applied as θ ← θ − lr·wd·θ to DecayParam parameters
	ClipNorm    float64 `json:"clip_norm"`     // global gradient-norm clip (≤ 0: none)
	LossScale   float64 `json:"loss_scale"`    // static loss scale (gradients are unscaled before use); 0 = 1
	Precision   string  `json:"precision"`     // "f32" or "bf16" (bf16 compute, f32 master weights and moments)
	MaxBadSteps int     `json:"max_bad_steps"` // K: this many non-finite steps in a row stop the run (0 = 10)

	// Mode schedule of multi-mixer variants: each sequence of each step is cut into BlockLen-token blocks,
	// each in attention mode with probability AttentionProb (schedule.BlockRandom), fresh per sequence and step.
	BlockLen      int     `json:"block_len"`
	AttentionProb float64 `json:"attention_prob"`
	// ModeTraining is how multi-mixer variants train their two readouts: "block-random" (the default, the
	// paper's mixed training: each token's loss in its block-random mode) or "complementary" (an ablation: the
	// mean of the loss with the block modes and with every mode flipped, so each token trains both readouts
	// at twice the FLOPs). Single-mixer variants ignore it. "mixed" names the evaluations' per-request
	// schedule only; a run.json written when the objective was called "mixed" reads as "block-random"
	// (WithDefaults), so such runs resume.
	ModeTraining string `json:"mode_training"`

	Seed uint64 `json:"seed"` // data shuffle, mode schedules and initial weights

	CheckpointEvery int `json:"checkpoint_every"` // steps between checkpoints (and one at the end)
	KeepCheckpoints int `json:"keep_checkpoints"` // most recent checkpoints kept (0 = 3)
	EvalEvery       int `json:"eval_every"`       // steps between validations (0 = only at the end)
	EvalBatches     int `json:"eval_batches"`     // validation micro-batches per mode
	LogEvery        int `json:"log_every"`        // steps between metrics lines (0 = 1)

	// Devices > 1 trains data-parallel over that many devices (XLA): every micro-batch is split along the
	// batch axis, the weights and optimizer state are replicated, and XLA's sharding propagation inserts the
	// gradient all-reduce. The same computation as on one device; MicroBatch must divide by Devices.
	Devices int `json:"devices"`
}

// WithDefaults fills the zero fields that have a neutral default.
func (c TrainConfig) WithDefaults() TrainConfig {
	if c.MicroBatch == 0 {
		c.MicroBatch = c.Batch
	}
	if c.LossScale == 0 {
		c.LossScale = 1
	}
	if c.Precision == "" {
		c.Precision = "f32"
	}
	if c.MaxBadSteps == 0 {
		c.MaxBadSteps = 10
	}
	if c.KeepCheckpoints == 0 {
		c.KeepCheckpoints = 3
	}
	if c.LogEvery == 0 {
		c.LogEvery = 1
	}
	if c.Devices == 0 {
		c.Devices = 1
	}
	if c.LRSchedule == "" {
		c.LRSchedule = LRCosine
	}
	if c.ModeTraining == "" || c.ModeTraining == modeTrainingOldName {
		c.ModeTraining = ModeTrainingBlockRandom
	}
	return c
}

// Resolve fills the defaults (WithDefaults) and validates the result (Validate): the one check of a training
// config, which every entry point makes once (Run.Check inside Train, NewTrainer, the recipe command's
// --print-config); what it returns is what the code behind the entry point uses as it is.
func (c TrainConfig) Resolve() (TrainConfig, error) {
	c = c.WithDefaults()
	return c, c.Validate()
}

// Learning-rate schedules and mode-training options.
const (
	LRCosine                  = "cosine"
	LRConstant                = "constant"
	ModeTrainingBlockRandom   = "block-random"
	ModeTrainingComplementary = "complementary"
	// modeTrainingOldName is ModeTrainingBlockRandom's name in run.json files written before it was renamed.
	modeTrainingOldName = "mixed"
)

// Validate returns every problem of the config, each naming the field (as its JSON name, which is also the
// flag name with "-" for "_").
func (c TrainConfig) Validate() error {
	var errs []error
	bad := func(field string, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if c.SeqLen < 1 || c.SeqLen > guard.MaxSeqLen {
		bad("seq_len", "%d, must be in [1, %d]", c.SeqLen, guard.MaxSeqLen)
	}
	if c.Batch < 1 || c.Batch > guard.MaxBatch {
		bad("batch", "%d, must be in [1, %d]", c.Batch, guard.MaxBatch)
	}
	if c.MicroBatch < 1 || (c.Batch >= 1 && c.Batch%c.MicroBatch != 0) {
		bad("micro_batch", "%d, must be ≥ 1 and divide batch %d", c.MicroBatch, c.Batch)
	}
	if c.Steps < 1 {
		bad("steps", "%d, must be ≥ 1", c.Steps)
	} else if _, ok := guard.Mul(int64(c.Steps), c.TokensPerStep()); !ok && c.SeqLen >= 1 && c.Batch >= 1 {
		// The run's token count (and from it the plan, the progress and the ETA) must be a number.
		bad("steps", "%d × %d tokens per step overflows the token count", c.Steps, c.TokensPerStep())
	}
	if !(c.LR > 0) || math.IsInf(c.LR, 0) {
		bad("lr", "%v, must be > 0 and finite", c.LR)
	}
	if c.LRSchedule != LRCosine && c.LRSchedule != LRConstant {
		bad("lr_schedule", "%q, want %s or %s", c.LRSchedule, LRCosine, LRConstant)
	}
	if c.ModeTraining != ModeTrainingBlockRandom && c.ModeTraining != ModeTrainingComplementary {
		bad("mode_training", "%q, want %s or %s", c.ModeTraining, ModeTrainingBlockRandom, ModeTrainingComplementary)
	}
	if !(c.MinLRRatio >= 0 && c.MinLRRatio <= 1) {
		bad("min_lr_ratio", "%v, must be in [0, 1]", c.MinLRRatio)
	}
	if c.WarmupSteps < 0 {
		bad("warmup_steps", "%d, must be ≥ 0", c.WarmupSteps)
	}
	if !(c.Beta1 >= 0 && c.Beta1 < 1) {
		bad("beta1", "%v, must be in [0, 1)", c.Beta1)
	}
	if !(c.Beta2 >= 0 && c.Beta2 < 1) {
		bad("beta2", "%v, must be in [0, 1)", c.Beta2)
	}
	if !(c.Eps > 0) {
		bad("eps", "%v, must be > 0", c.Eps)
	}
	if !(c.WeightDecay >= 0) {
		bad("weight_decay", "%v, must be ≥ 0", c.WeightDecay)
	}
	if math.IsNaN(c.ClipNorm) {
		bad("clip_norm", "NaN")
	}
	if !(c.LossScale > 0) || math.IsInf(c.LossScale, 0) {
		bad("loss_scale", "%v, must be > 0 and finite", c.LossScale)
	}
	if c.Precision != "f32" && c.Precision != "bf16" {
		bad("precision", "%q, want f32 or bf16", c.Precision)
	}
	if c.Devices < 1 || (c.MicroBatch >= 1 && c.MicroBatch%c.Devices != 0) {
		bad("devices", "%d, must be ≥ 1 and divide micro_batch %d", c.Devices, c.MicroBatch)
	}
	if c.MaxBadSteps < 1 {
		bad("max_bad_steps", "%d, must be ≥ 1", c.MaxBadSteps)
	}
	if c.BlockLen < 1 {
		bad("block_len", "%d, must be ≥ 1", c.BlockLen)
	}
	if !(c.AttentionProb >= 0 && c.AttentionProb <= 1) {
		bad("attention_prob", "%v, must be in [0, 1]", c.AttentionProb)
	}
	if c.CheckpointEvery < 0 || c.EvalEvery < 0 || c.LogEvery < 1 || c.EvalBatches < 0 || c.KeepCheckpoints < 0 {
		bad("checkpoint_every/eval_every/log_every/eval_batches/keep_checkpoints", "must be ≥ 0 (log_every ≥ 1)")
	} else if rows, ok := guard.Mul(int64(c.EvalBatches), int64(c.MicroBatch)); c.MicroBatch >= 1 && (!ok || rows > guard.MaxBatch) {
		// The validation set is built whole before the first step: eval_batches × micro_batch sequences.
		bad("eval_batches", "%d × micro_batch %d validation sequences, must be ≤ %d", c.EvalBatches, c.MicroBatch, guard.MaxBatch)
	}
	return errors.Join(errs...)
}

// LearningRate is the schedule: linear warm-up from 0 over WarmupSteps (step s, 0-based, uses
// LR·(s+1)/WarmupSteps), then a cosine from LR at the end of warm-up down to LR·MinLRRatio at Steps−1, or
// with LRSchedule "constant" LR to the end. The constant schedule is what recall probes use: recall is
// learnt in a late transition, which a cosine would put at a low learning rate; and a constant run's first
// N steps are exactly a run of N steps, so one run gives every shorter budget (the study's half-token
// controls).
func (c TrainConfig) LearningRate(step int) float64 {
	if step < c.WarmupSteps {
		return c.LR * float64(step+1) / float64(c.WarmupSteps)
	}
	if c.LRSchedule == LRConstant {
		return c.LR
	}
	span := c.Steps - 1 - c.WarmupSteps
	if span <= 0 {
		return c.LR
	}
	p := math.Min(1, float64(step-c.WarmupSteps)/float64(span))
	minLR := c.LR * c.MinLRRatio
	return minLR + 0.5*(c.LR-minLR)*(1+math.Cos(math.Pi*p))
}

// TokensPerStep is Batch·SeqLen.
func (c TrainConfig) TokensPerStep() int64 { return int64(c.Batch) * int64(c.SeqLen) }

// FLOPsPerToken is the model FLOPs of a training token: 3× the forward's (oryx.FLOPsPerToken), the
// forward computing both readouts of a multi-mixer model whenever the schedule mixes modes.
func FLOPsPerToken(c oryx.Config, tc TrainConfig) float64 {
	frac := 0.0
	switch {
	case c.Variant.IsMultiMixer():
		frac = tc.AttentionProb
	case c.Variant.HasAttention():
		frac = 1
	}
	return 3 * oryx.FLOPsPerToken(c, tc.SeqLen, frac)
}
