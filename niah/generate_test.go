package niah

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/stretchr/testify/require"
)

func TestRulerDepths(t *testing.T) {
	// [round(i*100/39) for i in range(40)] in CPython (= np.round(np.linspace(0, 100, 40))).
	want := []int{0, 3, 5, 8, 10, 13, 15, 18, 21, 23, 26, 28, 31, 33, 36, 38, 41, 44, 46, 49, 51, 54, 56, 59, 62,
		64, 67, 69, 72, 74, 77, 79, 82, 85, 87, 90, 92, 95, 97, 100}
	require.Equal(t, want, rulerDepthPercents)
	require.Len(t, RulerDepths(), 40)
	require.Equal(t, 0.03, RulerDepths()[1])
}

// TestRulerModeMatchesRULER compares RULER mode with RULER's generate_samples run under CPython: RULER's
// niah.py code with the byte tokenizer (len(text.encode("utf-8"))), the shared word lists and essays, and
// this package's sentence splitter in place of Punkt; seed 42, 4 samples. Each sample is (sha256 of the
// prompt, first 16 hex digits; answer; RULER's "length"; haystack size).
func TestRulerModeMatchesRULER(t *testing.T) {
	needShared(t, sharedEssays, sharedWords)
	type want struct {
		sha    string
		answer string
		length int
		size   int
	}
	cases := []struct {
		task Task
		L    int
		want []want
	}{
		{SNIAH1, 1024, []want{{"181952accab56d2b", "8038374", 1022, 6}, {"6e335ab9252b6358", "5667265", 1016, 6},
			{"b5f816cf20604aa8", "4612365", 590, 1}, {"afe4fc23a576636b", "5437923", 581, 1}}},
		{SNIAH1, 4096, []want{{"d995fa8572f07e93", "3608513", 4088, 40}, {"1470032db5265d22", "2556017", 4082, 40},
			{"ee9d024253932b09", "8707870", 1838, 15}, {"26217b8f7109936f", "2322047", 4085, 40}}},
		{SNIAH2, 4096, []want{{"d0b2cff1866334dd", "8707870", 4094, 607}, {"68a6cf04b3aefec0", "2322047", 4091, 607},
			{"3590ddd6edafd427", "7067228", 4091, 607}, {"9af69e83ce3d4259", "2166941", 4088, 607}}},
		{SNIAH3, 8192, []want{{"d3d9a06f66682e6f", "ece66fa2-fd51-46e6-851b-4cf36123fdf7", 8182, 1302},
			{"20a0e554eb54f8b6", "c6a7ee39-c4b0-42cc-97c5-24a55304317f", 8185, 1302},
			{"c65d8fa1c1e6b70f", "366eb16f-508e-4ad7-b7c9-3acfe059a0ee", 5267, 802},
			{"0f91a6d35428006f", "663f1c97-9562-49f0-a5d7-b8756dadd6c7", 5261, 802}}},
		{MKNIAH1, 8192, []want{{"776f220727d7532e", "4374754", 5265, 771}, {"6b0cfa72fb530981", "5672073", 5292, 771},
			{"594d7faf7f4226b8", "2626229", 8183, 1271}, {"6e83dfaecf9755f1", "2642635", 5284, 771}}},
	}
	for _, c := range cases {
		cfg := DefaultConfig(c.task, sharedEssays, sharedWords)
		cfg.Lengths, cfg.SamplesPerCell = []int{c.L}, 4
		ss, err := Generate(cfg, tokenizers.NewByteTokenizer())
		require.NoError(t, err)
		require.Len(t, ss, 4)
		for i, s := range ss {
			h := sha256.Sum256([]byte(s.Prompt))
			got := want{hex.EncodeToString(h[:])[:16], s.Answers[0], s.TotalLength, s.HaystackSize}
			require.Equal(t, c.want[i], got, "%s L=%d sample %d", c.task, c.L, i)
			require.Equal(t, i, s.Index)
		}
	}
}

// haystackSpan returns the byte range of the context in a prompt.
func haystackSpan(s Sample) (start, end int) {
	start = strings.Index(s.Prompt, " afterwards.\n") + len(" afterwards.\n")
	end = strings.LastIndex(s.Prompt, "\nWhat is the special magic")
	return start, end
}

