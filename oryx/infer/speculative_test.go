package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/tensordata"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// specTestModel is the float64 test model (untied head) with random weights rescaled so that the linear
// draft and the attention target agree on about half of the greedy drafts: embeddings ×50 (the token path
// both readouts share dominates the residual stream; at init it is 0.02) and W_O ×0.3 (the readouts' share).
// With plain random weights the two readouts agree on ~10 % of the drafts, too few to exercise long
// accepted prefixes.
func specTestModel(t *testing.T, v oryx.Variant) (*oryx.Model, *context.Context) {
	t.Helper()
	cfg := oryxtest.Config(v)
	cfg.TiedEmbeddings = false
	return specTestModelOf(t, cfg)
}

// specTestModelOf is specTestModel for any multi-mixer config (untied embeddings: genTestModel's).
func specTestModelOf(t *testing.T, cfg oryx.Config) (*oryx.Model, *context.Context) {
	t.Helper()
	m, ctx := oryxtest.NewModel(t, cfg)
	ctx.SetParam(context.ParamInitialSeed, genTestSeed)
	e, err := NewEngine(backend.MustGet(), ctx, m, 1, 4)
	require.NoError(t, err)
	_, err = e.Prefill([][]int32{{1, 2}}, [][]oryx.Mode{{oryx.Attention, oryx.Linear}}) // creates every weight
	require.NoError(t, err)
	scaled := 0
	for vv := range ctx.IterVariables() {
		f := 0.0
		switch {
		case strings.HasSuffix(vv.Scope(), "/embeddings"):
			f = 50
		case strings.HasSuffix(vv.Scope(), "/wo"):
			f = 0.3
		default:
			continue
		}
		val, err := vv.Value()
		require.NoError(t, err)
		x := tensors.MustCopyFlatData[float64](val)
		for i := range x {
			x[i] *= f
		}
		require.NoError(t, vv.SetValue(tensors.FromFlatDataAndDimensions(x, val.Shape().Dimensions...)))
		scaled++
	}
	require.Equal(t, 1+m.Config.Layers, scaled, "test setup: the embeddings and every layer's W_O")
	return m, ctx
}

// maxAbsDiff is the largest |a − b| over two states (State() copies).
func maxAbsDiff(t *testing.T, a, b [][]float64) float64 {
	t.Helper()
	require.Equal(t, len(a), len(b))
	worst := 0.0
	for i := range a {
		require.Equal(t, len(a[i]), len(b[i]))
		for j := range a[i] {
			worst = max(worst, math.Abs(a[i][j]-b[i][j]))
		}
	}
	return worst
}

// stateRow is row b of a batch's state (every state tensor has the batch as its first axis).
func stateRow(st [][]float64, b, batch int) [][]float64 {
	out := make([][]float64, len(st))
	for i, x := range st {
		n := len(x) / batch
		out[i] = x[b*n : (b+1)*n]
	}
	return out
}

// TestSpeculativeGreedyMatchesGenerate: greedy speculative decoding gives Generate's tokens, modes and
// attention fraction in the target schedule, and leaves the engine in Generate's final state (KV caches,
// linear states, conv inputs, positions; float64 ≤ 1e-9), for both Oryx variants, K ∈ {1, 2, 4, 8}, a batch
// of prompts of 2, 5 and 9 tokens, and target schedules that switch modes among the generated tokens; drafts
// are accepted and rejected in every case.
func TestSpeculativeGreedyMatchesGenerate(t *testing.T) {
	cases := []struct {
		v    oryx.Variant
		k    int
		spec string
	}{
		{oryx.OryxTG, 4, ""}, {oryx.OryxTM, 2, "linear-until:12"}, {oryx.OryxTG, 1, "attention-last:3"}, {oryx.OryxTM, 8, ""},
		{oryx.OryxTG, 8, "A:0-3,L:4-13,A:14-"}, {oryx.OryxTM, 1, ""}, {oryx.OryxTG, 2, ""}, {oryx.OryxTM, 4, "attention-last:1"},
	}
	models := map[oryx.Variant][2]any{}
	for _, c := range testutil.Sweep(cases, 2) {
		t.Run(fmt.Sprintf("%s/K=%d/%q", c.v, c.k, c.spec), func(t *testing.T) {
			if _, ok := models[c.v]; !ok {
				m, ctx := specTestModel(t, c.v)
				models[c.v] = [2]any{m, ctx}
			}
			m, ctx := models[c.v][0].(*oryx.Model), models[c.v][1].(*context.Context)
			checkSpeculativeMatchesGenerate(t, m, ctx, c.k, c.spec)
		})
	}
}

