package probes

import (
	"fmt"
	"math"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/mqar"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/niah"
)

// Pooled is a probe's result pooled over all its items under the model's current schedule (one point of the
// attention-budget frontier, evals/frontier): the mean score, its standard error, the fraction of the tokens
// run in attention (generated tokens included) and the tokens run.
type Pooled struct {
	Value, StdErr, AttentionFraction float64
	Tokens                           int64
}

// PooledMQAR is MQAR pooled over o.Pairs under lm's schedule: o.Examples examples of seed per pair count
// (o.Seed is not read: the caller names the seed of its evaluation).
func PooledMQAR(lm *oryxlm.Model, o MQAROptions, seed uint64) (Pooled, error) {
	var pt Pooled
	var correct, queries, attn float64
	for _, p := range o.Pairs {
		r, err := mqar.EvaluateSchedule(lm, datasets.MQARConfig{Vocab: o.Vocab, SeqLen: o.SeqLen, NumPairs: p, Seed: seed}, o.Examples, o.Offset)
		if err != nil {
			return pt, fmt.Errorf("%d pairs: %w", p, err)
		}
		correct += r.Accuracy * float64(r.Queries)
		queries += float64(r.Queries)
		attn += r.AttentionFraction * float64(r.Tokens)
		pt.Tokens += int64(r.Tokens)
	}
	pt.Value = correct / max(queries, 1)
	pt.StdErr = math.Sqrt(pt.Value * (1 - pt.Value) / max(queries, 1))
	pt.AttentionFraction = attn / max(float64(pt.Tokens), 1)
	return pt, nil
}

// PooledNeedles generates the mini needles' answers under lm's schedule (the question split, for
// budget:F:question, at the "\nQ:" line) and scores them as the tiny study does (niah.ScoreMini).
func PooledNeedles(lm harness.Model, needles []datasets.MiniNeedle) (Pooled, error) {
	var pt Pooled
	reqs := make([]harness.GenRequest, len(needles))
	for i, s := range needles {
		reqs[i] = harness.GenRequest{Context: s.PromptTokens, AttentionFrom: s.QuestionStart, MaxTokens: MiniNeedleAnswerTokens, Until: []string{"."}}
	}
	gen, err := lm.GenerateUntil(reqs, nil)
	if err != nil {
		return pt, err
	}
	scores := make([]float64, len(needles))
	var attn int64
	for i, s := range needles {
		scores[i] = niah.ScoreMini(s, harness.CutAtStop(gen[i].Text, []string{"."}))
		attn += int64(gen[i].AttentionTokens)
		pt.Tokens += int64(gen[i].TotalTokens)
	}
	pt.Value, pt.StdErr = harness.Mean(scores), harness.MeanStderr(scores)
	pt.AttentionFraction = float64(attn) / max(float64(pt.Tokens), 1)
	return pt, nil
}