// TestNeedleDepth places the needle at each depth of SweepDepths and checks where it landed:
//   - exactly: for S-NIAH-2/3 the text before the needle is the first int(n_sents·depth) sentences of the
//     haystack; for S-NIAH-1 it is int(n·depth) noise pieces;
//   - approximately, for every task: the needle's byte offset in the context and its token position in the
//     haystack's tokens are within one sentence (plus the other needles) of depth.
func TestNeedleDepth(t *testing.T) {
	essays := fixtureEssays(t, 2400)
	tok := tokenizers.NewByteTokenizer()
	for _, task := range Tasks() {
		for _, fit := range []Fit{FitRULER, FitTight} {
			cfg := Config{Task: task, Lengths: []int{2048, 4096}, Depths: SweepDepths, SamplesPerCell: 2, Seed: 3,
				EssaysPath: essays, Fit: fit}
			ss, err := Generate(cfg, tok)
			require.NoError(t, err)
			require.Len(t, ss, 2*2*len(SweepDepths))
			h, _ := loadEssays(essays)
			for i, s := range ss {
				require.Equal(t, SweepDepths[i%len(SweepDepths)], s.Depth)
				require.Equal(t, (i/len(SweepDepths))%2, s.Index)
				msg := fmt.Sprintf("%s %s L=%d depth=%v", task, fit, s.Length, s.Depth)
				start, end := haystackSpan(s)
				context := s.Prompt[start:end]
				needle := s.Needles[0]
				for _, n := range s.Needles {
					if strings.Contains(n, " "+s.Query+" is: ") {
						needle = n
					}
				}
				off := strings.Index(context, needle)
				require.GreaterOrEqual(t, off, 0, msg)
				before := context[:off]
				switch task {
				case SNIAH1:
					k := int(float64(s.HaystackSize) * s.Depth)
					require.Equal(t, strings.Repeat(NoiseSentence+"\n", k), before, msg)
				case SNIAH2, SNIAH3:
					sents := splitSentences(pyStrip(h.text(s.HaystackSize)))
					k := int(float64(len(sents)) * s.Depth)
					require.Equal(t, strings.Join(sents[:k], " ")+" ", before, msg)
				}
				// Approximate position, bytes and tokens.
				slack := 0
				for _, sent := range splitSentences(context) {
					slack = max(slack, len(sent)+1)
				}
				for _, n := range s.Needles {
					if n != needle {
						slack += len(n) + 1
					}
				}
				tol := float64(slack)/float64(len(context)) + 0.01
				require.InDelta(t, s.Depth, float64(off)/float64(len(context)-len(needle)), tol, msg)
				h0 := len(tok.Encode(s.Prompt[:start]))
				tokDepth := float64(s.NeedleToken-h0) / float64(s.QuestionStart-h0-len(tok.Encode(needle)))
				require.InDelta(t, s.Depth, tokDepth, tol, msg)
			}
		}
	}
}

// checkLengths checks every sample fits its target and, with FitTight, fills at least minFill of it.
func checkLengths(t *testing.T, ss []Sample, fit Fit, minFill float64) map[int][3]int {
	t.Helper()
	stats := map[int][3]int{} // length → min, max, count
	for _, s := range ss {
		require.Equal(t, len(s.PromptTokens)+DefaultMaxGenTokens, s.TotalLength)
		require.LessOrEqual(t, s.TotalLength, s.Length, "%s L=%d", s.Task, s.Length)
		st, ok := stats[s.Length]
		if !ok {
			st = [3]int{math.MaxInt, 0, 0}
		}
		stats[s.Length] = [3]int{min(st[0], s.TotalLength), max(st[1], s.TotalLength), st[2] + 1}
		if fit == FitTight {
			require.GreaterOrEqual(t, float64(s.TotalLength), minFill*float64(s.Length), "%s L=%d", s.Task, s.Length)
		}
	}
	for L, st := range stats {
		// RULER's binary search fills the target; only samples that overflowed it are shrunk by a unit.
		require.GreaterOrEqual(t, float64(st[1]), 0.97*float64(L), "best sample at L=%d", L)
	}
	return stats
}

func TestLengthsByteTokenizer(t *testing.T) {
	essays := fixtureEssays(t, 3000)
	for _, task := range Tasks() {
		for _, fit := range []Fit{FitRULER, FitTight} {
			cfg := Config{Task: task, Lengths: []int{1024, 2048, 4096}, SamplesPerCell: 6, Seed: 11, EssaysPath: essays, Fit: fit}
			ss, err := Generate(cfg, tokenizers.NewByteTokenizer())
			require.NoError(t, err)
			require.Len(t, ss, 18)
			// One noise piece is 90 bytes, 9% of 1K: the granularity of S-NIAH-1 in bytes.
			checkLengths(t, ss, fit, 0.9)
		}
	}
}

