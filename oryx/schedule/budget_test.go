package schedule

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

func attentionAt(row []oryx.Mode) []int {
	var pos []int
	for p, m := range row {
		if m == oryx.Attention {
			pos = append(pos, p)
		}
	}
	return pos
}

func TestBudgetCount(t *testing.T) {
	for _, c := range []struct {
		f    float64
		t, n int
	}{{0, 100, 0}, {1, 100, 100}, {0.05, 100, 5}, {0.02, 127, 3}, {0.5, 3, 2}, {0.1, 4, 0}, {0.1, 5, 1}, {0.2, 1, 0}, {1, 1, 1}} {
		assert.Equal(t, c.n, BudgetCount(c.f, c.t), "F %v T %d", c.f, c.t)
	}
}

// TestBudgetPoliciesExactCount: every policy puts exactly BudgetCount(F, T) tokens in attention, for the
// frontier's budgets and a range of lengths.
func TestBudgetPoliciesExactCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 7, 50, 127, 300} {
		question := make([]bool, n)
		entropy := make([]float64, n)
		for p := range n {
			question[p] = rng.IntN(5) == 0
			entropy[p] = rng.Float64() * 3
		}
		for _, f := range []float64{0, 0.02, 0.05, 0.1, 0.2, 0.5, 1} {
			for _, p := range Policies {
				b := Budget{Fraction: f, Policy: p, Threshold: math.NaN()}
				row, err := b.Modes(n, question, entropy, rand.New(rand.NewPCG(3, 4)))
				require.NoError(t, err)
				require.Len(t, row, n)
				require.Equal(t, BudgetCount(f, n), oryxtest.CountAttention(row), "%s T %d", b, n)
			}
		}
	}
}

// TestBudgetPoliciesPlacement: which positions each policy picks, on known inputs.
func TestBudgetPoliciesPlacement(t *testing.T) {
	const n = 10
	q := make([]bool, n)
	for _, p := range []int{2, 5, 6} {
		q[p] = true
	}
	ent := []float64{0.1, 3, 0.5, 2, 2, math.NaN(), 0.2, 2.5, 0.05, 0}
	place := func(f float64, p Policy) []int {
		row, err := Budget{Fraction: f, Policy: p, Threshold: math.NaN()}.Modes(n, q, ent, rand.New(rand.NewPCG(5, 6)))
		require.NoError(t, err)
		return attentionAt(row)
	}
	assert.Equal(t, []int{7, 8, 9}, place(0.3, PolicyLast))
	assert.Equal(t, []int{5, 6}, place(0.2, PolicyQuestion), "more question positions than budget: the latest")
	assert.Equal(t, []int{2, 5, 6}, place(0.3, PolicyQuestion))
	assert.Equal(t, []int{2, 5, 6, 8, 9}, place(0.5, PolicyQuestion), "then the latest other positions")
	assert.Equal(t, []int{1, 4, 7}, place(0.3, PolicyEntropy), "ties (3 and 4 at 2.0): the later")
	assert.Equal(t, []int{1, 3, 4, 7}, place(0.4, PolicyEntropy))
	assert.Equal(t, []int{0, 1, 2, 3, 4, 6, 7, 8, 9}, place(0.9, PolicyEntropy), "NaN is never preferred")
	assert.Nil(t, place(0, PolicyEntropy))
	r1, r2 := place(0.3, PolicyRandom), place(0.3, PolicyRandom)
	assert.Equal(t, r1, r2, "the same stream draws the same positions")
	assert.Len(t, r1, 3)

	_, err := Budget{Fraction: 0.5, Policy: PolicyQuestion}.Modes(n, nil, nil, nil)
	assert.ErrorContains(t, err, "question positions")
	_, err = Budget{Fraction: 0.5, Policy: PolicyEntropy}.Modes(n, nil, ent[:3], nil)
	assert.ErrorContains(t, err, "entropy at each position")
	_, err = Budget{Fraction: 0.5, Policy: PolicyRandom}.Modes(n, nil, nil, nil)
	assert.ErrorContains(t, err, "random stream")
}

func TestBudgetSpec(t *testing.T) {
	b, ok, err := parseBudget(" budget:0.05:Entropy ")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 0.05, b.Fraction)
	assert.Equal(t, PolicyEntropy, b.Policy)
	assert.True(t, math.IsNaN(b.Threshold))
	assert.Equal(t, "budget:0.05:entropy", b.String())
	b, _, err = parseBudget("budget:1:entropy:2.5")
	require.NoError(t, err)
	assert.Equal(t, 2.5, b.Threshold)
	assert.Equal(t, "budget:1:entropy:2.5", b.String())
	_, ok, err = parseBudget("attention-last:3")
	assert.False(t, ok)
	assert.NoError(t, err)
	for spec, msg := range map[string]string{
		"budget":                 "want budget:F:POLICY",
		"budget:0.1":             "want budget:F:POLICY",
		"budget:1.5:last":        "want a number in [0, 1]",
		"budget:x:last":          "want a number in [0, 1]",
		"budget:0.1:smart":       `unknown budget policy "smart"`,
		"budget:0.1:last:2":      "only the entropy policy takes a threshold",
		"budget:0.1:entropy:-1":  "want a number of nats",
		"budget:0.1:entropy:1:2": "want budget:F:POLICY",
	} {
		require.ErrorContains(t, checkSpec(spec), msg, spec)
		require.ErrorContains(t, checkSpec(spec), `schedule "`+spec+`"`, spec)
	}
}

