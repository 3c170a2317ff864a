package harness

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/pyrand"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharedData returns the shared/data directory (searched upwards from the test's directory) or skips.
func sharedData(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	require.NoError(t, err)
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "data")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	t.Skipf("shared data not found: no shared/data in %s or above", wd)
	return ""
}

func neox(t *testing.T) tokenizers.Tokenizer {
	t.Helper()
	p := filepath.Join(sharedData(t), "tokenizers", "gpt-neox-20b", "tokenizer.json")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("GPT-NeoX tokenizer not found at %s", p)
	}
	tok, err := tokenizers.Load(p)
	require.NoError(t, err)
	return tok
}

func TestEncodePairBytes(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	// Trailing whitespace moves to the continuation.
	ctx, cont := EncodePair(tok, 256, "Answer: \n", "yes")
	assert.Equal(t, tok.Encode("Answer:"), ctx)
	assert.Equal(t, tok.Encode(" \nyes"), cont)
	// Empty context: [prefix] + enc(continuation), no whitespace move.
	ctx, cont = EncodePair(tok, 256, "", " word")
	assert.Equal(t, []int{256}, ctx)
	assert.Equal(t, tok.Encode(" word"), cont)
	// All-whitespace context: [prefix] too ([choice]), the whitespace goes to the continuation.
	ctx, cont = EncodePair(tok, 7, "  ", "x")
	assert.Equal(t, []int{7}, ctx)
	assert.Equal(t, tok.Encode("  x"), cont)
	// Empty continuation: nothing to score.
	ctx, cont = EncodePair(tok, 7, "ab", "")
	assert.Equal(t, tok.Encode("ab"), ctx)
	assert.Empty(t, cont)
}

// TestEncodeChoicesEqualsEncodePair: the shared-context encoding gives exactly EncodePair's ids.
func TestEncodeChoicesEqualsEncodePair(t *testing.T) {
	toks := []tokenizers.Tokenizer{tokenizers.NewByteTokenizer()}
	if _, err := os.Stat(filepath.Join(sharedDataOrEmpty(), "tokenizers", "gpt-neox-20b", "tokenizer.json")); err == nil {
		tok, err := tokenizers.Load(filepath.Join(sharedDataOrEmpty(), "tokenizers", "gpt-neox-20b", "tokenizer.json"))
		require.NoError(t, err)
		toks = append(toks, tok)
	}
	conts := []string{" yes", "no", "  two spaces", "", "\nline", " é"}
	for _, tok := range toks {
		for _, c := range []string{"", "Question: x?\nAnswer:", "ends with space ", "  ", "tab\t"} {
			ctx, got := EncodeChoices(tok, 3, c, conts)
			for i, cont := range conts {
				wc, wcont := EncodePair(tok, 3, c, cont)
				assert.Equal(t, wc, ctx, "%s %q", tok.Name(), c)
				assert.Equal(t, wcont, got[i], "%s %q + %q", tok.Name(), c, cont)
			}
		}
	}
}

func sharedDataOrEmpty() string {
	wd, _ := os.Getwd()
	if r := FindDataRoot(wd); r != "" {
		return filepath.Dir(r)
	}
	return ""
}

func TestEncodePairNeoX(t *testing.T) {
	tok := neox(t)
	// "Hello world" → [12092, 1533] (docs/evals.md §6): the context's trailing space joins " world".
	ctx, cont := EncodePair(tok, 0, "Hello ", "world")
	assert.Equal(t, []int{12092}, ctx)
	assert.Equal(t, []int{1533}, cont)
	// Without the move, enc("Hello ") would end in a lone space token.
	assert.NotEqual(t, []int{12092}, tok.Encode("Hello "))
	// Continuation ids come from the whole string: "a  b" → [66, 50276, 67] (the double space is one
	// added token), so context "a" + continuation "  b" scores [50276, 67].
	ctx, cont = EncodePair(tok, 0, "a", "  b")
	assert.Equal(t, []int{66}, ctx)
	assert.Equal(t, []int{50276, 67}, cont)
	// SplitPoint finds where a suffix starts.
	full := "Hello world. Key:"
	ids := tok.Encode(full)
	k := SplitPoint(tok, ids, full, strings.Index(full, " Key:"))
	assert.Equal(t, tok.Encode("Hello world."), ids[:k])
	assert.Equal(t, tok.Encode(" Key:"), ids[k:])
}

// TestRollingWindowsByHand checks one case written out: 7 tokens, max_length 3.
func TestRollingWindowsByHand(t *testing.T) {
	toks := []int{10, 11, 12, 13, 14, 15, 16}
	w, err := RollingWindows(toks, 0, 3)
	require.NoError(t, err)
	want := []LLRequest{
		{Context: []int{0}, Continuation: []int{10, 11, 12}, AttentionFrom: Never},
		{Context: []int{12}, Continuation: []int{13, 14, 15}, AttentionFrom: Never},
		{Context: []int{13, 14, 15}, Continuation: []int{16}, AttentionFrom: Never},
	}
	assert.Equal(t, want, w)
}

