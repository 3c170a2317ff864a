package infer

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// argmax32 is greedy decoding on the float32 rounding of a float64 logits row, as Generate samples.
func argmax32(row []float64) int32 {
	best := 0
	for i, x := range row {
		if float32(x) > float32(row[best]) {
			best = i
		}
	}
	return int32(best)
}

// genTestModel is the tiny test model with an untied LM head: with random weights, tied embeddings make
// greedy decoding repeat the last token forever, which would make the continuation tests weak.
func genTestModel(t *testing.T, v oryx.Variant) (*oryx.Model, *context.Context) {
	t.Helper()
	cfg := oryxtest.Config(v)
	cfg.TiedEmbeddings = false
	m, ctx := oryxtest.NewModel(t, cfg)
	ctx.SetParam(context.ParamInitialSeed, genTestSeed) // weights whose greedy continuations are not degenerate
	return m, ctx
}

var genTestSeed = int64(6)

func newTestEngine(t *testing.T, v oryx.Variant, batch, capacity int) *Engine {
	t.Helper()
	m, ctx := genTestModel(t, v)
	e, err := NewEngine(backend.MustGet(), ctx, m, batch, capacity)
	require.NoError(t, err)
	return e
}

func distinct(tokens []int32) map[int32]bool {
	out := map[int32]bool{}
	for _, t := range tokens {
		out[t] = true
	}
	return out
}

// TestGenerateGreedyMatchesParallel: greedy Generate is the argmax continuation of the parallel forward run on
// prompt + generated-so-far with the same modes (prompt modes from the spec, generated ones from DecodeMode).
func TestGenerateGreedyMatchesParallel(t *testing.T) {
	const maxTokens, capacity = 6, 16
	cases := []struct {
		name       string
		v          oryx.Variant
		spec       string
		promptLen  int
		promptMode string // expected prompt modes ("" for single-mixer variants)
		genMode    string // expected generated-token modes
	}{
		{"oryx-tg/attention-last:3", oryx.OryxTG, "attention-last:3", 6, "LLLAAA", "AAAAAA"},
		{"oryx-tg/linear-until:5", oryx.OryxTG, "linear-until:5", 3, "LLL", "LLAAAA"},
		{"transformer", oryx.Transformer, "", 5, "", "AAAAAA"},
		{"gdn", oryx.GDN, "", 5, "", "LLLLLL"},
	}
	for _, c := range testutil.Sweep(cases, 2) {
		t.Run(c.name, func(t *testing.T) {
			m, ctx := genTestModel(t, c.v)
			e, err := NewEngine(backend.MustGet(), ctx, m, 1, capacity)
			require.NoError(t, err)
			prompt := oryxtest.RandomTokens(11, 1, c.promptLen, m.Config.Vocab)[0]
			g, err := e.Generate([][]int32{prompt}, GenerateOptions{Schedule: c.spec, MaxTokens: maxTokens})
			require.NoError(t, err)
			require.Equal(t, oryxtest.Modes(c.genMode), g.Modes[0])

			seq := append([]int32(nil), prompt...)
			modes := oryxtest.Modes(c.promptMode)
			var want []int32
			for k := range maxTokens {
				var md [][]oryx.Mode
				if m.Config.Variant.IsMultiMixer() {
					md = [][]oryx.Mode{modes}
				}
				logits := oryxtest.ParallelLogits(t, m, ctx, [][]int32{seq}, md)[0]
				n := len(seq)
				tok := argmax32(logits[(n-1)*m.Config.Vocab : n*m.Config.Vocab])
				want = append(want, tok)
				seq = append(seq, tok)
				modes = append(modes, oryxtest.Modes(c.genMode)[k])
			}
			require.Equal(t, want, g.Tokens[0])
			require.Greater(t, len(distinct(want)), 2, "test setup: a degenerate continuation checks little")
			require.Equal(t, c.promptLen, g.PromptTokens)
			require.Equal(t, maxTokens, g.GeneratedTokens)
			require.Equal(t, []int{c.promptLen + maxTokens - 1}, e.Positions(), "the last token is not fed")
		})
	}
}

