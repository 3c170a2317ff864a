package niah

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/stretchr/testify/require"
)

func TestHaystackWordsPythonSemantics(t *testing.T) {
	// re.sub(r"\s+", " ", s).split(" ") in CPython.
	require.Equal(t, []string{"", "a", "b", "c", ""}, haystackWords("  a\t\nb\u00a0\x1c c \n"))
	require.Equal(t, []string{"July", "2010What", "hard"}, haystackWords("July 2010What\nhard"))
	require.Equal(t, []string{""}, haystackWords(""))
	require.Equal(t, "x", pyStrip("\x1f\u3000 x\u2028\n"))
}

func TestSplitSentences(t *testing.T) {
	text := `He said "Stop!" and left. Why? Because... it was late. e.g. this splits. "Quoted." Then (aside.) end`
	got := splitSentences(text)
	// The rule does not look at the next word: `"Stop!" and` ends a sentence (Punkt might not).
	require.Equal(t, []string{`He said "Stop!"`, "and left.", "Why?", "Because...", "it was late.", "e.g.",
		"this splits.", `"Quoted."`, "Then (aside.)", "end"}, got)
	require.Equal(t, text, strings.Join(got, " "))
	require.Equal(t, []string{"No end"}, splitSentences("No end"))
	require.Equal(t, []string{"One.", "Two."}, splitSentences("One. Two."))
}

func TestEssayContextInsertion(t *testing.T) {
	h := &essayHaystack{words: haystackWords("S1 a. S2 b. S3 c. S4 d.")}
	// RULER's joins: a needle at depth 0 makes the context start with " ", at depth 1 end with " ".
	require.Equal(t, " N S1 a. S2 b. S3 c. S4 d.", h.context(8, []string{"N"}, []float64{0}))
	require.Equal(t, "S1 a. S2 b. S3 c. S4 d. N ", h.context(8, []string{"N"}, []float64{1}))
	require.Equal(t, "S1 a. S2 b. N S3 c. S4 d.", h.context(8, []string{"N"}, []float64{0.5}))
	// int(4 · 0.74) = 2; two needles at the same sentence keep their order with an empty run between.
	require.Equal(t, "S1 a. N1  N2 S2 b. S3 c. S4 d.", h.context(8, []string{"N1", "N2"}, []float64{0.25, 0.26}))
	require.Equal(t, "S1 a. S2 b. N S3 c.", h.context(6, []string{"N"}, []float64{0.74}))
	// More words than the haystack has: the words cycle.
	require.Equal(t, "S1 a. S2 b. S3 c. S4 d. S1 a. N", h.context(10, []string{"N"}, []float64{1})[:31])
}

func TestNoiseContextInsertion(t *testing.T) {
	ns := NoiseSentence
	require.Equal(t, "N\n"+ns+"\n"+ns, noiseContext(2, []string{"N"}, []int{0}))
	require.Equal(t, ns+"\nN\n"+ns, noiseContext(2, []string{"N"}, []int{1}))
	require.Equal(t, ns+"\n"+ns+"\nN", noiseContext(2, []string{"N"}, []int{2}))
	// RULER: indices sorted descending, needle i after idx[i] noise pieces.
	require.Equal(t, "B\n"+ns+"\n"+ns+"\nA", noiseContext(2, []string{"A", "B"}, []int{2, 0}))
}

func TestEssaysParquetErrors(t *testing.T) {
	dir := t.TempDir()
	type noText struct {
		Title string `parquet:"title"`
		Body  string `parquet:"body"`
	}
	p := filepath.Join(dir, "essays.parquet")
	require.NoError(t, hfparquet.WriteFile(p, []noText{{"a", "Some text."}}))
	cfg := Config{Task: SNIAH2, Lengths: []int{1024}, SamplesPerCell: 1, EssaysPath: p}
	_, err := Generate(cfg, tokenizers.NewByteTokenizer())
	require.Error(t, err)
	require.ErrorContains(t, err, `"text"`)
	require.ErrorContains(t, err, p)

	cfg.EssaysPath = filepath.Join(dir, "missing.parquet")
	_, err = Generate(cfg, tokenizers.NewByteTokenizer())
	require.ErrorContains(t, err, "missing.parquet")

	// An essay task without essays names what is needed; the noise task needs none.
	cfg.EssaysPath = ""
	_, err = Generate(cfg, tokenizers.NewByteTokenizer())
	require.ErrorContains(t, err, "EssaysPath")
	require.ErrorContains(t, err, "essays.parquet")
	cfg.Task = SNIAH1
	_, err = Generate(cfg, tokenizers.NewByteTokenizer())
	require.NoError(t, err)

	// A null text is an error naming the column.
	type nullable struct {
		Text *string `parquet:"text,optional"`
	}
	p2 := filepath.Join(dir, "null.parquet")
	require.NoError(t, hfparquet.WriteFile(p2, []nullable{{nil}}))
	_, err = loadEssays(p2)
	require.ErrorContains(t, err, `"text"`)
}