// TestLengthsNeoX sizes every task to 1K–8K GPT-NeoX tokens with the shared essays and words, and checks the
// token bookkeeping of the samples (QuestionStart, NeedleToken) under a real BPE.
func TestLengthsNeoX(t *testing.T) {
	tok := neox(t)
	needShared(t, sharedEssays, sharedWords)
	for _, task := range Tasks() {
		for _, fit := range []Fit{FitRULER, FitTight} {
			cfg := DefaultConfig(task, sharedEssays, sharedWords)
			cfg.SamplesPerCell, cfg.Fit, cfg.Workers = 6, fit, 2
			ss, err := Generate(cfg, tok)
			require.NoError(t, err)
			stats := checkLengths(t, ss, fit, 0.97)
			t.Logf("%s %s: total tokens per length (min, max, n): %v", task, fit, stats)
			for _, s := range ss {
				question := s.Prompt[strings.LastIndex(s.Prompt, "\nWhat is")+1:]
				require.Equal(t, question, tok.Decode(s.PromptTokens[s.QuestionStart:]))
				require.Equal(t, tok.Encode(question), s.PromptTokens[s.QuestionStart:])
				fromNeedle := tok.Decode(s.PromptTokens[s.NeedleToken:])
				require.True(t, strings.HasPrefix(strings.TrimLeft(fromNeedle, " \n"), "One of the special magic "+
					"numbers for "+s.Query) || strings.HasPrefix(strings.TrimLeft(fromNeedle, " \n"),
					"One of the special magic uuids for "+s.Query), fromNeedle[:60])
				require.NotContains(t, tok.Decode(s.PromptTokens[s.NeedleToken-1:s.NeedleToken]), "One")
			}
		}
	}
}

func TestDeterminismAndSeeds(t *testing.T) {
	essays := fixtureEssays(t, 1500)
	tok := tokenizers.NewByteTokenizer()
	cfg := Config{Task: MKNIAH1, Lengths: []int{1024, 2048}, Depths: []float64{0.1, 0.9}, SamplesPerCell: 3, Seed: 5,
		EssaysPath: essays}
	a, err := Generate(cfg, tok)
	require.NoError(t, err)
	b, err := Generate(cfg, tok)
	require.NoError(t, err)
	require.Equal(t, a, b)
	cfg.Workers = 2
	c, err := Generate(cfg, tok)
	require.NoError(t, err)
	require.Equal(t, a, c, "Workers does not change the samples")

	cfg.Seed = 6
	d, err := Generate(cfg, tok)
	require.NoError(t, err)
	require.Len(t, d, len(a))
	same := 0
	for i := range a {
		if a[i].Prompt == d[i].Prompt {
			same++
		}
		require.Equal(t, a[i].Depth, d[i].Depth)
	}
	require.Zero(t, same, "another seed gives other prompts")

	// Samples differ from each other within a run.
	answers := map[string]bool{}
	for _, s := range a {
		answers[s.Answers[0]] = true
	}
	require.Greater(t, len(answers), len(a)/2)
}

func TestConfigErrors(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	ok := Config{Task: SNIAH1, Lengths: []int{1024}, SamplesPerCell: 1}
	_, err := Generate(ok, tok)
	require.NoError(t, err)
	for name, c := range map[string]struct {
		mod  func(*Config)
		want string
	}{
		"samples":   {func(c *Config) { c.SamplesPerCell = 0 }, "SamplesPerCell"},
		"lengths":   {func(c *Config) { c.Lengths = nil }, "Lengths"},
		"length":    {func(c *Config) { c.Lengths = []int{-1} }, "target length -1"},
		"depth":     {func(c *Config) { c.Depths = []float64{1.5} }, "depth 1.5"},
		"nan depth": {func(c *Config) { c.Depths = []float64{math.NaN()} }, "depth NaN"},
		"no depths": {func(c *Config) { c.Depths = []float64{} }, "Depths is empty"},
		"gen":       {func(c *Config) { c.MaxGenTokens = -1 }, "MaxGenTokens"},
		"fit":       {func(c *Config) { c.Fit = "loose" }, "Fit"},
		"too short": {func(c *Config) { c.Lengths = []int{200} }, "no haystack fits"},
		"words":     {func(c *Config) { c.WordsPath = "/nonexistent/words.parquet" }, "/nonexistent/words.parquet"},
	} {
		cfg := ok
		c.mod(&cfg)
		_, err := Generate(cfg, tok)
		require.ErrorContains(t, err, c.want, name)
	}
	_, err = Generate(ok, nil)
	require.ErrorContains(t, err, "tokenizer")
}

// TestSmallTargetBelowOneUnit covers the [choice] branch where not even one RULER unit (500 essay words) fits
// the target: the search continues below one unit instead of looping forever as RULER would.
func TestSmallTargetBelowOneUnit(t *testing.T) {
	essays := fixtureEssays(t, 1500)
	cfg := Config{Task: SNIAH2, Lengths: []int{700}, SamplesPerCell: 4, Seed: 1, EssaysPath: essays}
	ss, err := Generate(cfg, tokenizers.NewByteTokenizer())
	require.NoError(t, err)
	for _, s := range ss {
		require.LessOrEqual(t, s.TotalLength, 700)
		require.Less(t, s.HaystackSize, 500)
	}
}