// TestGenerateBatchMatchesAlone: a batch of two prompts of different lengths generates what each prompt
// generates alone.
func TestGenerateBatchMatchesAlone(t *testing.T) {
	const maxTokens, capacity = 5, 16
	for _, v := range []oryx.Variant{oryx.OryxTM, oryx.Transformer} {
		t.Run(string(v), func(t *testing.T) {
			m, ctx := genTestModel(t, v)
			prompts := [][]int32{oryxtest.RandomTokens(21, 1, 3, m.Config.Vocab)[0], oryxtest.RandomTokens(22, 1, 7, m.Config.Vocab)[0]}
			opts := GenerateOptions{Schedule: "linear-until:5", MaxTokens: maxTokens}
			if v == oryx.Transformer {
				opts.Schedule = ""
			}
			e2, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
			require.NoError(t, err)
			both, err := e2.Generate(prompts, opts)
			require.NoError(t, err)
			e1, err := NewEngine(backend.MustGet(), ctx, m, 1, capacity)
			require.NoError(t, err)
			for b, p := range prompts {
				alone, err := e1.Generate([][]int32{p}, opts)
				require.NoError(t, err)
				require.Equal(t, alone.Tokens[0], both.Tokens[b], "row %d", b)
				require.Equal(t, alone.Modes[0], both.Modes[b], "row %d", b)
			}
			if v == oryx.OryxTM { // row 0 (prompt 3) switches at position 5; row 1 (prompt 7) is past it
				require.Equal(t, oryxtest.Modes("LLAAA"), both.Modes[0])
				require.Equal(t, oryxtest.Modes("AAAAA"), both.Modes[1])
			}
		})
	}
}

// TestGenerateStop: the stop token is the 2nd greedy token of row 0; with Stop, row 0 ends right after it
// while row 1 continues unchanged (row 0 being fed dummy tokens meanwhile) up to its own first stop token.
func TestGenerateStop(t *testing.T) {
	const maxTokens = 6
	e := newTestEngine(t, oryx.OryxTG, 2, 16)
	vocab := e.model.Config.Vocab
	prompts := [][]int32{oryxtest.RandomTokens(31, 1, 4, vocab)[0], oryxtest.RandomTokens(36, 1, 5, vocab)[0]}
	first, err := e.Generate(prompts, GenerateOptions{Schedule: "attention-last:2", MaxTokens: maxTokens})
	require.NoError(t, err)
	stop := first.Tokens[0][1]
	require.NotEqual(t, stop, first.Tokens[0][0], "test setup: pick weights whose first two tokens differ")

	g, err := e.Generate(prompts, GenerateOptions{Schedule: "attention-last:2", MaxTokens: maxTokens, Stop: []int32{stop}})
	require.NoError(t, err)
	require.Equal(t, first.Tokens[0][:2], g.Tokens[0])
	want1 := first.Tokens[1]
	for i, tok := range want1 {
		if tok == stop {
			want1 = want1[:i+1]
			break
		}
	}
	require.Greater(t, len(want1), 3, "test setup: row 1 should outlive row 0")
	require.Equal(t, want1, g.Tokens[1])
	require.Equal(t, 2+len(want1), g.GeneratedTokens)
	require.Len(t, g.Modes[0], 2)

	// Every row stopping at its first token ends the generation without a decode step.
	e1 := newTestEngine(t, oryx.OryxTG, 1, 16)
	g1, err := e1.Generate(prompts[:1], GenerateOptions{Schedule: "attention-last:2", MaxTokens: maxTokens})
	require.NoError(t, err)
	var calls [][2]int
	g1, err = e1.Generate(prompts[:1], GenerateOptions{Schedule: "attention-last:2", MaxTokens: maxTokens,
		Stop: []int32{g1.Tokens[0][0]}, Progress: func(done, total int) { calls = append(calls, [2]int{done, total}) }})
	require.NoError(t, err)
	require.Len(t, g1.Tokens[0], 1)
	require.Equal(t, [][2]int{{1, maxTokens}}, calls)
	require.Equal(t, []int{4}, e1.Positions(), "no decode step after the prefill")
}

