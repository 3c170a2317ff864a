package datasets

import (
	"bytes"
	"compress/flate"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"
)

var (
	synthCountRe    = regexp.MustCompile(`^count from (\d+) by (\d+): ((?:\d+ )*\d+)\.$`)
	synthCopyRe     = regexp.MustCompile(`^copy: ([a-z ]+) = ([a-z ]+)\.$`)
	synthBracketsRe = regexp.MustCompile(`^brackets: ([()\[\]{}]+)\.$`)
	synthAddRe      = regexp.MustCompile(`^add (\d+) \+ (\d+) = (\d+)\.$`)
	synthSentenceRe = regexp.MustCompile(`[A-Z][a-z ]*\.`)
)

// checkSynthLine verifies the learnable structure of one line.
func checkSynthLine(t *testing.T, line string) (kind string) {
	t.Helper()
	if m := synthCountRe.FindStringSubmatch(line); m != nil {
		start, _ := strconv.Atoi(m[1])
		step, _ := strconv.Atoi(m[2])
		for k, f := range strings.Fields(m[3]) {
			require.Equal(t, strconv.Itoa(start+k*step), f, line)
		}
		return "count"
	}
	if m := synthCopyRe.FindStringSubmatch(line); m != nil {
		require.Equal(t, m[1], m[2], line)
		return "copy"
	}
	if m := synthBracketsRe.FindStringSubmatch(line); m != nil {
		var stack []rune
		pair := map[rune]rune{')': '(', ']': '[', '}': '{'}
		for _, r := range m[1] {
			if o, ok := pair[r]; ok {
				require.NotEmpty(t, stack, line)
				require.Equal(t, o, stack[len(stack)-1], line)
				stack = stack[:len(stack)-1]
			} else {
				stack = append(stack, r)
			}
		}
		require.Empty(t, stack, line)
		return "brackets"
	}
	if m := synthAddRe.FindStringSubmatch(line); m != nil {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		require.Equal(t, strconv.Itoa(a+b), m[3], line)
		return "add"
	}
	sentences := synthSentenceRe.FindAllString(line, -1)
	require.NotEmpty(t, sentences, line)
	require.Equal(t, line, strings.Join(sentences, " "), "a story line is sentences: %q", line)
	for _, s := range sentences {
		checkSynthAgreement(t, s)
	}
	return "story"
}

var (
	synthSingular, synthPlural = map[string]bool{}, map[string]bool{}
	synthVerbSg, synthVerbPl   = map[string]bool{}, map[string]bool{}
)

func init() {
	for _, n := range synthNouns {
		synthSingular[n[0]], synthPlural[n[1]] = true, true
	}
	for _, v := range synthVerbs {
		synthVerbSg[v[0]], synthVerbPl[v[1]] = true, true
	}
}

// checkSynthAgreement checks determiner–noun and subject–verb agreement in one sentence, including across
// an object-relative clause.
func checkSynthAgreement(t *testing.T, s string) {
	t.Helper()
	words := strings.Fields(strings.ToLower(strings.TrimSuffix(s, ".")))
	var nouns []bool // number of each noun phrase, in order (true: plural)
	var verbs []bool
	det := ""
	for i, w := range words {
		switch {
		case w == "a" || w == "an" || w == "some" || w == "the":
			det = w
			if w == "a" || w == "an" {
				vowel := strings.ContainsRune("aeiou", rune(words[i+1][0]))
				require.Equal(t, w == "an", vowel, "a/an in %q", s)
			}
		case synthSingular[w] || synthPlural[w]:
			pl := synthPlural[w]
			if det == "a" || det == "an" {
				require.False(t, pl, "%q", s)
			}
			if det == "some" {
				require.True(t, pl, "%q", s)
			}
			nouns = append(nouns, pl)
		case synthVerbSg[w] || synthVerbPl[w]:
			verbs = append(verbs, synthVerbPl[w])
		}
	}
	if strings.Contains(s, " that ") {
		// NP1 that NP2 V2 V1 NP3: V2 agrees with NP2, V1 with NP1.
		require.Len(t, verbs, 2, "%q", s)
		require.Equal(t, nouns[1], verbs[0], "inner agreement in %q", s)
		require.Equal(t, nouns[0], verbs[1], "main agreement across the clause in %q", s)
	} else {
		require.Len(t, verbs, 1, "%q", s)
		require.Equal(t, nouns[0], verbs[0], "agreement in %q", s)
	}
}

