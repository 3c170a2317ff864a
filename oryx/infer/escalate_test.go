package infer

import (
	"math"
	"slices"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/tensordata"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// parallelRunner is parallelLogits with one compiled graph reused across calls (one compilation per shape
// on XLA, instead of one per call).
func parallelRunner(t *testing.T, m *oryx.Model, ctx *context.Context) func(tokens [][]int32, modes [][]oryx.Mode) [][]float64 {
	exec, err := context.NewExec(backend.MustGet(), ctx, func(ctx *context.Context, tok, md *Node) *Node {
		return m.Logits(ctx, tok, md)
	})
	require.NoError(t, err)
	t.Cleanup(exec.Finalize)
	return func(tokens [][]int32, modes [][]oryx.Mode) [][]float64 {
		b, n := len(tokens), len(tokens[0])
		outs, err := exec.Exec(tensors.FromFlatDataAndDimensions(oryxtest.FlatInt32(tokens), b, n), tensors.FromFlatDataAndDimensions(oryxtest.FlatInt32(modes), b, n))
		require.NoError(t, err)
		flat := tensordata.Float64s(outs[0])
		rows := make([][]float64, b)
		for i := range rows {
			rows[i] = flat[i*n*m.Config.Vocab : (i+1)*n*m.Config.Vocab]
		}
		return rows
	}
}

// withLinear returns a copy of modes with position p in linear mode: the trial step's reading (positions
// after p do not change the logits at p).
func withLinear(modes []oryx.Mode, p int) []oryx.Mode {
	out := append([]oryx.Mode(nil), modes...)
	out[p] = oryx.Linear
	return out
}

// TestScorerEntropiesMatchDense: the chunked entropies (whole vocabulary, and vocabulary chunks under a tiny
// budget) equal the entropy of the dense logits at every position; ScoreEntropy's scores are Score's.
func TestScorerEntropiesMatchDense(t *testing.T) {
	const b, n = 2, 30
	m, ctx := oryxtest.NewModel(t, oryxtest.Config(oryx.OryxTG))
	vocab := m.Config.Vocab
	tokens := oryxtest.RandomTokens(3, b, n, vocab)
	modes := oryxtest.SwitchingModes(4, b, n)
	logits := oryxtest.ParallelLogits(t, m, ctx, tokens, modes)
	tok, md := oryxtest.FlatInt32(tokens), oryxtest.FlatInt32(modes)
	for _, mem := range []int64{0, 1} {
		s, err := oryx.NewScorer(backend.MustGet(), ctx, m, mem)
		require.NoError(t, err)
		got, err := s.Entropies(tok, md, b, n)
		require.NoError(t, err)
		for r := range b {
			for p := range n {
				want := schedule.Entropy(logits[r][p*vocab : (p+1)*vocab])
				require.InDelta(t, want, got[r*n+p], 1e-12, "mem %d row %d position %d", mem, r, p)
			}
		}
		pos, tgt := make([]int32, b*n), make([]int32, b*n)
		for i := range pos {
			pos[i], tgt[i] = int32(i%n), int32((i*7)%vocab)
		}
		lp, gr, ent, err := s.ScoreEntropy(tok, md, b, n, pos, tgt, n)
		require.NoError(t, err)
		lp2, gr2, err := s.Score(tok, md, b, n, pos, tgt, n)
		require.NoError(t, err)
		require.Equal(t, lp2, lp)
		require.Equal(t, gr2, gr)
		require.Equal(t, got, ent)
	}
}

// TestStepEscalateMatchesParallel: decoding with per-token escalation equals the parallel forward run with
// the modes it chose (float64, ≤ 1e-9), and each escalation decision saw the parallel forward's logits with
// that token in linear mode (the trial left the state intact).
func TestStepEscalateMatchesParallel(t *testing.T) {
	for _, v := range testutil.Sweep([]oryx.Variant{oryx.OryxTG, oryx.OryxTM}, 1) {
		t.Run(string(v), func(t *testing.T) {
			m, ctx := genTestModel(t, v)
			checkStepEscalateMatchesParallel(t, m, ctx)
		})
	}
}

// checkStepEscalateMatchesParallel is TestStepEscalateMatchesParallel on model m.
func checkStepEscalateMatchesParallel(t *testing.T, m *oryx.Model, ctx *context.Context) {
	vocab := m.Config.Vocab
	e, err := NewEngine(backend.MustGet(), ctx, m, 2, 16)
	require.NoError(t, err)
	prompts := [][]int32{oryxtest.RandomTokens(5, 1, 5, vocab)[0], oryxtest.RandomTokens(6, 1, 3, vocab)[0]}
	seqs := [][]int32{append([]int32(nil), prompts[0]...), append([]int32(nil), prompts[1]...)}
	modes := [][]oryx.Mode{oryxtest.Modes("LALLL"), oryxtest.Modes("AAL")}
	_, err = e.Prefill(prompts, modes)
	require.NoError(t, err)
	fed := oryxtest.RandomTokens(7, 6, 2, vocab)
	var committed [][]([]float64) = [][][]float64{{}, {}} // per row, per step: the committed logits
	type trial struct {
		row, step int
		logits    []float64
	}
	var trials []trial
	escalations, committedTrials := 0, 0
	for step, toks := range fed {
		candidate := []bool{step != 2, true}
		logits, used, second, err := e.StepEscalate(toks, candidate, func(row int, l []float64) bool {
			require.True(t, candidate[row], "a non-candidate row is never offered")
			trials = append(trials, trial{row, step, append([]float64(nil), l...)})
			return (row+step)%2 == 0
		})
		require.NoError(t, err)
		any := false
		for row := range 2 {
			want := candidate[row] && (row+step)%2 == 0
			require.Equal(t, modeOf(want), used[row], "step %d row %d", step, row)
			any = any || want
			seqs[row] = append(seqs[row], toks[row])
			modes[row] = append(modes[row], used[row])
			committed[row] = append(committed[row], e.LastLogits()[row])
			require.Equal(t, float32(e.LastLogits()[row][0]), logits[row][0])
		}
		require.Equal(t, any, second)
		if any {
			escalations++
		} else if slices.Contains(candidate, true) {
			committedTrials++
		}
	}
	require.Greater(t, escalations, 2)
	require.Greater(t, committedTrials, 0, "a trial committed: its keys and values appended to the caches, read by later steps")
	run := parallelRunner(t, m, ctx)
	for row := range 2 {
		par := run([][]int32{seqs[row]}, [][]oryx.Mode{modes[row]})[0]
		for step := range fed {
			p := len(prompts[row]) + step
			require.Less(t, testutil.RelErr(par[p*vocab:(p+1)*vocab], committed[row][step]), 1e-9, "row %d step %d", row, step)
		}
	}
	for _, tr := range trials {
		p := len(prompts[tr.row]) + tr.step
		par := run([][]int32{seqs[tr.row]}, [][]oryx.Mode{withLinear(modes[tr.row], p)})[0]
		require.Less(t, testutil.RelErr(par[p*vocab:(p+1)*vocab], tr.logits), 1e-9, "trial row %d step %d", tr.row, tr.step)
	}
}

// TestGenerateEntropyBudget: Generate under budget:F:entropy places the prompt's attention tokens where the
// all-linear forward's entropy is highest, escalates exactly the generated tokens the rule says (linear
// entropy above the row's threshold, within the running budget), and generates the greedy continuation of
// the parallel forward with those modes. At F = 0 and 1 it is Generate under "linear" and "attention".
func TestGenerateEntropyBudget(t *testing.T) {
	const maxTokens = 8
	m, ctx := genTestModel(t, oryx.OryxTG)
	vocab := m.Config.Vocab
	e, err := NewEngine(backend.MustGet(), ctx, m, 2, 24)
	require.NoError(t, err)
	prompts := [][]int32{oryxtest.RandomTokens(31, 1, 11, vocab)[0], oryxtest.RandomTokens(32, 1, 6, vocab)[0]}
	for _, c := range [][2]string{{"budget:0:entropy", "linear"}, {"budget:1:entropy", "attention"}} {
		got, err := e.Generate(prompts, GenerateOptions{Schedule: c[0], MaxTokens: maxTokens})
		require.NoError(t, err)
		want, err := e.Generate(prompts, GenerateOptions{Schedule: c[1], MaxTokens: maxTokens})
		require.NoError(t, err)
		require.Equal(t, want.Tokens, got.Tokens, c[0])
		require.Equal(t, want.Modes, got.Modes, c[0])
		require.Equal(t, want.AttentionFraction, got.AttentionFraction, c[0])
	}

	const f = 0.3
	b := schedule.Budget{Fraction: f, Policy: schedule.PolicyEntropy, Threshold: math.NaN()}
	g, err := e.Generate(prompts, GenerateOptions{Schedule: b.String(), MaxTokens: maxTokens})
	require.NoError(t, err)
	attention, processed, escalated := 0, 0, 0
	run := parallelRunner(t, m, ctx)
	for row, prompt := range prompts {
		lin := run([][]int32{prompt}, oryxtest.ConstModes(1, len(prompt), oryx.Linear))[0]
		ent := make([]float64, len(prompt))
		for p := range ent {
			ent[p] = schedule.Entropy(lin[p*vocab : (p+1)*vocab])
		}
		md, err := b.Modes(len(prompt), nil, ent, nil)
		require.NoError(t, err)
		thr := b.EntropyThreshold(ent)
		attn := oryxtest.CountAttention(md)
		require.Equal(t, schedule.BudgetCount(f, len(prompt)), attn)
		// The whole sequence once with the modes generation used (the logits at a position depend only on
		// the modes up to it), and once per fed token with that token linear (its trial).
		seq := append(append([]int32(nil), prompt...), g.Tokens[row]...)
		fed := len(g.Tokens[row]) - 1
		all := append(append([]oryx.Mode(nil), md...), g.Modes[row]...)
		par := run([][]int32{seq}, [][]oryx.Mode{all})[0]
		for k, tok := range g.Tokens[row] {
			n := len(prompt) + k
			require.Equal(t, argmax32(par[(n-1)*vocab:n*vocab]), tok, "row %d token %d: greedy on the parallel forward", row, k)
			if k == fed {
				break // never fed
			}
			pos := n
			trial := run([][]int32{seq}, [][]oryx.Mode{withLinear(all, pos)})[0]
			want := attn+1 <= schedule.BudgetCount(f, pos+1) && schedule.Entropy(trial[pos*vocab:(pos+1)*vocab]) > thr
			require.Equal(t, modeOf(want), g.Modes[row][k], "row %d token %d", row, k)
			if want {
				attn++
				escalated++
			}
			require.LessOrEqual(t, attn, schedule.BudgetCount(f, pos+1), "the running budget")
		}
		attention += attn
		processed += len(prompt) + fed
	}
	require.Greater(t, escalated, 0, "test setup: no generated token escalated")
	require.InDelta(t, float64(attention)/float64(processed), g.AttentionFraction, 1e-15)
}

// modeOf is Attention when attention is true, else Linear.
func modeOf(attention bool) oryx.Mode {
	if attention {
		return oryx.Attention
	}
	return oryx.Linear
}