// checkSpeculativeMatchesGenerate is TestSpeculativeGreedyMatchesGenerate on model m with K drafts and target
// schedule spec.
func checkSpeculativeMatchesGenerate(t *testing.T, m *oryx.Model, ctx *context.Context, k int, target string) {
	const maxTokens, capacity = 17, 32
	c := struct {
		k    int
		spec string
	}{k, target}
	vocab := m.Config.Vocab
	prompts := [][]int32{oryxtest.RandomTokens(71, 1, 2, vocab)[0], oryxtest.RandomTokens(72, 1, 5, vocab)[0], oryxtest.RandomTokens(73, 1, 9, vocab)[0]}
	opts := GenerateOptions{Schedule: c.spec, MaxTokens: maxTokens}
	plainE, err := NewEngine(backend.MustGet(), ctx, m, 3, capacity)
	require.NoError(t, err)
	plain, err := plainE.Generate(prompts, opts)
	require.NoError(t, err)
	specE, err := NewEngine(backend.MustGet(), ctx, m, 3, capacity)
	require.NoError(t, err)
	var calls []int
	opts.Progress = func(done, total int) { require.Equal(t, maxTokens, total); calls = append(calls, done) }
	spec, err := specE.GenerateSpeculative(prompts, c.k, opts)
	require.NoError(t, err)

	require.Equal(t, plain.Tokens, spec.Tokens)
	require.Equal(t, plain.Modes, spec.Modes)
	require.Equal(t, plain.AttentionFraction, spec.AttentionFraction)
	require.Equal(t, plain.GeneratedTokens, spec.GeneratedTokens)
	require.Equal(t, plain.PromptTokens, spec.PromptTokens)
	for b := range prompts {
		require.Greater(t, len(distinct(plain.Tokens[b])), 2, "test setup: row %d's continuation is degenerate", b)
	}
	require.Equal(t, plainE.Positions(), specE.Positions())
	require.LessOrEqual(t, maxAbsDiff(t, plainE.State(), specE.State()), 1e-9, "final state")

	s := spec.Speculation
	require.NotNil(t, s)
	t.Logf("%+v", *s)
	require.Equal(t, c.k, s.Draft)
	require.Greater(t, s.Accepted, 0, "some drafts are accepted")
	require.Less(t, s.Accepted, s.Drafted, "some drafts are rejected")
	require.InDelta(t, float64(s.Accepted)/float64(s.Drafted), s.AcceptanceRate, 1e-12)
	require.Less(t, s.Rounds, maxTokens-1, "fewer rounds than decode steps")
	require.Equal(t, 1, calls[0])
	require.Equal(t, maxTokens, calls[len(calls)-1])
	require.Len(t, calls, s.Rounds+1)
}

