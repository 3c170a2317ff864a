package study

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/evals/evalapi"
	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/require"
)

func TestCurveInterpolation(t *testing.T) {
	cv := curve{tokens: []float64{100, 200, 300}, loss: []float64{3, 2, 1.5}}
	require.Equal(t, 3.0, cv.at(50), "before the first validation: its value")
	require.Equal(t, 2.0, cv.at(200))
	require.InDelta(t, 1.75, cv.at(250), 1e-12)
	require.True(t, math.IsNaN(cv.at(400)))
	require.InDelta(t, 150, cv.tokensTo(2.5), 1e-12)
	require.Equal(t, 100.0, cv.tokensTo(3.5))
	require.InDelta(t, 300, cv.tokensTo(1.5), 1e-12)
	require.True(t, math.IsNaN(cv.tokensTo(1.4)), "never reached")
	// Rising: the recall curves' tokens to an accuracy.
	x, acc := []float64{100, 200, 300}, []float64{0.1, 0.4, 0.8}
	require.InDelta(t, 225, firstCrossing(x, acc, 0.5, true), 1e-12)
	require.Equal(t, 100.0, firstCrossing(x, acc, 0.05, true))
	require.Equal(t, 300.0, firstCrossing(x, acc, 0.8, true))
	require.True(t, math.IsNaN(firstCrossing(x, acc, 0.9, true)))
	require.InDelta(t, 100+100*0.4/0.85, firstCrossing(x, []float64{0.1, 0.95, 0.3}, 0.5, true), 1e-12, "the first crossing, whatever follows")
}

func TestPooledAndRatio(t *testing.T) {
	cells := map[int]mqarCell{4: {Accuracy: 0.5, Queries: 100, AttentionFraction: 0.02}, 8: {Accuracy: 1, Queries: 300, AttentionFraction: 0.04},
		16: {Accuracy: 0, Queries: 1000}}
	acc, se, n, frac := pooled(cells, []int{4, 8})
	require.Equal(t, 400, n)
	require.InDelta(t, 350.0/400, acc, 1e-12)
	require.InDelta(t, math.Sqrt(acc*(1-acc)/400), se, 1e-12)
	require.InDelta(t, 0.03, frac, 1e-12)
	r, sr := ratio(0.45, 0.01, 0.9, 0.02)
	require.InDelta(t, 0.5, r, 1e-12)
	require.InDelta(t, 0.5*math.Sqrt(math.Pow(0.01/0.45, 2)+math.Pow(0.02/0.9, 2)), sr, 1e-12)
}

// oryxResult is a hand-made oryx-tg result of seed 1: MQAR accuracy per schedule at 4 and 8 pairs (400
// queries each).
func oryxResult(att, lin, mix, al, la float64) *ModelResult {
	return oryxSeed(1, att, lin, mix, al, la, 0.05)
}

func cells(a, f float64) map[int]mqarCell {
	return map[int]mqarCell{4: {Accuracy: a, Queries: 400, AttentionFraction: f}, 8: {Accuracy: a, Queries: 400, AttentionFraction: f}}
}

// oryxSeed is oryxResult for seed k, with the mixed schedule's attention fraction mfrac.
func oryxSeed(k int, att, lin, mix, al, la, mfrac float64) *ModelResult {
	return &ModelResult{RunSpec: RunSpec{Name: "oryx-tg"}, Seed: k, Schedules: []ScheduleResult{
		{Schedule: "attention", MQARCells: cells(att, 1)}, {Schedule: "linear", MQARCells: cells(lin, 0)},
		{Schedule: "mixed", MQARCells: cells(mix, mfrac)}},
		SwitchMQAR: map[string]map[int]mqarCell{evalapi.AttentionToLinear: cells(al, 0.1), evalapi.LinearToAttention: cells(la, 0.9)}}
}

// transformerSeed is a hand-made transformer result of seed k (MQAR accuracy acc at 4 and 8 pairs).
func transformerSeed(k int, acc float64) *ModelResult {
	return &ModelResult{RunSpec: RunSpec{Name: "transformer"}, Seed: k, Schedules: []ScheduleResult{{Schedule: "attention", MQARCells: cells(acc, 1)}}}
}

