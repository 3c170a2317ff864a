package oryxlm

import (
	"math"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/infer"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// policyModel is a float64 random-weight tiny Oryx-TG (no near-ties between entropies to flip a placement).
func policyModel(t *testing.T, spec string) (*Model, *oryx.Model, *context.Context) {
	t.Helper()
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	cfg.Vocab = 320
	m, err := oryx.New(cfg)
	require.NoError(t, err)
	m.DType = dtypes.Float64
	ctx := context.New()
	ctx.SetParam(context.ParamInitialSeed, int64(11))
	lm, err := New(m, ctx, tokenizers.NewByteTokenizer(), Options{Schedule: spec, Batch: 3})
	require.NoError(t, err)
	return lm, m, ctx
}

func policyRequests(tok tokenizers.Tokenizer) []harness.LLRequest {
	return []harness.LLRequest{
		{Context: tok.Encode("The cat sat on the"), Continuation: tok.Encode(" mat."), AttentionFrom: 18},
		{Context: tok.Encode("copy: abc = "), Continuation: tok.Encode("abc"), AttentionFrom: 5},
		{Context: tok.Encode("x"), Continuation: tok.Encode("yz"), AttentionFrom: 3},
		{Context: tok.Encode("a longer context that spans more tokens than the others do, by far"), Continuation: tok.Encode("!"), AttentionFrom: 40},
	}
}

// TestBudgetLogLikelihoodCounts: every policy puts exactly BudgetCount(F, T) of each request's T tokens in
// attention; question puts them on the split first.
func TestBudgetLogLikelihoodCounts(t *testing.T) {
	lm, _, _ := policyModel(t, "attention")
	reqs := policyRequests(lm.Tokenizer())
	for _, f := range testutil.Sweep([]float64{0.1, 0.3}, 1) {
		for _, p := range schedule.Policies {
			require.NoError(t, lm.SetSchedule(schedule.BudgetSpec(f, p)))
			res, err := lm.LogLikelihood(reqs, nil)
			require.NoError(t, err)
			for i, r := range res {
				require.Equal(t, schedule.BudgetCount(f, r.Tokens), r.AttentionTokens, "%s request %d", lm.Schedule(), i)
			}
		}
	}
	require.NoError(t, lm.SetSchedule("budget:0.3:question"))
	// question: request 1 has 14 inputs, split at 5: BudgetCount(0.3, 14) = 4 of the 9 question tokens, the latest.
	row, err := lm.modesOf(rowSpec{n: 14, attnFrom: 5})
	require.NoError(t, err)
	require.Equal(t, "LLLLLLLLLLAAAA", modeString(row))
	row, err = lm.modesOf(rowSpec{n: 14, attnFrom: 12})
	require.NoError(t, err)
	require.Equal(t, "LLLLLLLLLLAAAA", modeString(row), "2 question tokens, then the latest others")
	q := []bool{false, true, false, false, true, false, false, false, false, false, false, false, false, false}
	row, err = lm.modesOf(rowSpec{n: 14, question: q})
	require.NoError(t, err)
	require.Equal(t, "LALLALLLLLLLAA", modeString(row), "explicit question positions (MQAR)")
}

func modeString(row []oryx.Mode) string {
	b := make([]byte, len(row))
	for i, m := range row {
		b[i] = m.Short()[0]
	}
	return string(b)
}

// TestEntropyBudgetExtremes: budget:0:entropy scores exactly as "linear" and budget:1:entropy exactly as
// "attention", in LogLikelihood and PolicyScores, at one pass's cost.
func TestEntropyBudgetExtremes(t *testing.T) {
	lm, _, _ := policyModel(t, "linear")
	reqs := policyRequests(lm.Tokenizer())
	seqs := [][]int32{{5, 9, 2, 77, 31, 9, 4, 8, 100, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}
	for _, c := range [][2]string{{"budget:0:entropy", "linear"}, {"budget:1:entropy", "attention"}} {
		require.NoError(t, lm.SetSchedule(c[1]))
		lm.ResetCounters()
		want, err := lm.LogLikelihood(reqs, nil)
		require.NoError(t, err)
		wlp, wgr, _, _, err := lm.PolicyScores(seqs, nil)
		require.NoError(t, err)
		flops, gathered := lm.FLOPs, lm.FLOPsGathered
		require.NoError(t, lm.SetSchedule(c[0]))
		lm.ResetCounters()
		got, err := lm.LogLikelihood(reqs, nil)
		require.NoError(t, err)
		require.Equal(t, want, got, c[0])
		glp, ggr, _, _, err := lm.PolicyScores(seqs, nil)
		require.NoError(t, err)
		require.Equal(t, wlp, glp, c[0])
		require.Equal(t, wgr, ggr, c[0])
		require.Equal(t, flops, lm.FLOPs, c[0])
		require.Equal(t, gathered, lm.FLOPsGathered, c[0])
		require.Zero(t, lm.LinearPassTokens)
	}
}

// TestEntropyBudgetTwoPasses: budget:F:entropy places its attention tokens at the highest entropies of the
// all-linear forward (computed here token by token with the engine), scores exactly as TokenScores with
// those modes, and counts both passes' FLOPs.
func TestEntropyBudgetTwoPasses(t *testing.T) {
	const f = 0.25
	lm, m, ctx := policyModel(t, schedule.BudgetSpec(f, schedule.PolicyEntropy))
	seqs := [][]int32{{5, 9, 2, 77, 31, 9, 4, 8, 100, 3, 44, 12, 200}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}}
	lp, gr, modes, attn, err := lm.PolicyScores(seqs, nil)
	require.NoError(t, err)
	flops, gathered := lm.FLOPs, lm.FLOPsGathered
	n := len(seqs[0]) - 1
	require.Equal(t, int64(2*n), lm.LinearPassTokens)
	b, _ := lm.Budget()
	for i, s := range seqs {
		ent := engineEntropies(t, m, ctx, s[:n])
		want, err := b.Modes(n, nil, ent, nil)
		require.NoError(t, err)
		require.Equal(t, want, modes[i], "row %d", i)
		require.Equal(t, schedule.BudgetCount(f, n), attn[i])
	}
	require.NoError(t, lm.SetSchedule("linear"))
	lm.ResetCounters()
	_, _, err = lm.TokenScores(seqs, nil)
	require.NoError(t, err)
	linFLOPs, linGathered := lm.FLOPs, lm.FLOPsGathered
	lm.ResetCounters()
	wlp, wgr, err := lm.TokenScores(seqs, modes)
	require.NoError(t, err)
	require.Equal(t, wlp, lp)
	require.Equal(t, wgr, gr)
	require.Equal(t, linFLOPs+lm.FLOPs, flops, "dense: two full passes")
	require.InDelta(t, float64(len(seqs)*n)*oryx.FLOPsPerToken(m.Config, n, 0)+lm.FLOPsGathered, gathered, 1e-6*gathered,
		"gathered: an all-linear pass and the gathered second pass")
	require.Less(t, linGathered, linFLOPs)
}

// engineEntropies reads seq in linear mode token by token with the engine and returns the entropy of each
// position's next-token distribution.
func engineEntropies(t *testing.T, m *oryx.Model, ctx *context.Context, seq []int32) []float64 {
	t.Helper()
	e, err := infer.NewEngine(backend.MustGet(), ctx, m, 1, len(seq))
	require.NoError(t, err)
	_, err = e.Prefill([][]int32{seq[:1]}, [][]oryx.Mode{{oryx.Linear}})
	require.NoError(t, err)
	out := []float64{schedule.Entropy(e.LastLogits()[0])}
	for _, x := range seq[1:] {
		_, err = e.Step([]int32{x}, []oryx.Mode{oryx.Linear})
		require.NoError(t, err)
		out = append(out, schedule.Entropy(e.LastLogits()[0]))
	}
	return out
}

// TestBudgetGenerateMatchesEngine: GenerateUntil under budget:F:entropy and budget:F:last generates what
// Engine.Generate does under the same spec, with the same attention counts; budget:F:question puts the
// prompt's attention on its split.
func TestBudgetGenerateMatchesEngine(t *testing.T) {
	lm, m, ctx := policyModel(t, "attention")
	tok := lm.Tokenizer()
	reqs := []harness.GenRequest{
		{Context: tok.Encode("Question: what is the colour of the sky? Answer:"), AttentionFrom: 9, MaxTokens: 10},
		{Context: tok.Encode("hi there"), AttentionFrom: 100, MaxTokens: 7},
	}
	for _, spec := range testutil.Sweep([]string{"budget:0.3:entropy", "budget:0.2:last"}, 1) {
		require.NoError(t, lm.SetSchedule(spec))
		res, err := lm.GenerateUntil(reqs, nil)
		require.NoError(t, err)
		for i, r := range reqs {
			e, err := infer.NewEngine(backend.MustGet(), ctx, m, 1, len(r.Context)+r.MaxTokens)
			require.NoError(t, err)
			p := make([]int32, len(r.Context))
			for j, id := range r.Context {
				p[j] = int32(id)
			}
			g, err := e.Generate([][]int32{p}, infer.GenerateOptions{Schedule: spec, MaxTokens: r.MaxTokens, Stop: []int32{int32(tok.EOS())}})
			require.NoError(t, err)
			var want []int
			for _, id := range g.Tokens[0] {
				if int(id) == tok.EOS() {
					break
				}
				want = append(want, int(id))
			}
			require.Equal(t, want, res[i].Tokens, "%s request %d", spec, i)
			fed := len(want) - 1 // the last generated token is never fed
			if len(want) < r.MaxTokens && len(want) < len(g.Tokens[0]) {
				fed = len(want) // stopped at EOS: every kept token was fed
			}
			require.Equal(t, len(r.Context)+fed, res[i].TotalTokens)
			attn := 0
			for k := range fed {
				if g.Modes[0][k] == oryx.Attention {
					attn++
				}
			}
			b, _ := lm.Budget()
			require.Equal(t, schedule.BudgetCount(b.Fraction, len(r.Context))+attn, res[i].AttentionTokens, "%s request %d", spec, i)
		}
	}
	for _, c := range testutil.Sweep([][2]string{{"budget:1:entropy", "attention"}, {"budget:0:entropy", "linear"}}, 1) {
		require.NoError(t, lm.SetSchedule(c[1]))
		want, err := lm.GenerateUntil(reqs, nil)
		require.NoError(t, err)
		require.NoError(t, lm.SetSchedule(c[0]))
		got, err := lm.GenerateUntil(reqs, nil)
		require.NoError(t, err)
		require.Equal(t, want, got, c[0])
	}
	require.NoError(t, lm.SetSchedule("budget:0.2:question"))
	lm.ResetCounters()
	res, err := lm.GenerateUntil(reqs[:1], nil)
	require.NoError(t, err)
	require.GreaterOrEqual(t, res[0].AttentionTokens, schedule.BudgetCount(0.2, len(reqs[0].Context)))
	require.Greater(t, lm.FLOPsGathered, 0.0)
	require.False(t, math.IsNaN(lm.FLOPs))
}