// trainedTestModel trains the float64 test model (Adam, switching modes so that both readouts learn) on a
// noisy bigram language — the next token is perm[previous] with probability 0.8, else uniform — and returns
// it with its first and last training losses.
func trainedTestModel(t *testing.T, v oryx.Variant, steps int) (*oryx.Model, *context.Context, [2]float64) {
	t.Helper()
	const batch, seqLen = 8, 20
	m, ctx := genTestModel(t, v)
	vocab := m.Config.Vocab
	r := rand.New(rand.NewPCG(5, 6))
	perm := r.Perm(vocab)
	opt := optimizers.Adam().LearningRate(0.03).Done()
	exec, err := context.NewExec(backend.MustGet(), ctx, func(ctx *context.Context, tok, md *Node) *Node {
		logits := m.Logits(ctx, tok, m.ModesOrNil(md))
		inputs, targets := SliceAxis(logits, 1, AxisRange(0, seqLen-1)), SliceAxis(tok, 1, AxisRange(1, seqLen))
		logp := Sub(inputs, ReduceAndKeep(inputs, ReduceMax, -1))
		logp = Sub(logp, Log(ReduceAndKeep(Exp(logp), ReduceSum, -1)))
		loss := Neg(ReduceAllMean(ReduceSum(Mul(logp, OneHot(targets, vocab, logp.DType())), -1)))
		opt.UpdateGraph(ctx, tok.Graph(), loss)
		return loss
	})
	require.NoError(t, err)
	defer exec.Finalize()
	var losses [2]float64
	for step := range steps {
		tok := make([][]int32, batch)
		for b := range tok {
			tok[b] = make([]int32, seqLen)
			tok[b][0] = int32(r.IntN(vocab))
			for i := 1; i < seqLen; i++ {
				tok[b][i] = int32(r.IntN(vocab))
				if r.Float64() < 0.8 {
					tok[b][i] = int32(perm[tok[b][i-1]])
				}
			}
		}
		outs, err := exec.Exec(tensors.FromFlatDataAndDimensions(oryxtest.FlatInt32(tok), batch, seqLen),
			tensors.FromFlatDataAndDimensions(oryxtest.FlatInt32(oryxtest.SwitchingModes(uint64(step), batch, seqLen)), batch, seqLen))
		require.NoError(t, err)
		loss := tensordata.Float64s(outs[0])[0]
		if step == 0 {
			losses[0] = loss
		}
		losses[1] = loss
	}
	return m, ctx, losses
}

// TestSpeculativeTrained: on trained weights (a few Adam steps on a bigram language, both variants) greedy
// speculative decoding still gives Generate's tokens and final state (the readouts agree on 40-100 % of the
// drafts here). Skipped under -short (the training graph is slow to compile on XLA).
func TestSpeculativeTrained(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: trains two models (a few seconds on pure Go, far longer to compile on XLA)")
	}
	const maxTokens, capacity, k = 16, 32, 3
	for _, v := range []oryx.Variant{oryx.OryxTG, oryx.OryxTM} {
		t.Run(string(v), func(t *testing.T) {
			m, ctx, losses := trainedTestModel(t, v, 40)
			t.Logf("training loss %.3f → %.3f", losses[0], losses[1])
			require.Less(t, losses[1], losses[0]-1, "test setup: the model did not learn")
			prompts := [][]int32{oryxtest.RandomTokens(74, 1, 3, m.Config.Vocab)[0], oryxtest.RandomTokens(75, 1, 8, m.Config.Vocab)[0]}
			plainE, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
			require.NoError(t, err)
			plain, err := plainE.Generate(prompts, GenerateOptions{MaxTokens: maxTokens})
			require.NoError(t, err)
			specE, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
			require.NoError(t, err)
			spec, err := specE.GenerateSpeculative(prompts, k, GenerateOptions{MaxTokens: maxTokens})
			require.NoError(t, err)
			require.Equal(t, plain.Tokens, spec.Tokens)
			require.LessOrEqual(t, maxAbsDiff(t, plainE.State(), specE.State()), 1e-9, "final state")
			t.Logf("%+v", *spec.Speculation)
			require.Greater(t, spec.Speculation.Accepted, 0)
		})
	}
}

// TestSpeculativeStops: with stop tokens, speculative decoding gives Generate's tokens, and each row ends in
// the state plain decoding of that prompt alone ends in (a stopped row is left as it is, where Generate keeps
// feeding it dummy tokens); some of the stops fall inside a round, before accepted drafts or the target's
// token (Discarded > 0).
func TestSpeculativeStops(t *testing.T) {
	const maxTokens, capacity, k = 14, 24, 4
	m, ctx := specTestModel(t, oryx.OryxTG)
	vocab := m.Config.Vocab
	prompts := [][]int32{oryxtest.RandomTokens(81, 1, 3, vocab)[0], oryxtest.RandomTokens(82, 1, 6, vocab)[0]}
	e2, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
	require.NoError(t, err)
	e1, err := NewEngine(backend.MustGet(), ctx, m, 1, capacity)
	require.NoError(t, err)
	free, err := e2.Generate(prompts, GenerateOptions{MaxTokens: maxTokens})
	require.NoError(t, err)
	stops := testutil.Sweep(free.Tokens[0][1:], 6)
	discarded := 0
	for _, stop := range stops {
		opts := GenerateOptions{MaxTokens: maxTokens, Stop: []int32{stop}}
		plain, err := e2.Generate(prompts, opts)
		require.NoError(t, err)
		spec, err := e2.GenerateSpeculative(prompts, k, opts)
		require.NoError(t, err)
		require.Equal(t, plain.Tokens, spec.Tokens, "stop %d", stop)
		require.Equal(t, plain.AttentionFraction, spec.AttentionFraction, "stop %d", stop)
		discarded += spec.Speculation.Discarded
		st, pos := e2.State(), e2.Positions()
		for b, p := range prompts {
			alone, err := e1.Generate([][]int32{p}, opts)
			require.NoError(t, err)
			require.Equal(t, alone.Tokens[0], spec.Tokens[b])
			require.Equal(t, e1.Positions()[0], pos[b], "stop %d row %d", stop, b)
			require.LessOrEqual(t, maxAbsDiff(t, e1.State(), stateRow(st, b, 2)), 1e-9, "stop %d row %d", stop, b)
		}
	}
	require.Greater(t, discarded, 0, "test setup: no stop fell inside a round")
}

