package study

// The recall learning curves: at every validation point of a training, MQAR accuracy on a fixed cheap
// subset in each mode the run has, so that "Oryx-TG is at 29 %" becomes "Oryx-TG needs k× the
// Transformer's tokens to reach 90 %", or shows a plateau.
//
// The subset is Config.CurveExamples examples at each of Config.CurvePairs (default 16 at 4 and 8 pairs: 64
// and 128 queries, one micro-batch of 32), generated from their own seed (disjoint from the training
// mixture's and the evaluation's), scored on the weights in training (train.Run.Probe) through the
// validation's own compiled graph (train.Trainer.EvalGreedy: no graph of its own to compile) and logged as
// "probe" lines of the run's metrics.jsonl (internal/rundir), so that a resumed run keeps them.

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/evals/evalapi"
	"github.com/oryx-go/oryx/internal/jsonnum"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/recipes/train"
)

// mqarCurveSeed seeds the curve subset's MQAR examples: disjoint from the training mixture's MQAR seeds
// (datasets.MixTrainSeed + pairs) and from the evaluation's (mqarEvalSeed).
const mqarCurveSeed = 79

// The levels whose first crossing RecallCurve records.
const (
	CurveLevelHalf = 0.5
	CurveLevelHigh = 0.9
)

// recallProbe measures the curve subset on a model in training (train.Run.Probe).
type recallProbe struct {
	c   Config
	set []curveExample // built on the first call
}

// curveExample is one MQAR example of the subset: its id-shifted tokens (SeqLen+1), its query positions
// (the mixed schedule's attention tokens) and its pair count.
type curveExample struct {
	tokens []int32
	query  []bool
	pairs  int
}

func newRecallProbe(c Config) *recallProbe { return &recallProbe{c: c} }

// curveSteps is the number of steps between curve points.
func (c Config) curveSteps() int { return max(c.CurveEvery, 1) * c.Train.EvalEvery }

// curveAt tells whether the recall curves are measured at a validation step: every CurveEvery-th
// validation, and the last step.
func (c Config) curveAt(step int) bool {
	every := c.curveSteps()
	return step == c.Train.Steps || (every > 0 && step%every == 0)
}

// curveKey is the probe value of a schedule's accuracy pooled over the pair counts ("mqar_<schedule>"), or
// at one pair count ("mqar_<schedule>_<pairs>").
func curveKey(schedule string, pairs int) string {
	if pairs == 0 {
		return "mqar_" + schedule
	}
	return fmt.Sprintf("mqar_%s_%d", schedule, pairs)
}

// subset generates the curve subset: examples 0..CurveExamples-1 at each of CurvePairs (ids shifted into the
// mixture's MQAR range).
func (p *recallProbe) subset() ([]curveExample, error) {
	var out []curveExample
	for _, pairs := range p.c.CurvePairs {
		ex, err := datasets.GenerateMQAR(datasets.MQARConfig{Vocab: datasets.MQARVocab, SeqLen: p.c.Train.SeqLen, NumPairs: pairs,
			Seed: mqarCurveSeed}, p.c.CurveExamples)
		if err != nil {
			return nil, err
		}
		for _, e := range ex {
			tok := make([]int32, len(e.Tokens))
			for i, id := range e.Tokens {
				tok[i] = id + datasets.MQARTokenOffset
			}
			out = append(out, curveExample{tok, e.TargetMask, pairs})
		}
	}
	return out, nil
}

// measure scores the subset under every schedule of the model's variant — attention, linear, and mixed
// (every token in linear mode but the query keys, in attention: the evaluation's schedules, evals/mqar) —
// through the trainer's validation graph (Trainer.EvalGreedy, in micro-batches; the last one padded with
// copies of the first example, not counted), and returns the accuracies by curveKey, the pooled ones over
// every query.
func (p *recallProbe) measure(tr *train.Trainer) (map[string]float64, error) {
	if p.set == nil {
		set, err := p.subset()
		if err != nil {
			return nil, err
		}
		p.set = set
	}
	v := tr.Model().Config.Variant
	mb, t := tr.Config().MicroBatch, p.c.Train.SeqLen
	out := map[string]float64{}
	for _, sched := range schedulesOf(v) {
		hits, queries := map[int]int{}, map[int]int{}
		for lo := 0; lo < len(p.set); lo += mb {
			seqs := make([][]int32, mb)
			var modes [][]oryx.Mode
			if v.IsMultiMixer() {
				modes = make([][]oryx.Mode, mb)
			}
			for r := range mb {
				e := p.set[0]
				if lo+r < len(p.set) {
					e = p.set[lo+r]
				}
				seqs[r] = e.tokens
				if modes != nil {
					modes[r] = curveModes(sched, e.query, t)
				}
			}
			greedy, err := tr.EvalGreedy(seqs, modes)
			if err != nil {
				return nil, fmt.Errorf("recall curve (%s): %w", sched, err)
			}
			for r := 0; r < mb && lo+r < len(p.set); r++ {
				e := p.set[lo+r]
				for pos, q := range e.query {
					if q {
						queries[e.pairs]++
						if greedy[r][pos] {
							hits[e.pairs]++
						}
					}
				}
			}
		}
		var h, n int
		for _, pairs := range p.c.CurvePairs {
			out[curveKey(sched, pairs)] = float64(hits[pairs]) / float64(max(queries[pairs], 1))
			h, n = h+hits[pairs], n+queries[pairs]
		}
		out[curveKey(sched, 0)] = float64(h) / float64(max(n, 1))
	}
	return out, nil
}

// curveModes is one row of modes of a schedule: attention, linear, or mixed (attention at the query keys).
func curveModes(sched string, query []bool, t int) []oryx.Mode {
	row := make([]oryx.Mode, t)
	for i := range row {
		switch {
		case sched == "attention", sched == evalapi.Mixed && query[i]:
			row[i] = oryx.Attention
		}
	}
	return row
}

// RecallCurve is a run's recall learning curve under one schedule: the curve subset's MQAR accuracy at each
// validation point, pooled over its pair counts (weighted by queries) and per pair count, and the tokens at
// which the pooled accuracy first reached 50 % and 90 % (linear interpolation between validation points, as
// the loss curves' tokens-to-loss; null if never).
type RecallCurve struct {
	Tokens     []int64           `json:"tokens"`
	Accuracy   []float64         `json:"accuracy"`
	ByPairs    map[int][]float64 `json:"accuracy_by_pairs"`
	TokensTo50 jsonnum.Float     `json:"tokens_to_50"`
	TokensTo90 jsonnum.Float     `json:"tokens_to_90"`
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
			if !(v >= 0 && v <= 1) { // a NaN (null) or out-of-range accuracy: a broken line, not a curve point
				return nil, fmt.Errorf("%s: the probe line at step %d: probe_%s = %v is not an accuracy in [0, 1]",
					filepath.Join(dir, rundir.MetricsFile), pr.Step, k, float64(v))
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
		rc.TokensTo50 = jsonnum.Float(firstCrossing(x, rc.Accuracy, CurveLevelHalf, true))
		rc.TokensTo90 = jsonnum.Float(firstCrossing(x, rc.Accuracy, CurveLevelHigh, true))
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
	for _, s := range []string{"attention", "linear", evalapi.Mixed} {
		if _, ok := curves[s]; ok {
			out = append(out, s)
		}
	}
	var rest []string
	for s := range curves {
		if s != "attention" && s != "linear" && s != evalapi.Mixed {
			rest = append(rest, s)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}
