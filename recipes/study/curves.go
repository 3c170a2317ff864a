package study

// The recall learning curves: at every validation point of a training, MQAR accuracy on a fixed cheap
// subset in each mode the run has, so that "Oryx-TG is at 29 %" becomes "Oryx-TG needs k× the
// Transformer's tokens to reach 90 %", or shows a plateau.
//
// The subset is Config.CurveExamples examples at each of Config.CurvePairs (default 16 at 4 and 8 pairs: 64
// and 128 queries), generated from their own seed (disjoint from the training mixture's and the
// evaluation's), scored through evals/oryxlm on the weights in training (recipe.Run.Probe) and logged as
// "probe" lines of the run's metrics.jsonl (internal/rundir), so that a resumed run keeps them. One batch
// shape, [CurveExamples, SeqLen], per pair count and schedule: the scoring graph compiles once per process.

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/evalrun"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
)

// mqarCurveSeed seeds the curve subset's MQAR examples: disjoint from the training mixture's MQAR seeds
// (datasets.MixTrainSeed + pairs) and from the evaluation's (mqarEvalSeed).
const mqarCurveSeed = 79

// The levels whose first crossing RecallCurve records.
const (
	CurveLevelHalf = 0.5
	CurveLevelHigh = 0.9
)

// recallProbe measures the curve subset on a model in training (recipe.Run.Probe).
type recallProbe struct {
	c  Config
	lm *oryxlm.Model // built on the first call, around the model in training; its graphs are reused
}

func newRecallProbe(c Config) *recallProbe { return &recallProbe{c: c} }

// curveKey is the probe value of a schedule's accuracy pooled over the pair counts ("mqar_<schedule>"), or
// at one pair count ("mqar_<schedule>_<pairs>").
func curveKey(schedule string, pairs int) string {
	if pairs == 0 {
		return "mqar_" + schedule
	}
	return fmt.Sprintf("mqar_%s_%d", schedule, pairs)
}

// measure scores the subset under every schedule of the model's variant (evalrun.ScoreMQAR: attention,
// linear, mixed as the evaluation reads them) and returns the accuracies by curveKey, pooled ones weighted by
// queries.
func (p *recallProbe) measure(m *oryx.Model, ctx *context.Context) (map[string]float64, error) {
	if p.lm == nil {
		lm, err := oryxlm.New(m, ctx, tokenizers.NewByteTokenizer(), oryxlm.Options{Batch: p.c.CurveExamples, MaxLength: p.c.Train.SeqLen + 1})
		if err != nil {
			return nil, err
		}
		p.lm = lm
	}
	task := datasets.MQARConfig{Vocab: datasets.MQARVocab, SeqLen: p.c.Train.SeqLen, Seed: mqarCurveSeed}
	scores, err := evalrun.ScoreMQAR(p.lm, task, p.c.CurvePairs, p.c.CurveExamples, datasets.MQARTokenOffset)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	correct, queries := map[string]float64{}, map[string]int{}
	for _, pairs := range p.c.CurvePairs {
		for _, r := range scores[pairs] {
			out[curveKey(r.Schedule, pairs)] = r.Accuracy
			correct[r.Schedule] += r.Accuracy * float64(r.Queries)
			queries[r.Schedule] += r.Queries
		}
	}
	for s, n := range queries {
		out[curveKey(s, 0)] = correct[s] / float64(n)
	}
	return out, nil
}

// RecallCurve is a run's recall learning curve under one schedule: the curve subset's MQAR accuracy at each
// validation point, pooled over its pair counts (weighted by queries) and per pair count, and the tokens at
// which the pooled accuracy first reached 50 % and 90 % (linear interpolation between validation points, as
// the loss curves' tokens-to-loss; null if never).
type RecallCurve struct {
	Tokens     []int64           `json:"tokens"`
	Accuracy   []float64         `json:"accuracy"`
	ByPairs    map[int][]float64 `json:"accuracy_by_pairs"`
	TokensTo50 rundir.Float      `json:"tokens_to_50"`
	TokensTo90 rundir.Float      `json:"tokens_to_90"`
	// ProbeSeconds is the mean wall time of one curve point (every schedule of the run).
	ProbeSeconds float64 `json:"probe_s"`
}