func TestSynthLangStructure(t *testing.T) {
	docs, err := GenerateSynthLang(SynthLangConfig{Seed: 1}, 400)
	require.NoError(t, err)
	kinds := map[string]int{}
	relative := 0
	for _, d := range docs {
		require.True(t, utf8.ValidString(d))
		require.NotEmpty(t, d)
		lines := strings.Split(d, "\n")
		require.LessOrEqual(t, len(lines), DefaultSynthMaxLines)
		for _, l := range lines {
			kinds[checkSynthLine(t, l)]++
			if strings.Contains(l, " that ") {
				relative++
			}
		}
	}
	t.Logf("line kinds over 400 docs: %v (%d lines with relative clauses)", kinds, relative)
	for _, k := range []string{"story", "count", "copy", "brackets", "add"} {
		require.Greater(t, kinds[k], 50, k)
	}
	require.Greater(t, relative, 20)
	t.Logf("sample document:\n%s", docs[0])
}

func TestSynthLangDeterminism(t *testing.T) {
	a, err := GenerateSynthLang(SynthLangConfig{Seed: 5}, 50)
	require.NoError(t, err)
	b, err := GenerateSynthLang(SynthLangConfig{Seed: 5}, 50)
	require.NoError(t, err)
	c, err := GenerateSynthLang(SynthLangConfig{Seed: 6}, 50)
	require.NoError(t, err)
	require.Equal(t, a, b)
	require.NotEqual(t, a, c)
	g, err := NewSynthLang(SynthLangConfig{Seed: 5})
	require.NoError(t, err)
	require.Equal(t, a[37], g.Document(37), "any document regenerates alone")

	// A one-task mix gives only that task.
	only, err := GenerateSynthLang(SynthLangConfig{Seed: 1, MaxLines: 2, Mix: SynthMix{Copy: 1}}, 30)
	require.NoError(t, err)
	for _, d := range only {
		for _, l := range strings.Split(d, "\n") {
			require.Equal(t, "copy", checkSynthLine(t, l))
		}
	}
}

func TestSynthLangConfigValidation(t *testing.T) {
	_, err := NewSynthLang(SynthLangConfig{MaxLines: -1})
	require.ErrorContains(t, err, "SynthLangConfig.MaxLines")
	_, err = NewSynthLang(SynthLangConfig{Mix: SynthMix{Story: 1, Add: -1}})
	require.ErrorContains(t, err, "SynthLangConfig.Mix.Add")
	_, err = NewSynthLang(SynthLangConfig{Mix: SynthMix{Copy: math.NaN()}})
	require.ErrorContains(t, err, "SynthLangConfig.Mix.Copy")
	_, err = GenerateSynthLang(SynthLangConfig{}, -1)
	require.Error(t, err)
	_, err = NewSynthLangSource(SynthLangConfig{}, -1)
	require.Error(t, err)
}

// TestSynthLangEntropy logs what loss is reachable: the generator's exact entropy rate (the floor for a
// model that learnt it), against the byte unigram entropy (a model that learnt only byte frequencies) and
// DEFLATE's rate.
func TestSynthLangEntropy(t *testing.T) {
	g, err := NewSynthLang(SynthLangConfig{Seed: 1})
	require.NoError(t, err)
	const n = 3000
	var all bytes.Buffer
	var counts [256]float64
	for i := range n {
		d := g.Document(uint64(i))
		all.WriteString(d)
		all.WriteByte('\n')
		for j := 0; j < len(d); j++ {
			counts[d[j]]++
		}
	}
	total := 0.0
	for _, c := range counts {
		total += c
	}
	unigram := 0.0
	for _, c := range counts {
		if c > 0 {
			unigram -= c / total * math.Log2(c/total)
		}
	}
	var z bytes.Buffer
	fw, err := flate.NewWriter(&z, flate.BestCompression)
	require.NoError(t, err)
	_, err = fw.Write(all.Bytes())
	require.NoError(t, err)
	require.NoError(t, fw.Close())
	deflate := 8 * float64(z.Len()) / float64(all.Len())
	rate := g.EntropyRate(n)
	t.Logf("synthlang default mix over %d docs (%.0f bytes, %.0f bytes/doc): generator entropy %.3f bits/byte (loss floor, %.3f nats/byte); byte unigram entropy %.3f bits/byte; DEFLATE %.3f bits/byte",
		n, total, total/n, rate, rate*math.Ln2, unigram, deflate)
	require.Greater(t, rate, 0.3)
	require.Less(t, rate, deflate, "the exact entropy is below any compressor's rate")
	require.Less(t, deflate, unigram)

	// Per task.
	for _, mix := range []SynthMix{{Story: 1}, {Count: 1}, {Copy: 1}, {Brackets: 1}, {Add: 1}} {
		gm, err := NewSynthLang(SynthLangConfig{Seed: 1, Mix: mix})
		require.NoError(t, err)
		t.Logf("  task %+v: %.3f bits/byte", mix, gm.EntropyRate(500))
	}
}