// TestSpeculativeSamplingMatchesTarget: with a random sampler (temperature, top-p), the second generated
// token — the first one speculative decoding produces — is distributed as plain sampling's: its exact
// marginal Σ_t1 p(t1) p(· | t1) (target mode, the sampler's distribution) against 3,072 samples (64 rows ×
// 48 seeds), chi-square at p = 0.001. The same samples are far from the linear draft's marginal, so the
// test would see a sampler that returned the drafts.
func TestSpeculativeSamplingMatchesTarget(t *testing.T) {
	const rows, runs = 256, 8
	m, ctx := genTestModel(t, oryx.OryxTG) // plain random weights: the draft's marginal is far from the target's
	vocab := m.Config.Vocab
	prompt := oryxtest.RandomTokens(91, 1, 4, vocab)[0]
	newSampler := func(seed uint64) *Sampler {
		s, err := NewSampler(1.3, 0, 0.97, seed)
		require.NoError(t, err)
		return s
	}
	dist := newSampler(0)

	// Exact marginals of the second token: target (attention) and draft (linear) conditionals for every t1.
	e, err := NewEngine(backend.MustGet(), ctx, m, vocab, 8)
	require.NoError(t, err)
	same := make([][]int32, vocab)
	modes := make([][]oryx.Mode, vocab)
	next := make([]int32, vocab)
	for b := range same {
		same[b], modes[b], next[b] = prompt, oryxtest.ConstModes(1, len(prompt), oryx.Attention)[0], int32(b)
	}
	first, err := e.Prefill(same, modes)
	require.NoError(t, err)
	p1, err := dist.distribution(first[0])
	require.NoError(t, err)
	marginal := func(mode oryx.Mode) []float64 {
		_, err := e.Prefill(same, modes)
		require.NoError(t, err)
		md := make([]oryx.Mode, vocab)
		for b := range md {
			md[b] = mode
		}
		logits, err := e.Step(next, md)
		require.NoError(t, err)
		out := make([]float64, vocab)
		for t1, row := range logits {
			p2, err := dist.distribution(row)
			require.NoError(t, err)
			for j, x := range p2 {
				out[j] += p1[t1] * x
			}
		}
		return out
	}
	target, draft := marginal(oryx.Attention), marginal(oryx.Linear)

	counts := make([]float64, vocab)
	se, err := NewEngine(backend.MustGet(), ctx, m, rows, 8)
	require.NoError(t, err)
	batch := make([][]int32, rows)
	for b := range batch {
		batch[b] = prompt
	}
	var drafted, accepted int
	for r := range runs {
		g, err := se.GenerateSpeculative(batch, 3, GenerateOptions{MaxTokens: 4, Sampler: newSampler(uint64(1000 + r))})
		require.NoError(t, err)
		for _, toks := range g.Tokens {
			counts[toks[1]]++
		}
		drafted, accepted = drafted+g.Speculation.Drafted, accepted+g.Speculation.Accepted
	}
	t.Logf("acceptance %d/%d", accepted, drafted)
	require.Greater(t, accepted, drafted/10, "test setup: the rejection path alone")
	require.Less(t, accepted, drafted*9/10, "test setup: the acceptance path alone")

	stat, df, impossible := pooledChiSquare(counts, target)
	require.Zero(t, impossible, "tokens of probability 0 were drawn")
	limit := chiSquareQuantile(df, 3.09)
	t.Logf("chi-square vs target %.1f (df %d, limit %.1f)", stat, df, limit)
	require.Less(t, stat, limit)
	wrong, dfWrong, _ := pooledChiSquare(counts, draft)
	t.Logf("chi-square vs draft %.1f (df %d)", wrong, dfWrong)
	require.Greater(t, wrong, 3*chiSquareQuantile(dfWrong, 3.09), "test power: the draft's marginal must be rejected")
}