func TestParseScheduleBudget(t *testing.T) {
	s, err := parseScheduleRows("budget:0.25:last", []int{8, 4, 1}, 0)
	require.NoError(t, err)
	assert.Equal(t, "LLLLLLAA", rowStr(s.Row(0)))
	assert.Equal(t, "LLLA", rowStr(s.Row(1)))
	assert.Equal(t, "L", rowStr(s.Row(2)))
	s, err = parseSchedule("budget:0.25:random", 3, 40, 9)
	require.NoError(t, err)
	for r := range 3 {
		assert.Equal(t, 10, oryxtest.CountAttention(s.Row(r)))
	}
	assert.NotEqual(t, s.Row(0), s.Row(1), "each row its own stream")
	s2, err := parseSchedule("budget:0.25:random", 3, 40, 9)
	require.NoError(t, err)
	assert.Equal(t, s.String(), s2.String())
	_, err = parseSchedule("budget:0.25:question", 1, 8, 0)
	assert.ErrorContains(t, err, "question positions")
	_, err = parseSchedule("budget:0.25:entropy", 1, 8, 0)
	assert.ErrorContains(t, err, "linear pass")
}

// TestBudgetDecodeMode: generated tokens of the static policies keep the running count of attention tokens
// at BudgetCount(F, k) after every k-th token, prompt included.
func TestBudgetDecodeMode(t *testing.T) {
	for _, f := range []float64{0, 0.02, 0.1, 0.3, 0.5, 1} {
		for _, p := range []Policy{PolicyLast, PolicyQuestion, PolicyRandom} {
			spec := BudgetSpec(f, p)
			const prompt = 13
			attn := BudgetCount(f, prompt)
			for pos := prompt; pos < 200; pos++ {
				m, err := decodeMode(spec, pos, prompt)
				require.NoError(t, err)
				attn += oryxtest.CountAttention([]oryx.Mode{m})
				require.Equal(t, BudgetCount(f, pos+1), attn, "%s after position %d", spec, pos)
			}
		}
	}
	_, err := decodeMode("budget:0.1:entropy", 5, 3)
	assert.ErrorContains(t, err, "at run time")
	for f, want := range map[string]oryx.Mode{"0": oryx.Linear, "1": oryx.Attention} {
		m, err := decodeMode("budget:"+f+":entropy", 5, 3)
		require.NoError(t, err)
		assert.Equal(t, want, m, "F = %s: nothing to decide", f)
	}
	assert.NoError(t, checkDecodeSpec("budget:0.1:entropy"))
	assert.NoError(t, checkDecodeSpec("budget:0.1:last"))
	assert.ErrorContains(t, checkDecodeSpec("budget:0.1:question"), "generation has none")
	assert.ErrorContains(t, checkDecodeSpec("block"), "random schedules")
}

func TestEntropyAndThreshold(t *testing.T) {
	assert.InDelta(t, math.Log(4), Entropy([]float64{1, 1, 1, 1}), 1e-15)
	assert.InDelta(t, math.Log(2), Entropy([]float64{3, math.Inf(-1), 3}), 1e-15)
	l := []float64{0.3, -1.2, 2.5, 0.1}
	var want, s float64
	for _, x := range l {
		s += math.Exp(x)
	}
	for _, x := range l {
		p := math.Exp(x) / s
		want -= p * math.Log(p)
	}
	assert.InDelta(t, want, Entropy(l), 1e-14)
	assert.InDelta(t, want, Entropy([]float64{1000.3, 998.8, 1002.5, 1000.1}), 1e-12, "stable for large logits")

	ent := []float64{0.5, 2, 1, 3, 0.1, 1.5, 0.7, 0.2, 0.9, 1.1}
	b := Budget{Fraction: 0.3, Policy: PolicyEntropy, Threshold: math.NaN()}
	assert.Equal(t, 1.5, b.EntropyThreshold(ent), "the lowest of the 3 selected")
	b.Fraction = 0.01
	assert.Equal(t, 3.0, b.EntropyThreshold(ent), "none selected: the highest")
	b.Threshold = 0.25
	assert.Equal(t, 0.25, b.EntropyThreshold(ent))

	x := NewEscalation(Budget{Fraction: 0.5, Policy: PolicyEntropy, Threshold: 1}, [][]oryx.Mode{oryxtest.Modes("LAAL")}, nil)
	assert.True(t, x.Candidate(0, 4), "2 attention of 4, + 1 ≤ BudgetCount(0.5, 5) = 3")
	assert.False(t, x.Decide(0, 4, []float64{5, 0, 0}), "entropy 0.08 below the threshold 1")
	assert.True(t, x.Decide(0, 4, []float64{0, 0, 0, 0}), "entropy ln 4 above it")
	assert.False(t, x.Candidate(0, 5), "the budget is spent: 3 + 1 > BudgetCount(0.5, 6) = 3")
	assert.True(t, x.Candidate(0, 6), "until it grows: BudgetCount(0.5, 7) = 4")
}