func TestSynthLangSource(t *testing.T) {
	cfg := SynthLangConfig{Seed: 3}
	src, err := NewSynthLangSource(cfg, 10)
	require.NoError(t, err)
	docs, err := GenerateSynthLang(cfg, 10)
	require.NoError(t, err)
	var got []string
	for {
		d, err := src.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		got = append(got, d)
	}
	require.Equal(t, docs, got)
	require.NoError(t, src.Seek([]byte("4")))
	d, err := src.Next()
	require.NoError(t, err)
	require.Equal(t, docs[4], d)
	require.Equal(t, "5", string(src.Position()))
	require.Error(t, src.Seek([]byte("11")))
	require.Error(t, src.Seek([]byte(`"x"`)))
	require.Contains(t, src.Name(), "synthlang(seed=3")

	inf, err := NewSynthLangSource(cfg, 0)
	require.NoError(t, err)
	require.NoError(t, inf.Seek([]byte("1000000")))
	d, err = inf.Next()
	require.NoError(t, err)
	require.NotEmpty(t, d)
	require.Contains(t, inf.Name(), "n=inf")
}

// A stream over the infinite synthetic source with the real byte tokenizer: resume is exact.
func TestSynthLangStreamResume(t *testing.T) {
	cfg := StreamConfig{SeqLen: 64, ShuffleBuffer: 16, Seed: 9, Rank: 1, World: 2, Log: io.Discard}
	mk := func() *SynthLangSource {
		s, err := NewSynthLangSource(SynthLangConfig{Seed: 2}, 0)
		require.NoError(t, err)
		return s
	}
	s, err := NewStream(cfg, mk(), tokenizers.NewByteTokenizer())
	require.NoError(t, err)
	var full [][]int32
	for range 120 {
		seq, err := s.Next()
		require.NoError(t, err)
		full = append(full, seq)
	}
	s, err = NewStream(cfg, mk(), tokenizers.NewByteTokenizer())
	require.NoError(t, err)
	for range 50 {
		_, err := s.Next()
		require.NoError(t, err)
	}
	r, err := ResumeStream(cfg, mk(), tokenizers.NewByteTokenizer(), s.Cursor())
	require.NoError(t, err)
	for i := 50; i < 120; i++ {
		seq, err := r.Next()
		require.NoError(t, err)
		require.Equal(t, full[i], seq, "sequence %d", i)
	}

	// Unshuffled, the windows' inputs decode to the documents with "<|endoftext|>" after each.
	src := mk()
	s, err = NewStream(StreamConfig{SeqLen: 64, ShuffleBuffer: 1, Log: io.Discard}, src, tokenizers.NewByteTokenizer())
	require.NoError(t, err)
	var ids []int
	for range 20 {
		seq, err := s.Next()
		require.NoError(t, err)
		for _, id := range seq[:64] {
			ids = append(ids, int(id))
		}
	}
	var want strings.Builder
	for i := range 50 {
		want.WriteString(src.g.Document(uint64(i)) + "<|endoftext|>")
	}
	require.Equal(t, want.String()[:len(tokenizers.NewByteTokenizer().Decode(ids))], tokenizers.NewByteTokenizer().Decode(ids))
	require.Greater(t, strings.Count(tokenizers.NewByteTokenizer().Decode(ids), "<|endoftext|>"), 2)
}

func TestSynthLangParquet(t *testing.T) {
	cfg := SynthLangConfig{Seed: 4}
	path := filepath.Join(t.TempDir(), "synth.parquet")
	require.NoError(t, WriteSynthLangParquet(path, cfg, 1500))
	rows, err := parquet.ReadFile[TextRow](path)
	require.NoError(t, err)
	docs, err := GenerateSynthLang(cfg, 1500)
	require.NoError(t, err)
	require.Len(t, rows, 1500)
	for i := range docs {
		require.Equal(t, docs[i], rows[i].Text)
	}
	// The schema has a single string column "text", like HF text corpora: the parquet text source reads it.
	set, err := hfparquet.Open(path)
	require.NoError(t, err)
	cols, err := set.Columns(set.Files()[0])
	require.NoError(t, err)
	require.Equal(t, []string{"text"}, cols)
	src, err := NewParquetTextSource(set, "")
	require.NoError(t, err)
	defer src.Close()
	for i := range 3 {
		d, err := src.Next()
		require.NoError(t, err)
		require.Equal(t, docs[i], d)
	}
}