// pooledChiSquare is Pearson's statistic of counts against probabilities p, with the bins whose expected count is
// below 5 pooled; it also returns the degrees of freedom and how many samples fell where p = 0.
func pooledChiSquare(counts, p []float64) (stat float64, df int, impossible float64) {
	n := 0.0
	for _, c := range counts {
		n += c
	}
	var poolC, poolE float64
	bins := 0
	for i, c := range counts {
		e := n * p[i]
		switch {
		case p[i] == 0:
			impossible += c
		case e < 5:
			poolC, poolE = poolC+c, poolE+e
		default:
			stat += (c - e) * (c - e) / e
			bins++
		}
	}
	if poolE > 0 {
		stat += (poolC - poolE) * (poolC - poolE) / poolE
		bins++
	}
	return stat, bins - 1, impossible
}

// chiSquareQuantile is the Wilson–Hilferty approximation of the chi-square quantile with df degrees of
// freedom at the standard normal quantile z (3.09: p = 0.001).
func chiSquareQuantile(df int, z float64) float64 {
	k := float64(df)
	a := 2 / (9 * k)
	return k * math.Pow(1-a+z*math.Sqrt(a), 3)
}

// TestVerifyDraftsJointDistribution: the acceptance rule alone, on a synthetic pair of models over 5 tokens
// whose next-token logits depend on the whole prefix: rounds of 3 drafts until 3 tokens are generated give
// the target's joint distribution of the 3 tokens (125 outcomes, 60,000 samples, chi-square at p = 0.001),
// for plain temperature sampling and with top-k and top-p (the draft puts mass where the target has none and
// the reverse). Greedy: the target's argmax chain.
func TestVerifyDraftsJointDistribution(t *testing.T) {
	const vocab, n, k = 5, 3, 3
	logitsOf := func(salt uint64, prefix []int32) []float32 {
		h := salt
		for _, x := range prefix {
			h = h*1_000_003 + uint64(x) + 1
		}
		r := rand.New(rand.NewPCG(h, 17))
		out := make([]float32, vocab)
		for i := range out {
			out[i] = float32(1.5 * r.NormFloat64())
		}
		return out
	}
	targetLogits := func(prefix []int32) []float32 { return logitsOf(1, prefix) }
	draftLogits := func(prefix []int32) []float32 {
		p, q := logitsOf(1, prefix), logitsOf(2, prefix)
		for i := range p {
			p[i] = 0.6*p[i] + 0.8*q[i] // correlated with the target
		}
		return p
	}
	for _, c := range []struct {
		name              string
		temp, topP        float64
		topK, samples     int
		greedy            bool
		wantAcceptAtLeast float64
	}{
		{name: "temperature", temp: 1, samples: 60_000},
		{name: "top-k top-p", temp: 0.8, topK: 4, topP: 0.9, samples: 60_000},
		{name: "greedy", greedy: true, samples: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Greedy()
			if !c.greedy {
				var err error
				s, err = NewSampler(c.temp, c.topK, c.topP, 5)
				require.NoError(t, err)
			}
			counts := make([]float64, vocab*vocab*vocab)
			var drafted, accepted int
			for range c.samples {
				seq := []int32{0}
				for len(seq) < 1+n {
					kk := min(k, 1+n-len(seq)-1)
					var drafts []int32
					var q [][]float64
					for range kk {
						dl := draftLogits(append(append([]int32(nil), seq...), drafts...))
						var d int
						if c.greedy {
							d, _ = s.sampleRow(dl)
						} else {
							p, err := s.distribution(dl)
							require.NoError(t, err)
							d = s.drawDense(p, 1)
							q = append(q, p)
						}
						drafts = append(drafts, int32(d))
					}
					target := make([][]float32, kk+1)
					for i := range target {
						target[i] = targetLogits(append(append([]int32(nil), seq...), drafts[:i]...))
					}
					out, acc, err := s.verifyDrafts(drafts, q, target)
					require.NoError(t, err)
					require.Len(t, out, acc+1)
					require.True(t, slices.Equal(drafts[:acc], out[:acc]))
					drafted, accepted = drafted+kk, accepted+acc
					seq = append(seq, out...)
				}
				counts[(int(seq[1])*vocab+int(seq[2]))*vocab+int(seq[3])]++
			}
			// The exact joint distribution of the target's chain.
			want := make([]float64, len(counts))
			for a := range vocab {
				for b := range vocab {
					for d := range vocab {
						pr := 1.0
						prefix := []int32{0}
						for _, x := range []int{a, b, d} {
							p, err := s.distribution(targetLogits(prefix))
							require.NoError(t, err)
							pr *= p[x]
							prefix = append(prefix, int32(x))
						}
						want[(a*vocab+b)*vocab+d] = pr
					}
				}
			}
			if c.greedy {
				for i, w := range want {
					require.Equal(t, w, counts[i], "greedy: the argmax chain, outcome %d", i)
				}
				return
			}
			t.Logf("acceptance %d/%d", accepted, drafted)
			require.Greater(t, accepted, drafted/10)
			require.Less(t, accepted, drafted*9/10)
			stat, df, impossible := pooledChiSquare(counts, want)
			require.Zero(t, impossible)
			limit := chiSquareQuantile(df, 3.09)
			t.Logf("chi-square %.1f (df %d, limit %.1f)", stat, df, limit)
			require.Less(t, stat, limit)
		})
	}
}