// TestRollingWindowsEnumerate checks, for every length up to 25 and every max_length up to 7, that the
// windows predict every token exactly once in order, that each model input has at most max_length tokens,
// and that each later window's input is the max_length tokens ending just before its last predicted token.
func TestRollingWindowsEnumerate(t *testing.T) {
	for n := 0; n <= 25; n++ {
		toks := make([]int, n)
		for i := range toks {
			toks[i] = 100 + i
		}
		for L := 1; L <= 7; L++ {
			w, err := RollingWindows(toks, 1, L)
			require.NoError(t, err)
			var predicted []int
			for i, r := range w {
				predicted = append(predicted, r.Continuation...)
				input := append(slices.Clone(r.Context), r.Continuation...)
				input = input[:len(input)-1]
				require.LessOrEqual(t, len(input), L, "n=%d L=%d window %d", n, L, i)
				require.NotEmpty(t, r.Context)
				require.LessOrEqual(t, len(r.Continuation), L)
				if i == 0 {
					require.Equal(t, []int{1}, r.Context)
					require.Equal(t, toks[:min(L, n)], r.Continuation)
					continue
				}
				end := len(predicted)
				require.Equal(t, toks[end-L-1:end-1], input, "n=%d L=%d window %d", n, L, i)
				require.Equal(t, L, len(input))
			}
			require.Equal(t, toks, append([]int{}, predicted...), "n=%d L=%d", n, L)
			if n > 0 {
				require.Equal(t, (n+L-1)/L, len(w), "n=%d L=%d", n, L)
			}
		}
	}
	_, err := RollingWindows([]int{1}, 0, 0)
	require.Error(t, err)
}

func TestTruncateLL(t *testing.T) {
	ctx := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	cont := []int{20, 21, 22}
	r, tr, err := TruncateLL(LLRequest{Context: ctx, Continuation: cont, AttentionFrom: 10}, 8)
	require.NoError(t, err)
	assert.True(t, tr)
	// (ctx+cont)[-9:] keeps 9 tokens: ctx[4:] + cont; the input is its first 8.
	assert.Equal(t, []int{4, 5, 6, 7, 8, 9}, r.Context)
	assert.Equal(t, cont, r.Continuation)
	assert.Equal(t, 6, r.AttentionFrom)
	r, tr, err = TruncateLL(LLRequest{Context: ctx, Continuation: cont, AttentionFrom: Never}, 12)
	require.NoError(t, err)
	assert.False(t, tr)
	assert.Equal(t, 13, r.AttentionFrom)
	r, _, err = TruncateLL(LLRequest{Context: ctx, Continuation: cont, AttentionFrom: 2}, 8)
	require.NoError(t, err)
	assert.Equal(t, 0, r.AttentionFrom)
	_, _, err = TruncateLL(LLRequest{Context: ctx, Continuation: cont}, 2)
	assert.ErrorContains(t, err, "exceeds max_length")
	_, _, err = TruncateLL(LLRequest{Continuation: cont}, 8)
	assert.ErrorContains(t, err, "empty context")
}

func TestTruncateGenAndStop(t *testing.T) {
	ctx := make([]int, 2100)
	for i := range ctx {
		ctx[i] = i
	}
	r, tr, err := TruncateGen(GenRequest{Context: ctx, MaxTokens: 48, AttentionFrom: 2090}, 2048)
	require.NoError(t, err)
	assert.True(t, tr)
	assert.Len(t, r.Context, 2000)
	assert.Equal(t, 100, r.Context[0])
	assert.Equal(t, 1990, r.AttentionFrom)
	r, tr, err = TruncateGen(GenRequest{Context: ctx[:10], MaxTokens: 48, AttentionFrom: Never}, 2048)
	require.NoError(t, err)
	assert.False(t, tr)
	assert.Equal(t, 58, r.AttentionFrom)
	_, _, err = TruncateGen(GenRequest{Context: ctx, MaxTokens: 2048}, 2048)
	assert.Error(t, err)

	assert.Equal(t, " Paris", CutAtStop(" Paris\nQuestion", []string{"\n"}))
	assert.Equal(t, "ab", CutAtStop("ab.cd\nef", []string{"\n", "."}))
	assert.Equal(t, "abc", CutAtStop("abc", []string{"", "z"}))
}