// at is the pooled accuracy at tokens t, interpolated linearly between validation points (NaN outside).
func (rc *RecallCurve) at(t float64) float64 {
	if rc == nil || len(rc.Tokens) == 0 {
		return math.NaN()
	}
	x := make([]float64, len(rc.Tokens))
	for i, v := range rc.Tokens {
		x[i] = float64(v)
	}
	if t < x[0] || t > x[len(x)-1] {
		return math.NaN()
	}
	return curve{x, rc.Accuracy}.at(t)
}

// readRecallCurves reads the recall curves of the run in dir from its metrics.jsonl's probe lines, by
// schedule (none: a run trained without curves).
func readRecallCurves(dir string) (map[string]*RecallCurve, error) {
	probes, err := rundir.ReadProbes(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]*RecallCurve{}
	var seconds float64
	for _, pr := range probes {
		seconds += pr.Seconds
		for k, v := range pr.Values {
			rest, ok := strings.CutPrefix(k, "mqar_")
			if !ok {
				continue
			}
			sched, pairs := rest, 0
			if i := strings.LastIndexByte(rest, '_'); i >= 0 {
				if n, err := strconv.Atoi(rest[i+1:]); err == nil {
					sched, pairs = rest[:i], n
				}
			}
			rc := out[sched]
			if rc == nil {
				rc = &RecallCurve{ByPairs: map[int][]float64{}}
				out[sched] = rc
			}
			if pairs > 0 {
				rc.ByPairs[pairs] = append(rc.ByPairs[pairs], float64(v))
				continue
			}
			rc.Tokens = append(rc.Tokens, pr.Tokens)
			rc.Accuracy = append(rc.Accuracy, float64(v))
		}
	}
	for sched, rc := range out {
		if len(rc.Tokens) != len(probes) {
			return nil, fmt.Errorf("%s: the recall curve of %s has %d points for %d probe lines", dir, sched, len(rc.Tokens), len(probes))
		}
		x := make([]float64, len(rc.Tokens))
		for i, v := range rc.Tokens {
			x[i] = float64(v)
		}
		rc.TokensTo50 = rundir.Float(firstCrossing(x, rc.Accuracy, CurveLevelHalf, true))
		rc.TokensTo90 = rundir.Float(firstCrossing(x, rc.Accuracy, CurveLevelHigh, true))
		rc.ProbeSeconds = seconds / float64(len(probes))
	}
	return out, nil
}

// firstCrossing is the first x at which y reaches level — y ≥ level when rising, y ≤ level when falling —
// interpolated linearly between the point before the crossing and the point at it; x[0] if y starts there;
// NaN if never.
func firstCrossing(x, y []float64, level float64, rising bool) float64 {
	reached := func(v float64) bool {
		if rising {
			return v >= level
		}
		return v <= level
	}
	for i := range y {
		if !reached(y[i]) {
			continue
		}
		if i == 0 {
			return x[0]
		}
		f := (level - y[i-1]) / (y[i] - y[i-1])
		return x[i-1] + f*(x[i]-x[i-1])
	}
	return math.NaN()
}

// curveSchedules lists the schedules of a run's curves in display order.
func curveSchedules(curves map[string]*RecallCurve) []string {
	var out []string
	for _, s := range []string{"attention", "linear", oryxlm.Mixed} {
		if _, ok := curves[s]; ok {
			out = append(out, s)
		}
	}
	var rest []string
	for s := range curves {
		if s != "attention" && s != "linear" && s != oryxlm.Mixed {
			rest = append(rest, s)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}
