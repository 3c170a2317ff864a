package study

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/evals/evalrun"
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

// oryxResult is a hand-made oryx-tg result: MQAR accuracy per schedule at 4 and 8 pairs (400 queries each).
func oryxResult(att, lin, mix, al, la float64) *ModelResult {
	cell := func(a, f float64) map[int]mqarCell {
		return map[int]mqarCell{4: {Accuracy: a, Queries: 400, AttentionFraction: f}, 8: {Accuracy: a, Queries: 400, AttentionFraction: f}}
	}
	return &ModelResult{RunSpec: RunSpec{Name: "oryx-tg"}, Schedules: []ScheduleResult{
		{Schedule: "attention", MQARCells: cell(att, 1)}, {Schedule: "linear", MQARCells: cell(lin, 0)},
		{Schedule: "mixed", MQARCells: cell(mix, 0.05)}},
		SwitchMQAR: map[string]map[int]mqarCell{evalrun.AttentionToLinear: cell(al, 0.1), evalrun.LinearToAttention: cell(la, 0.9)}}
}

func TestClaimsBAndC(t *testing.T) {
	c := Default()
	// At chance in attention mode: (b) not measurable (the needle has no samples either).
	cl := claimB(c, []*ModelResult{oryxResult(0.02, 0.02, 0.02, 0.02, 0.02)})
	require.Equal(t, NotMeasurable, cl.Verdict)
	// Recall learnt: mixed recovers 0.92/0.96 of attention → holds; 0.80/0.96 → fails.
	cl = claimB(c, []*ModelResult{oryxResult(0.96, 0.1, 0.92, 0.1, 0.9)})
	require.Equal(t, Holds, cl.Verdict, cl.Summary)
	require.InDelta(t, 0.92/0.96, cl.Numbers["mqar"].(map[string]any)["recovered"].(float64), 1e-4)
	require.Equal(t, Fails, claimB(c, []*ModelResult{oryxResult(0.96, 0.1, 0.80, 0.1, 0.9)}).Verdict)
	// (c): pure modes alike → not measurable; differ and the switch reads like the reading mode → holds;
	// linear→attention far below attention → fails.
	require.Equal(t, NotMeasurable, claimC(c, []*ModelResult{oryxResult(0.9, 0.88, 0, 0.88, 0.9)}).Verdict)
	require.Equal(t, Holds, claimC(c, []*ModelResult{oryxResult(0.9, 0.1, 0, 0.1, 0.88)}).Verdict)
	require.Equal(t, Fails, claimC(c, []*ModelResult{oryxResult(0.9, 0.1, 0, 0.1, 0.5)}).Verdict)
	require.Equal(t, NotMeasurable, claimC(c, nil).Verdict)
}

func TestClaimA(t *testing.T) {
	comps := []Comparison{{Name: "oryx-tg attention vs transformer", Gap: 0.049}, {Name: "oryx-tg linear vs gdn", Gap: -0.3}}
	require.Equal(t, Holds, claimA(comps).Verdict, "one-sided: better passes")
	comps[0].Gap = 0.051
	require.Equal(t, Fails, claimA(comps).Verdict)
	require.Equal(t, NotMeasurable, claimA(comps[:1]).Verdict)
}

func TestComparisonJSON(t *testing.T) {
	data, err := json.Marshal(Comparison{Name: "x", Tokens: 10, Loss: 1.23456, RefLoss: 1, Gap: 0.23456, TokensRatio: math.NaN()})
	require.NoError(t, err)
	require.JSONEq(t, `{"name":"x","candidate":"","reference":"","tokens":10,"loss":1.2346,"ref_loss":1,"gap":0.2346,"tokens_ratio":null}`, string(data))
}

func TestCheckProbes(t *testing.T) {
	require.NoError(t, checkProbes(Default()))
	c := Default()
	c.NeedleLengths = []int{112}
	require.ErrorContains(t, checkProbes(c), "needle length 112")
	c.NeedleLengths = []int{125}
	require.ErrorContains(t, checkProbes(c), "exceed the training length")
}
