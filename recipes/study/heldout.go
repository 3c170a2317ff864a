package study

// The language, not one set. The trainer validates on its first EvalBatches × MicroBatch held-out sequences
// (64 at the demo's shape: 8,192 tokens), the same for every run and seed, so that set's sampling error is
// common to all seeds and in no spread over them: scored on 2,048 sequences of the same held-out stream, the
// demo's linear gap was +2.68 % where the 64 said +1.92 %. After training, every run is therefore scored on
// HeldOutSequences sequences of that stream (the trainer's 64 are its first) in each single mode it has, keeping
// each sequence's loss; claim (a)'s gaps are read there, paired sequence by sequence, with the standard error
// the set adds (pairedGap), which the verdicts carry beside the seeds' (estimate.SetSE).

import (
	"fmt"
	"io"
	"math"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/jsonnum"
	"github.com/oryx-go/oryx/oryx"
)

// DefaultHeldOutSequences is the held-out set's size at the demo's shape: 2,048 sequences of 128 tokens
// (262,144 tokens). Across 32 disjoint 64-sequence sets the demo's gaps varied with an SD of 0.37–0.47 points,
// so 2,048 sequences put the set's SE near 0.08 points (≤ 0.1, the target).
const DefaultHeldOutSequences = 2048

// heldOutBatch is how many sequences one scoring call reads.
const heldOutBatch = 32

// HeldOutLoss is a run's loss on the held-out set in one mode: the mean over sequences of each sequence's
// mean loss per token (every sequence has SeqLen targets, so this is the mean per token), its standard error
// over sequences, and the per-sequence losses (kept in the evaluation cache, not in study.json).
type HeldOutLoss struct {
	Mean      jsonnum.Float `json:"mean"`
	SE        jsonnum.Float `json:"se"`
	Sequences int           `json:"sequences"`
	// PerSequence is each sequence's mean loss, in the set's order (the pairing of two runs' gaps); kept in the
	// evaluation cache (evalcache.go), not in study.json.
	PerSequence []float64 `json:"-"`
}

// heldOutSet is the held-out language set: the first n sequences of the validation stream (the synthetic
// language with the validation seed for the synthetic sources; the data spec's own held-out part otherwise:
// datasets.ValidationSet), of SeqLen+1 tokens.
func heldOutSet(c Config, tok tokenizers.Tokenizer, n int) ([][]int32, error) {
	seqs, _, err := datasets.ValidationSet(datasets.DataSpec{Spec: c.Data}, datasets.DataSpec{}, tok, c.Train.SeqLen, n, io.Discard)
	if err != nil {
		return nil, fmt.Errorf("held-out set: %w", err)
	}
	return seqs, nil
}

// heldOutLosses scores the held-out set (c.HeldOutSequences; none when 0) in each single mode of the model's
// variant, every token of a sequence read in that mode.
func heldOutLosses(c Config, m *oryx.Model, ctx *context.Context, tok tokenizers.Tokenizer, log io.Writer) (map[string]*HeldOutLoss, error) {
	if c.HeldOutSequences <= 0 {
		return nil, nil
	}
	seqs, err := heldOutSet(c, tok, c.HeldOutSequences)
	if err != nil {
		return nil, err
	}
	scores, err := scoreRowsByMode(m, ctx, seqs, make([][]bool, len(seqs)), heldOutBatch)
	if err != nil {
		return nil, fmt.Errorf("held-out loss: %w", err)
	}
	out := map[string]*HeldOutLoss{}
	for _, sched := range sortedModes(scores) {
		per := scores[sched]
		mean, se := meanSE(per)
		out[sched] = &HeldOutLoss{Mean: jsonnum.Float(mean), SE: jsonnum.Float(se), Sequences: len(per), PerSequence: per}
		fmt.Fprintf(log, "  held-out loss (%s, %d sequences): %.4f ± %.4f\n", sched, len(per), mean, se)
	}
	return out, nil
}

// meanSE is the mean of xs and its standard error (sample SD/√n; NaN below two values).
func meanSE(xs []float64) (mean, se float64) {
	n := float64(len(xs))
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range xs {
		mean += x
	}
	mean /= n
	if n < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / (n - 1) / n)
}

// pairedGap is the relative gap ā/b̄ − 1 of two runs' losses on the same sequences (a_i, b_i) and its
// standard error over the set by the delta method for a ratio of paired means: with R = ā/b̄ and
// z_i = a_i − R·b_i, SE(R) = sd(z)/(√n·b̄). It is the sampling error of the set alone (the runs fixed). NaN
// when the sets differ in length, are shorter than 2 or hold a loss that is not a finite positive number.
func pairedGap(a, b []float64) (gap, se float64) {
	n := len(a)
	if n < 2 || len(b) != n {
		return math.NaN(), math.NaN()
	}
	var sa, sb float64
	for i := range a {
		if !(a[i] > 0 && b[i] > 0) || math.IsInf(a[i], 0) || math.IsInf(b[i], 0) {
			return math.NaN(), math.NaN()
		}
		sa, sb = sa+a[i], sb+b[i]
	}
	ma, mb := sa/float64(n), sb/float64(n)
	r := ma / mb
	z := make([]float64, n)
	for i := range a {
		z[i] = a[i] - r*b[i]
	}
	_, seZ := meanSE(z) // sd(z)/√n
	return r - 1, seZ / mb
}

// heldOutSetName names the set claim (a)'s gaps are read on: the held-out set (Comparison.Set, Spread.Set), or
// the trainer's validation curve without one.
func (c Config) heldOutSetName() string {
	if c.HeldOutSequences <= 0 {
		return setCurve
	}
	return fmt.Sprintf("held-out %d sequences", c.HeldOutSequences)
}
