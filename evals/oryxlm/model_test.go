package oryxlm

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/infer"
)

// tinyModel is a random-weight tiny model over the byte tokenizer.
func tinyModel(t *testing.T, v oryx.Variant, opts Options) (*Model, *oryx.Model, *context.Context) {
	cfg, err := oryx.Preset("tiny", v)
	require.NoError(t, err)
	cfg.Vocab = 320
	m, err := oryx.New(cfg)
	require.NoError(t, err)
	ctx := context.New()
	ctx.SetParam(context.ParamInitialSeed, int64(3))
	lm, err := New(m, ctx, tokenizers.NewByteTokenizer(), opts)
	require.NoError(t, err)
	return lm, m, ctx
}

// engineLogProbs runs seq through the engine token by token (Prefill of the first token, then Steps) with
// the given modes and returns log p(seq[i+1] | seq[:i+1]) and whether it is the argmax — an independent path
// to the same numbers (the engine's equivalence with the parallel forward is tested in package oryx).
func engineLogProbs(t *testing.T, m *oryx.Model, ctx *context.Context, seq []int32, modes []oryx.Mode) ([]float64, []bool) {
	e, err := infer.NewEngine(backend.MustGet(), ctx, m, 1, len(seq))
	require.NoError(t, err)
	var md [][]oryx.Mode
	if m.Config.Variant.IsMultiMixer() {
		md = [][]oryx.Mode{modes[:1]}
	}
	logits, err := e.Prefill([][]int32{seq[:1]}, md)
	require.NoError(t, err)
	var lp []float64
	var gr []bool
	for i := 0; i+1 < len(seq); i++ {
		row := logits[0]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = math.Max(mx, float64(v))
		}
		var s float64
		for _, v := range row {
			s += math.Exp(float64(v) - mx)
		}
		lp = append(lp, float64(row[seq[i+1]])-mx-math.Log(s))
		gr = append(gr, slices.Index(row, slices.Max(row)) == int(seq[i+1]))
		if i+2 < len(seq) {
			var sm []oryx.Mode
			if md != nil {
				sm = []oryx.Mode{modes[i+1]}
			}
			logits, err = e.Step([]int32{seq[i+1]}, sm)
			require.NoError(t, err)
		}
	}
	return lp, gr
}

func TestLogLikelihoodMatchesEngine(t *testing.T) {
	for _, v := range testutil.Sweep([]oryx.Variant{oryx.OryxTG, oryx.Transformer, oryx.Mamba2}, 1) {
		for _, sched := range []string{Mixed, "attention", "linear"} {
			lm, m, ctx := tinyModel(t, v, Options{Schedule: sched, Batch: 3})
			tok := lm.Tokenizer()
			reqs := []harness.LLRequest{
				{Context: tok.Encode("The cat sat on the"), Continuation: tok.Encode(" mat."), AttentionFrom: 18},
				{Context: tok.Encode("copy: abc = "), Continuation: tok.Encode("abc"), AttentionFrom: 5},
				{Context: tok.Encode("x"), Continuation: tok.Encode("yz"), AttentionFrom: 3},
				{Context: tok.Encode("a longer context that spans more tokens than the others do"), Continuation: tok.Encode("!"), AttentionFrom: 0},
			}
			res, err := lm.LogLikelihood(reqs, nil)
			require.NoError(t, err)
			for i, r := range reqs {
				seq := make([]int32, 0)
				for _, id := range append(append([]int(nil), r.Context...), r.Continuation...) {
					seq = append(seq, int32(id))
				}
				n := len(seq) - 1
				modes, err := lm.modesOf(rowSpec{n: n, attnFrom: r.AttentionFrom})
				require.NoError(t, err)
				attn := 0
				if modes == nil {
					modes = make([]oryx.Mode, n)
					if v.HasAttention() {
						attn = n
					}
				}
				for _, x := range modes {
					if x == oryx.Attention {
						attn++
					}
				}
				lp, gr := engineLogProbs(t, m, ctx, seq, modes)
				var want float64
				greedy := true
				for p := n - len(r.Continuation); p < n; p++ {
					want += lp[p]
					greedy = greedy && gr[p]
				}
				require.InDelta(t, want, res[i].LogLikelihood, 1e-3, "%s %s request %d", v, sched, i)
				require.Equal(t, greedy, res[i].IsGreedy, "%s %s request %d", v, sched, i)
				require.Equal(t, n, res[i].Tokens)
				require.Equal(t, attn, res[i].AttentionTokens)
				if sched == Mixed && v.IsMultiMixer() {
					require.Equal(t, max(0, n-r.AttentionFrom), res[i].AttentionTokens, "mixed: attention from AttentionFrom")
				}
			}
			require.Greater(t, lm.FLOPs, 0.0)
		}
	}
}