func TestPyStrings(t *testing.T) {
	assert.Equal(t, 4, PyWordCount(" a  b\n")) // ['', 'a', 'b', '']
	assert.Equal(t, 1, PyWordCount(""))
	assert.Equal(t, 1, PyWordCount("a"))
	assert.Equal(t, 3, PyWordCount("a\x1cb\u00a0c")) // Python's \s is Unicode-aware
	assert.Equal(t, "Hello world", PyCapitalize("hELLO wORLD"))
	assert.Equal(t, "", PyCapitalize(""))
	assert.Equal(t, "Year", PyUpperFirst("year"))
	assert.Equal(t, "x", PyStrip("\x1f\u3000 x\u2028\n"))
	assert.Equal(t, "é", PyDropLastRunes("éé", 1))
	assert.Equal(t, 2, PyLen("éé"))
}

func TestMetrics(t *testing.T) {
	xs := []float64{1, 0, 1, 1}
	assert.InDelta(t, 0.75, Mean(xs), 1e-15)
	assert.InDelta(t, 0.5, SampleStddev(xs), 1e-15)
	assert.InDelta(t, 0.25, MeanStderr(xs), 1e-15)
	assert.True(t, math.IsNaN(MeanStderr([]float64{1})))
	assert.InDelta(t, math.Exp(2), Perplexity([]float64{-1, -3}), 1e-12)
	assert.InDelta(t, math.Exp(6.0/4), WeightedPerplexity([]float64{-2, -4}, []float64{1, 3}), 1e-12)
	assert.InDelta(t, 6.0/4/math.Ln2, BitsPerByte([]float64{-2, -4}, []float64{1, 3}), 1e-12)
	assert.Equal(t, 1, Argmax([]float64{0, 2, 2, 1}))
	assert.Equal(t, -1, Argmax(nil))
}

func TestBootstrapStderr(t *testing.T) {
	xs := []float64{-1, -2.5, -0.5, -4, -3}
	got := BootstrapStderr(Perplexity, xs, 2000)
	// The same draws by hand: 2 chunks of 1000, chunk i seeded with i.
	var res []float64
	for c := range 2 {
		r := pyrand.New(uint64(c))
		for range 1000 {
			s := make([]float64, len(xs))
			for j := range s {
				s[j] = xs[r.ChoicesIndex(len(xs))]
			}
			res = append(res, Perplexity(s))
		}
	}
	assert.Equal(t, SampleStddev(res), got)
	assert.True(t, math.IsNaN(BootstrapStderr(Perplexity, nil, 100)))
	assert.True(t, math.IsNaN(BootstrapStderr(Perplexity, xs, 0)))
}

func TestMetricJSON(t *testing.T) {
	in := map[string]Metric{"a": {Value: 0.5, Stderr: math.NaN(), N: 3}, "b": {Value: math.Inf(1), Stderr: 0.1, N: 2}}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":{"value":0.5,"stderr":null,"n":3},"b":{"value":"+Inf","stderr":0.1,"n":2}}`, string(b))
	var out map[string]Metric
	require.NoError(t, json.Unmarshal(b, &out))
	assert.True(t, math.IsNaN(out["a"].Stderr))
	assert.True(t, math.IsInf(out["b"].Value, 1))
	assert.Equal(t, 2, out["b"].N)
}

type textRow struct {
	Text string `parquet:"text"`
}

func TestReadTableMissingColumn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.parquet")
	require.NoError(t, hfparquet.WriteFile(path, []textRow{{"a b"}, {"c"}}))
	tab, err := ReadTable(path, []string{"text"}, "label")
	require.NoError(t, err)
	assert.Len(t, tab.Rows, 2)
	assert.False(t, tab.Has["label"])
	_, err = ReadTable(path, []string{"text", "label"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), `"label"`)
	_, err = RowInt(tab.Rows[0], "text")
	assert.ErrorContains(t, err, "not an integer")
}

func TestParallelForFirstError(t *testing.T) {
	out := make([]int, 100)
	require.NoError(t, ParallelFor(100, func(i int) error { out[i] = i * i; return nil }))
	assert.Equal(t, 81, out[9])
	err := ParallelFor(50, func(i int) error {
		if i >= 7 {
			return assertErr(i)
		}
		return nil
	})
	assert.EqualError(t, err, "7")
}

type assertErr int

func (e assertErr) Error() string { b, _ := json.Marshal(int(e)); return string(b) }

func TestProgressBar(t *testing.T) {
	var buf bytes.Buffer
	p := ProgressBar(&buf, time.Hour)
	p("piqa", "loglikelihood", 0, 4)
	p("piqa", "loglikelihood", 1, 4) // throttled
	p("piqa", "loglikelihood", 4, 4)
	out := buf.String()
	assert.Equal(t, 2, strings.Count(out, "\n"), "not a terminal: one plain line per update")
	assert.Equal(t, 0, strings.Count(out, "\r"))
	assert.Contains(t, out, "piqa loglikelihood [....................]      0/4")
	assert.Contains(t, out, "[####################]      4/4 100.0%")
	assert.True(t, strings.HasSuffix(out, "\n"))
}