func TestOverSeeds(t *testing.T) {
	st := overSeeds([]float64{0.3}, 0.02, seFromBinomial)
	require.Equal(t, 0.3, st.Mean)
	require.Equal(t, 0.02, st.SE)
	require.Equal(t, seFromBinomial, st.SEFrom)
	st = overSeeds([]float64{1, 2, 6}, 99, seFromBinomial)
	require.Equal(t, 3.0, st.Mean)
	require.InDelta(t, math.Sqrt((4+1+9)/2.0)/math.Sqrt(3), st.SE, 1e-12, "sample SD over √N")
	require.Equal(t, seFromSeeds, st.SEFrom)
	require.True(t, math.IsNaN(overSeeds(nil, 1, seFromBinomial).Mean))
}

// TestClaimsOrder: the claims as the paper states them beside the study's first criteria, each id once.
func TestClaimsOrder(t *testing.T) {
	cls := claims(Default(), nil, nil)
	var ids []string
	for _, cl := range cls {
		ids = append(ids, cl.ID)
		require.Equal(t, NotMeasurable, cl.Verdict, cl.ID)
	}
	require.Equal(t, []string{ClaimA, ClaimAWithin5, ClaimB, ClaimBSelf, ClaimC}, ids)
}

func TestComparisonJSON(t *testing.T) {
	data, err := json.Marshal(Comparison{Name: "x", Tokens: 10, Loss: 1.23456, RefLoss: 1, Gap: 0.23456, TokensRatio: math.NaN()})
	require.NoError(t, err)
	require.JSONEq(t, `{"name":"x","seed":0,"candidate":"","reference":"","tokens":10,"loss":1.2346,"ref_loss":1,"gap":0.2346,"tokens_ratio":null,"set":"","set_se":null}`, string(data))
	data, err = json.Marshal(Comparison{Name: "x", Loss: 1, RefLoss: 1, Set: "held-out 2048 sequences", SetSE: 0.00081234})
	require.NoError(t, err)
	require.Contains(t, string(data), `"set":"held-out 2048 sequences"`)
	require.Contains(t, string(data), `"set_se":0.0008`)
}

func TestCheckProbes(t *testing.T) {
	require.NoError(t, checkProbes(Default()))
	c := Default()
	c.NeedleLengths = []int{112}
	require.ErrorContains(t, checkProbes(c), "needle length 112")
	c.NeedleLengths = []int{125}
	require.ErrorContains(t, checkProbes(c), "exceed the training length")
}

// TestCurveSubsetAndModes: the curve subset is CurveExamples examples at each pair count, in the mixture's
// MQAR id range, with one query per pair; the schedules' mode rows are all attention, all linear, and
// attention exactly at the query keys; the curves are measured every CurveEvery-th validation and at the end.
func TestCurveSubsetAndModes(t *testing.T) {
	c := Default()
	set, err := newRecallProbe(c).subset()
	require.NoError(t, err)
	require.Len(t, set, c.CurveExamples*len(c.CurvePairs))
	require.Equal(t, c.Train.MicroBatch, len(set), "one micro-batch per schedule")
	for i, e := range set {
		require.Equal(t, c.CurvePairs[i/c.CurveExamples], e.pairs)
		require.Len(t, e.tokens, c.Train.SeqLen+1)
		n := 0
		for _, q := range e.query {
			if q {
				n++
			}
		}
		require.Equal(t, e.pairs, n)
		for _, id := range e.tokens {
			require.GreaterOrEqual(t, id, int32(datasets.MQARTokenOffset))
			require.Less(t, id, int32(datasets.MQARTokenOffset+datasets.MQARVocab))
		}
		att, lin, mix := curveModes("attention", e.query, c.Train.SeqLen), curveModes("linear", e.query, c.Train.SeqLen),
			curveModes("mixed", e.query, c.Train.SeqLen)
		for p := range e.query {
			require.Equal(t, oryx.Attention, att[p])
			require.Equal(t, oryx.Linear, lin[p])
			require.Equal(t, e.query[p], mix[p] == oryx.Attention)
		}
	}
	var at []int
	for s := c.Train.EvalEvery; s <= c.Train.Steps; s += c.Train.EvalEvery {
		if c.curveAt(s) {
			at = append(at, s)
		}
	}
	require.Len(t, at, 18)
	require.Equal(t, []int{50, 100}, at[:2])
	require.Equal(t, 900, at[17])
	c.Train.Steps = 710 // not a multiple: the last step too
	require.True(t, c.curveAt(710))
	require.False(t, c.curveAt(725))
}