func TestGenerateUntilMatchesEngineGenerate(t *testing.T) {
	lm, m, ctx := tinyModel(t, oryx.OryxTM, Options{Schedule: Mixed, Batch: 2})
	tok := lm.Tokenizer()
	reqs := []harness.GenRequest{
		{Context: tok.Encode("Question: what is it? Answer:"), AttentionFrom: 9, MaxTokens: 12},
		{Context: tok.Encode("hi"), AttentionFrom: 100, MaxTokens: 7},
		{Context: tok.Encode("count from 1 by 2: 1 3 5"), AttentionFrom: 0, MaxTokens: 5, Until: []string{"\n"}},
	}
	res, err := lm.GenerateUntil(reqs, nil)
	require.NoError(t, err)
	for i, r := range reqs {
		e, err := infer.NewEngine(backend.MustGet(), ctx, m, 1, len(r.Context)+r.MaxTokens)
		require.NoError(t, err)
		p := make([]int32, len(r.Context))
		for j, id := range r.Context {
			p[j] = int32(id)
		}
		spec, err := lm.specFor(r.AttentionFrom)
		require.NoError(t, err)
		g, err := e.Generate([][]int32{p}, infer.GenerateOptions{Schedule: spec.String(), MaxTokens: r.MaxTokens,
			Stop: []int32{int32(tok.EOS())}})
		require.NoError(t, err)
		var want []int
		for _, id := range g.Tokens[0] {
			if int(id) == tok.EOS() {
				break
			}
			want = append(want, int(id))
			if len(r.Until) > 0 && containsAny(tok.Decode(want), r.Until) {
				break
			}
		}
		require.Equal(t, want, res[i].Tokens, "request %d", i)
		require.Equal(t, tok.Decode(want), res[i].Text)
		require.LessOrEqual(t, res[i].AttentionTokens, res[i].TotalTokens)
	}
	// Request 1 never reaches attention: all linear.
	require.Equal(t, 0, res[1].AttentionTokens)
	require.Greater(t, res[0].AttentionTokens, 0)
}

func TestBadOptions(t *testing.T) {
	cfg, _ := oryx.Preset("tiny", oryx.OryxTG)
	m, _ := oryx.New(cfg) // vocab 256 < 258
	_, err := New(m, context.New(), tokenizers.NewByteTokenizer(), Options{})
	require.ErrorContains(t, err, "258")
	cfg.Vocab = 320
	m, _ = oryx.New(cfg)
	_, err = New(m, context.New(), tokenizers.NewByteTokenizer(), Options{Schedule: "sometimes"})
	require.ErrorContains(t, err, "schedule")
	_, err = New(m, context.New(), tokenizers.NewByteTokenizer(), Options{GenMemMB: -1})
	require.ErrorContains(t, err, "--gen-mem-mb")
}

// TestGenerateUntilSameAtAnyBatch: a row's generation does not depend on the batch it runs in — one row at a
// time, batches of 3, 8, and batches cut by a small --gen-mem-mb (which must pick fewer rows than --batch
// and say so) give the same tokens, texts and token counts.
func TestGenerateUntilSameAtAnyBatch(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	texts := []string{"Question: where is the key? Answer:", "hi", "count from 1 by 2: 1 3 5",
		"a longer context of about ninety bytes, padded with words words words words words, ends here",
		"short one", "the needle is 7421; the haystack is long and boring and goes on and on.", "x = 1; y ="}
	var reqs []harness.GenRequest
	for i, s := range texts {
		ids := tok.Encode(s)
		reqs = append(reqs, harness.GenRequest{Context: ids, AttentionFrom: len(ids) * i / len(texts), MaxTokens: 4 + 2*i})
	}
	reqs[2].Until = []string{"\n"}
	run := func(opts Options) ([]harness.GenResult, string, float64) {
		var log strings.Builder
		opts.Schedule, opts.Log = Mixed, &log
		lm, _, _ := tinyModel(t, oryx.OryxTG, opts)
		res, err := lm.GenerateUntil(reqs, nil)
		require.NoError(t, err)
		return res, log.String(), lm.FLOPs
	}
	want, log1, flops := run(Options{Batch: 1})
	require.Contains(t, log1, "generation batch 1 (of --batch 1)")
	for _, opts := range []Options{{Batch: 3}, {Batch: 8}, {Batch: 8, GenMemMB: 2}} {
		got, log, fl := run(opts)
		require.Equal(t, want, got, "%+v", opts)
		require.InDelta(t, flops, fl, 1e-9*flops, "%+v", opts)
		if opts.GenMemMB == 2 {
			// ≈ 0.8 MiB per row for the 92-byte prompts (infer.GenerationRowBytes): 2 rows, not 8.
			require.Contains(t, log, "generation batch 2 (of --batch 8): prompts up to 92 tokens, KV capacity 256, ≈ 0.8 MiB per row")
			require.NotContains(t, log, "generation batch 8")
		} else {
			require.Contains(t, log, fmt.Sprintf("generation batch %d (of --batch %d)", min(opts.Batch, len(reqs)), opts.Batch))
		}
	}
}

// TestCloseReleasesAndStaysUsable: Close releases the scorer's and the engines' graphs and the engines' KV
// caches; the same requests afterwards make them again and give the same results.
func TestCloseReleasesAndStaysUsable(t *testing.T) {
	lm, _, _ := tinyModel(t, oryx.OryxTG, Options{Schedule: Mixed, Batch: 2})
	tok := lm.Tokenizer()
	ll := []harness.LLRequest{{Context: tok.Encode("The cat sat on the"), Continuation: tok.Encode(" mat."), AttentionFrom: 18}}
	gen := []harness.GenRequest{{Context: tok.Encode("Question: what is it? Answer:"), AttentionFrom: 9, MaxTokens: 6}}
	run := func() ([]harness.LLResult, []harness.GenResult) {
		a, err := lm.LogLikelihood(ll, nil)
		require.NoError(t, err)
		b, err := lm.GenerateUntil(gen, nil)
		require.NoError(t, err)
		return a, b
	}
	a1, g1 := run()
	require.NotNil(t, lm.scorer, "test setup: no scorer")
	require.NotEmpty(t, lm.engines, "test setup: no engine")
	engines := lm.engines
	lm.Close()
	require.Nil(t, lm.scorer)
	require.Empty(t, lm.engines)
	for _, ke := range engines {
		require.Empty(t, ke.eng.State(), "an engine kept its state after Close")
	}
	a2, g2 := run()
	require.Equal(t, a1, a2)
	require.Equal(t, g1, g2)
	lm.Close()
}