// TestGenerateAttentionFraction counts the tokens the model processed: every prompt token and every fed
// generated token (all but each row's last).
func TestGenerateAttentionFraction(t *testing.T) {
	e := newTestEngine(t, oryx.OryxTG, 1, 16)
	prompt := oryxtest.RandomTokens(41, 1, 6, e.model.Config.Vocab)[0]
	var calls [][2]int
	g, err := e.Generate([][]int32{prompt}, GenerateOptions{Schedule: "attention-last:2", MaxTokens: 4,
		Progress: func(done, total int) { calls = append(calls, [2]int{done, total}) }})
	require.NoError(t, err)
	// Prompt LLLLAA + 3 fed generated tokens AAA: 5 attention tokens of 9.
	require.InDelta(t, 5.0/9.0, g.AttentionFraction, 1e-12)
	require.Equal(t, 6, g.PromptTokens)
	require.Equal(t, 4, g.GeneratedTokens)
	require.Equal(t, [][2]int{{1, 4}, {2, 4}, {3, 4}, {4, 4}}, calls)
	require.Greater(t, g.PrefillSeconds, 0.0)
	require.Greater(t, g.DecodeSeconds, 0.0)

	// "prefill-attention": prompt in attention, generation linear → 6 of 9.
	g, err = e.Generate([][]int32{prompt}, GenerateOptions{Schedule: "prefill-attention", MaxTokens: 4})
	require.NoError(t, err)
	require.InDelta(t, 6.0/9.0, g.AttentionFraction, 1e-12)
	require.Equal(t, oryxtest.Modes("LLLL"), g.Modes[0])

	// Ranges: A at 0-1 and from 7 on: prompt AALLLL, fed generated at positions 6 (L), 7, 8 (A) → 4 of 9.
	g, err = e.Generate([][]int32{prompt}, GenerateOptions{Schedule: "A:0-1,A:7-", MaxTokens: 4})
	require.NoError(t, err)
	require.InDelta(t, 4.0/9.0, g.AttentionFraction, 1e-12)
	require.Equal(t, oryxtest.Modes("LAAA"), g.Modes[0])

	// Single-mixer variants: the Transformer is all attention, GDN all linear; the schedule is ignored.
	for v, want := range map[oryx.Variant]float64{oryx.Transformer: 1, oryx.GDN: 0} {
		e := newTestEngine(t, v, 1, 16)
		g, err := e.Generate([][]int32{prompt}, GenerateOptions{Schedule: "linear", MaxTokens: 3})
		require.NoError(t, err, "variant %s", v)
		require.Equal(t, want, g.AttentionFraction, "variant %s", v)
	}
}

func TestGenerateSamplingDeterministic(t *testing.T) {
	e := newTestEngine(t, oryx.OryxTM, 2, 16)
	vocab := e.model.Config.Vocab
	prompts := [][]int32{oryxtest.RandomTokens(51, 1, 4, vocab)[0], oryxtest.RandomTokens(52, 1, 6, vocab)[0]}
	run := func(s *Sampler) [][]int32 {
		g, err := e.Generate(prompts, GenerateOptions{Schedule: "linear-until:6", MaxTokens: 8, Sampler: s})
		require.NoError(t, err)
		return g.Tokens
	}
	newSampler := func(seed uint64) *Sampler {
		s, err := NewSampler(1.5, 0, 0.95, seed)
		require.NoError(t, err)
		return s
	}
	a := run(newSampler(7))
	require.Equal(t, a, run(newSampler(7)), "same seed, same tokens")
	s := newSampler(7)
	run(s)
	s.Reset()
	require.Equal(t, a, run(s), "Reset replays the seed")
	require.Equal(t, run(Greedy()), run(nil), "nil sampler is greedy")
}