// TestGenerateSpeculativeErrors: arguments are checked before any work, as in Generate; single-mixer
// variants and draft lengths outside [1, MaxDraft] are refused.
func TestGenerateSpeculativeErrors(t *testing.T) {
	e := newTestEngine(t, oryx.OryxTG, 2, 8)
	vocab := e.model.Config.Vocab
	p6, p3 := oryxtest.RandomTokens(61, 1, 6, vocab)[0], oryxtest.RandomTokens(62, 1, 3, vocab)[0]
	for _, c := range []struct {
		name string
		k    int
		opts GenerateOptions
		msg  string
	}{
		{"k 0", 0, GenerateOptions{MaxTokens: 2}, "the draft length k must be in [1, 64] or AutoDraft (-1), got 0"},
		{"k too large", MaxDraft + 1, GenerateOptions{MaxTokens: 2}, "got 65"},
		{"capacity", 2, GenerateOptions{MaxTokens: 4}, "row 0 needs 9 cache positions"},
		{"stop out of vocab", 2, GenerateOptions{MaxTokens: 2, Stop: []int32{99}}, "stop token 99"},
		{"block spec", 2, GenerateOptions{MaxTokens: 2, Schedule: "block"}, "random schedules"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.GenerateSpeculative([][]int32{p6, p3}, c.k, c.opts)
			require.ErrorContains(t, err, "Engine.GenerateSpeculative")
			require.ErrorContains(t, err, c.msg)
			require.Equal(t, []int{0, 0}, e.Positions(), "refused before any work")
		})
	}
	for _, v := range []oryx.Variant{oryx.Transformer, oryx.GDN} {
		_, err := newTestEngine(t, v, 1, 8).GenerateSpeculative([][]int32{p3}, 2, GenerateOptions{MaxTokens: 2})
		require.ErrorContains(t, err, "needs a multi-mixer variant")
	}
	// The capacity bound is Generate's: promptLen + MaxTokens − 1 == capacity is fine, whatever k.
	g, err := e.GenerateSpeculative([][]int32{p6, p3}, 8, GenerateOptions{MaxTokens: 3})
	require.NoError(t, err)
	require.Equal(t, []int{3, 3}, []int{len(g.Tokens[0]), len(g.Tokens[1])})
	require.Equal(t, []int{8, 5}, e.Positions())
}