func TestGenerateErrors(t *testing.T) {
	e := newTestEngine(t, oryx.OryxTG, 2, 8)
	vocab := e.model.Config.Vocab
	p6, p3 := oryxtest.RandomTokens(61, 1, 6, vocab)[0], oryxtest.RandomTokens(62, 1, 3, vocab)[0]
	ok := GenerateOptions{Schedule: "attention-last:2", MaxTokens: 3}
	cases := []struct {
		name    string
		prompts [][]int32
		opts    GenerateOptions
		msg     string
	}{
		{"wrong batch", [][]int32{p6}, ok, "1 prompts for an engine of 2 rows"},
		{"empty prompt", [][]int32{p6, {}}, ok, "prompt 1 is empty"},
		{"token out of vocab", [][]int32{p6, {1, int32(vocab)}}, ok, "prompt 1: token 23 at index 1 is outside the vocabulary [0, 23)"},
		{"negative token", [][]int32{{-1}, p3}, ok, "prompt 0: token -1"},
		{"padding token", [][]int32{p6, {1, 257}}, ok, "prompt 1: token 257 at index 1 is outside the vocabulary [0, 23) (257 is the byte tokenizer's \"<|pad|>\""},
		{"stop out of vocab", [][]int32{p6, p3}, GenerateOptions{MaxTokens: 3, Stop: []int32{2, 99}}, "stop token 99 (Stop[1])"},
		{"stop end of text", [][]int32{p6, p3}, GenerateOptions{MaxTokens: 3, Stop: []int32{256}},
			"(256 is the byte tokenizer's \"<|endoftext|>\": a model that uses the byte tokenizer needs a vocabulary of at least 258, and Preset(\"tiny\")'s is 256; set Config.Vocab = 320"},
		{"max tokens 0", [][]int32{p6, p3}, GenerateOptions{MaxTokens: 0}, "MaxTokens must be > 0, got 0"},
		{"max tokens negative", [][]int32{p6, p3}, GenerateOptions{MaxTokens: -2}, "MaxTokens must be > 0, got -2"},
		{"capacity", [][]int32{p3, p6}, GenerateOptions{MaxTokens: 4},
			"row 1 needs 9 cache positions (prompt of 6 tokens + MaxTokens 4 − 1) but the engine's capacity is 8"},
		{"block spec", [][]int32{p6, p3}, GenerateOptions{Schedule: "block:4", MaxTokens: 2}, "random schedules do not define generated-token modes"},
		{"sequence spec", [][]int32{p6, p3}, GenerateOptions{Schedule: "sequence:0.3", MaxTokens: 2}, "random schedules do not define generated-token modes"},
		{"bad spec", [][]int32{p6, p3}, GenerateOptions{Schedule: "bogus", MaxTokens: 2}, `unknown schedule "bogus"`},
		{"bad sampler", [][]int32{p6, p3}, GenerateOptions{MaxTokens: 2, Sampler: &Sampler{Temperature: -1}}, "Temperature must be"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.Generate(c.prompts, c.opts)
			require.Error(t, err)
			require.Contains(t, err.Error(), "Engine.Generate")
			require.Contains(t, err.Error(), c.msg)
			require.Equal(t, []int{0, 0}, e.Positions(), "refused before any work")
		})
	}

	// The capacity bound is exact: promptLen + MaxTokens − 1 == capacity is fine.
	g, err := e.Generate([][]int32{p6, p3}, GenerateOptions{MaxTokens: 3})
	require.NoError(t, err)
	require.Equal(t, []int{3, 3}, []int{len(g.Tokens[0]), len(g.Tokens[1])})
	require.Equal(t, []int{8, 5}, e.Positions())

	// Single-mixer variants validate a non-empty spec and refuse random ones too.
	et := newTestEngine(t, oryx.Transformer, 1, 8)
	_, err = et.Generate([][]int32{p3}, GenerateOptions{Schedule: "bogus", MaxTokens: 2})
	require.ErrorContains(t, err, `unknown schedule "bogus"`)
	_, err = et.Generate([][]int32{p3}, GenerateOptions{Schedule: "block", MaxTokens: 2})
	require.ErrorContains(t, err, "random schedules")
}
