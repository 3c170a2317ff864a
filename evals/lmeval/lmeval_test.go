package lmeval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/evals/harness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The FakeModel's two log-probabilities over the byte tokenizer: repeating the previous byte, or not.
var (
	logS = math.Log(0.5)
	logO = math.Log(0.5 / 257)
)

// TestAccVersusAccNorm: two PIQA documents where acc and acc_norm pick different choices, checked against
// log-likelihoods computed by hand.
//
// Document 0 (gold 0): " aaaa" after ":" scores 2·O+3·S (":"→" ", " "→"a", then three repeats), " b" scores
// 2·O. acc picks " b" (higher total), acc_norm picks "aaaa" ((2O+3S)/4 > 2O/1).
// Document 1 (gold 1): " éé" is 5 bytes, all changes: 5·O, 2 code points; " xyz" is 4·O, 3 code points.
// By code points acc_norm picks "xyz" (-15.6 < -8.3 per char); by bytes it would pick "éé" (5O/4 > 4O/3).
func TestAccVersusAccNorm(t *testing.T) {
	root := writeFixture(t, t.TempDir(), DefaultPaths[PIQA], []piqaRow{
		{Goal: "g", Sol1: "aaaa", Sol2: "b", Label: 0},
		{Goal: "h", Sol1: "éé", Sol2: "xyz", Label: 1},
	})
	task, err := harness.Lookup(PIQA, harness.Config{DataRoot: root})
	require.NoError(t, err)
	var buf bytes.Buffer
	res, err := harness.Run(fake(), task, harness.Options{Samples: harness.NewSampleWriter(&buf)})
	require.NoError(t, err)
	// One lm-eval sample record per document (its on-disk layout): the row as "doc", str(gold index) as
	// "target", one {arg_0: context, arg_1: " choice"} argument and one [str(ll), str(is_greedy)] response
	// per choice, acc and acc_norm per doc.
	var lls []float64
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 2)
	wantAcc := [][2]float64{{0, 1}, {1, 1}}
	for d, line := range lines {
		var s struct {
			DocID         int                          `json:"doc_id"`
			Doc           map[string]any               `json:"doc"`
			Target        string                       `json:"target"`
			Arguments     map[string]map[string]string `json:"arguments"`
			Resps         [][][2]string                `json:"resps"`
			FilteredResps [][2]string                  `json:"filtered_resps"`
			Acc           float64                      `json:"acc"`
			AccNorm       float64                      `json:"acc_norm"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &s))
		assert.Equal(t, d, s.DocID)
		assert.Equal(t, []string{"g", "h"}[d], s.Doc["goal"])
		assert.Equal(t, fmt.Sprint(d), s.Target)
		require.Len(t, s.Arguments, 2)
		require.Len(t, s.FilteredResps, 2)
		for c := range 2 {
			arg := s.Arguments[fmt.Sprintf("gen_args_%d", c)]
			assert.Equal(t, "Question: "+[]string{"g", "h"}[d]+"\nAnswer:", arg["arg_0"])
			assert.Equal(t, " "+[][]string{{"aaaa", "b"}, {"éé", "xyz"}}[d][c], arg["arg_1"])
			assert.Equal(t, s.Resps[c][0], s.FilteredResps[c])
			ll, err := strconv.ParseFloat(s.FilteredResps[c][0], 64)
			require.NoError(t, err)
			lls = append(lls, ll)
		}
		assert.Equal(t, wantAcc[d], [2]float64{s.Acc, s.AccNorm})
	}
	want := []float64{2*logO + 3*logS, 2 * logO, 5 * logO, 4 * logO}
	require.Len(t, lls, 4)
	for i := range want {
		assert.InDelta(t, want[i], lls[i], 1e-9, "request %d", i)
	}
	// doc 0: acc 0 (picks b), acc_norm 1; doc 1: acc 1 (4O > 5O), acc_norm 1 (by code points).
	assert.Equal(t, 0.5, res.Metrics["acc"].Value)
	assert.Equal(t, 1.0, res.Metrics["acc_norm"].Value)
	assert.Equal(t, 2, res.Metrics["acc"].N)
	assert.InDelta(t, math.Sqrt(0.5)/math.Sqrt(2), res.Metrics["acc"].Stderr, 1e-12)
	assert.Equal(t, 0.0, res.Metrics["acc_norm"].Stderr)
}

func TestMissingColumnNamesFileAndColumn(t *testing.T) {
	root := writeFixture(t, t.TempDir(), DefaultPaths[PIQA], []piqaNoSol2Row{{Goal: "g", Sol1: "a", Label: 0}})
	task, err := harness.Lookup(PIQA, harness.Config{DataRoot: root})
	require.NoError(t, err)
	_, err = harness.Run(fake(), task, harness.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), DefaultPaths[PIQA])
	assert.Contains(t, err.Error(), `no column "sol2"`)
	// A missing file names the path too.
	task, _ = harness.Lookup(BoolQ, harness.Config{DataRoot: t.TempDir()})
	_, err = harness.Run(fake(), task, harness.Options{})
	assert.ErrorContains(t, err, "boolq/validation.parquet")
}

func TestUnknownTaskListsTasks(t *testing.T) {
	_, err := harness.Lookup("hellaswag_v2", harness.Config{})
	require.Error(t, err)
	for _, n := range Names {
		assert.Contains(t, err.Error(), n)
	}
	names, err := harness.ParseTaskList("lm")
	require.NoError(t, err)
	assert.Equal(t, Names, names)
}

// TestWinoGrandePartialScoring: the options become contexts, the rest of the sentence is the shared
// continuation, and the answer maps "1"/"2" to 0/1.
func TestWinoGrandePartialScoring(t *testing.T) {
	root := writeFixture(t, t.TempDir(), DefaultPaths[WinoGrande], []winoRow{
		{Sentence: "Sarah lent Maria a book because _ had  two. ", Option1: "Sarah", Option2: "Maria", Answer: "1"},
		{Sentence: "The cup beat the jug because the _ 's lid was on.", Option1: "cup", Option2: "jug", Answer: "2"},
	})
	task := New(WinoGrande, harness.Config{DataRoot: root})
	m := fake()
	plan, err := task.Build(m, harness.Options{Mixed: true})
	require.NoError(t, err)
	require.Len(t, plan.LL, 4)
	assert.Equal(t, "Sarah lent Maria a book because Sarah", plan.LL[0].Context)
	assert.Equal(t, "Sarah lent Maria a book because Maria", plan.LL[1].Context)
	assert.Equal(t, " had  two.", plan.LL[0].Continuation)
	assert.Equal(t, " had  two.", plan.LL[1].Continuation)
	assert.Equal(t, "The cup beat the jug because the cup", plan.LL[2].Context)
	assert.Equal(t, " 's lid was on.", plan.LL[2].Continuation)
	tok := m.Tokenizer()
	assert.Equal(t, tok.Encode(" had  two."), plan.LL[0].Req.Continuation)
	assert.Equal(t, len(plan.LL[0].Req.Context)-1, plan.LL[0].Req.AttentionFrom) // mixed: the answer's predictions in attention
	// Scoring by hand: doc 0 gold 0 wins, doc 1 gold 1 loses.
	sc, err := plan.Score([]harness.LLResult{{LogLikelihood: -1}, {LogLikelihood: -2}, {LogLikelihood: -1}, {LogLikelihood: -3}}, nil)
	require.NoError(t, err)
	assert.Equal(t, 0.5, sc.Metrics["acc"].Value)
	_, hasNorm := sc.Metrics["acc_norm"]
	assert.False(t, hasNorm)

	bad := writeFixture(t, t.TempDir(), DefaultPaths[WinoGrande], []winoRow{{Sentence: "no blank", Option1: "a", Option2: "b", Answer: "1"}})
	_, err = New(WinoGrande, harness.Config{DataRoot: bad}).Build(m, harness.Options{})
	assert.ErrorContains(t, err, `has no "_"`)
}

func TestHellaSwagPreprocessing(t *testing.T) {
	assert.Equal(t, "Roof shingle removal: A man is sitting on a roof. He",
		HellaSwagQuery("Roof shingle removal", "A man is sitting on a roof.", "he"))
	// capitalize lower-cases the tail of ctx_b; " [title]" becomes ". ", other brackets vanish, one
	// pass of double-space squeezing, and a final strip.
	assert.Equal(t, "Home: How to x. Do y The man",
		HellaSwagQuery("Home", "[header] How to x [title] Do y", "THE MAN"))
	assert.Equal(t, "a [b\nc]", HellaSwagPreprocess("  a [b\nc]  ")) // "." does not cross newlines
	assert.Equal(t, "a  b", HellaSwagPreprocess("a    b"))           // one pass only

	root := writeFixture(t, t.TempDir(), DefaultPaths[HellaSwag], []hellaRow{
		{ActivityLabel: "Cooking", CtxA: "She cuts onions.", CtxB: "she", Endings: []string{"cries.", "[step] laughs.", "x", "y"}, Label: "1"},
	})
	plan, err := New(HellaSwag, harness.Config{DataRoot: root}).Build(fake(), harness.Options{})
	require.NoError(t, err)
	require.Len(t, plan.LL, 4)
	assert.Equal(t, "Cooking: She cuts onions. She", plan.LL[0].Context)
	// preprocess strips before deleting "[step]", so the choice keeps a leading space: "  laughs.".
	assert.Equal(t, "  laughs.", plan.LL[1].Continuation)
	assert.NotEmpty(t, plan.Notes) // default data: approximate
}

func TestARCGoldFromLabels(t *testing.T) {
	root := writeFixture(t, t.TempDir(), DefaultPaths[ARCChallenge], []arcRow{
		{Question: "Q1?", Choices: arcChoices{Text: []string{"a", "b", "c", "d"}, Label: []string{"1", "2", "3", "4"}}, AnswerKey: "3"},
		{Question: "Q2?", Choices: arcChoices{Text: []string{"a", "b", "c"}, Label: []string{"A", "B", "C"}}, AnswerKey: "A"},
	})
	plan, err := New(ARCChallenge, harness.Config{DataRoot: root}).Build(fake(), harness.Options{})
	require.NoError(t, err)
	require.Len(t, plan.LL, 7)
	assert.Equal(t, "Question: Q1?\nAnswer:", plan.LL[0].Context)
	ll := []harness.LLResult{{LogLikelihood: -5}, {LogLikelihood: -5}, {LogLikelihood: -1}, {LogLikelihood: -5},
		{LogLikelihood: -1}, {LogLikelihood: -2}, {LogLikelihood: -3}}
	sc, err := plan.Score(ll, nil)
	require.NoError(t, err)
	assert.Equal(t, 1.0, sc.Metrics["acc"].Value)
	assert.Equal(t, 1.0, sc.Metrics["acc_norm"].Value)

	bad := writeFixture(t, t.TempDir(), DefaultPaths[ARCEasy], []arcRow{
		{Question: "Q", Choices: arcChoices{Text: []string{"a"}, Label: []string{"A"}}, AnswerKey: "E"}})
	_, err = New(ARCEasy, harness.Config{DataRoot: bad}).Build(fake(), harness.Options{})
	assert.ErrorContains(t, err, `"answerKey"`)
}

func TestSocialIQAAndBoolQPrompts(t *testing.T) {
	root := writeFixture(t, t.TempDir(), DefaultPaths[SocialIQA], []siqaRow{
		{Context: "Tracy went home.", Question: "Why?", AnswerA: "tired", AnswerB: "bored", AnswerC: "sad", Label: "3"}})
	writeFixture(t, root, DefaultPaths[BoolQ], []boolqRow{{Question: "is it true", Passage: "It is.", Label: 1}})
	p, err := New(SocialIQA, harness.Config{DataRoot: root}).Build(fake(), harness.Options{})
	require.NoError(t, err)
	assert.Equal(t, "Q: Tracy went home. Why?\nA:", p.LL[0].Context)
	assert.Equal(t, " sad", p.LL[2].Continuation)
	sc, _ := p.Score([]harness.LLResult{{LogLikelihood: -3}, {LogLikelihood: -2}, {LogLikelihood: -1}}, nil)
	assert.Equal(t, 1.0, sc.Metrics["acc"].Value) // gold = int("3") - 1 = 2
	p, err = New(BoolQ, harness.Config{DataRoot: root}).Build(fake(), harness.Options{})
	require.NoError(t, err)
	assert.Equal(t, "It is.\nQuestion: is it true?\nAnswer:", p.LL[0].Context)
	assert.Equal(t, []string{" no", " yes"}, []string{p.LL[0].Continuation, p.LL[1].Continuation})
}

// TestLambadaByHand checks the split, the empty-context prefix token, perplexity and acc against hand
// values, and the trailing-space move.
func TestLambadaByHand(t *testing.T) {
	c, cont := LambadaSplit("he said  hello")
	assert.Equal(t, "he said ", c) // split(" ") keeps the empty word
	assert.Equal(t, " hello", cont)
	root := writeFixture(t, t.TempDir(), DefaultPaths[Lambada], []textRow{{Text: "a bb"}, {Text: "cc c"}, {Text: "dd"}, {Text: "x  yy"}})
	m := fake()
	res, err := harness.Run(m, New(Lambada, harness.Config{DataRoot: root}), harness.Options{BootstrapIters: 1000})
	require.NoError(t, err)
	tok := m.Tokenizer()
	// "dd": empty context → [prefix 256], continuation enc(" dd").
	assert.Equal(t, []int{256}, m.LLSeen[2].Context)
	assert.Equal(t, tok.Encode(" dd"), m.LLSeen[2].Continuation)
	// "x  yy": context "x " → the trailing space moves: context "x", continuation "  yy".
	assert.Equal(t, tok.Encode("x"), m.LLSeen[3].Context)
	assert.Equal(t, tok.Encode("  yy"), m.LLSeen[3].Continuation)
	lls := []float64{
		2*logO + logS,             // a→" ", " "→b, b→b
		2 * logO,                  // c→" ", " "→c
		2*logO + logS,             // 256→" ", " "→d, d→d
		logO + logS + logO + logS, // x→" ", " "→" ", " "→y, y→y
	}
	assert.InDelta(t, math.Exp(-harness.Mean(lls)), res.Metrics["perplexity"].Value, 1e-9)
	assert.InDelta(t, harness.BootstrapStderr(harness.Perplexity, lls, 1000), res.Metrics["perplexity"].Stderr, 1e-9)
	assert.Equal(t, 0.0, res.Metrics["acc"].Value)
	assert.Equal(t, 4, res.Metrics["acc"].N)
	// Not mixed: the model saw AttentionFrom at the end of each request (never).
	assert.Equal(t, len(m.LLSeen[0].Context)+len(m.LLSeen[0].Continuation), m.LLSeen[0].AttentionFrom)
}

func TestWikiTextDetokenize(t *testing.T) {
	in := " = Valkyria = \n The game 's 2 @,@ 000 copies ( in Japan ) were \" sold \" , the players ' cards : 5 @.@ 5 % . \n = = Plot = = \n N of 3 @-@ 4 \u00b0 C , a N b "
	// By hand, rule by rule: "players ' " → "players' "; "2,000", "5.5", "3-4"; "cards: ", "%. ", "\", ";
	// "(in Japan)", "\"sold\"" (the '…' squeeze spans "'s … players'" and changes nothing); "== Plot ==";
	// "°" joined; " \n" and "\n " collapse; " N " → " 1 " (not the "N" after a newline); " 's" → "'s".
	want := " = Valkyria =\nThe game's 2,000 copies (in Japan) were \"sold\", the players' cards: 5.5 %.\n== Plot ==\nN of 3-4\u00b0C, a 1 b "
	assert.Equal(t, want, WikiTextDetokenize(in))
	assert.Equal(t, "f(x)", WikiTextDetokenize("f(\u2003x\n)")) // Python's \s is Unicode-aware
}

// TestWikiTextWindowsAndCounts: words and bytes come from the original page, the windows cover every
// token once (so the repeat model's total log-likelihood does not depend on max_length), and the
// metrics match a hand computation.
func TestWikiTextWindowsAndCounts(t *testing.T) {
	pages := []string{" = A = \n\n x @-@ y , z \n", "  b  c\u00a0d "}
	assert.Equal(t, 10, harness.PyWordCount(pages[0])) // ['', '=', 'A', '=', 'x', '@-@', 'y', ',', 'z', '']
	assert.Equal(t, 5, harness.PyWordCount(pages[1]))  // ['', 'b', 'c', 'd', '']
	root := writeFixture(t, t.TempDir(), DefaultPaths[WikiText], []pageRow{{Page: pages[0]}, {Page: pages[1]}})
	words, nbytes := 15.0, float64(len(pages[0])+len(pages[1]))
	for _, maxLen := range []int{1, 3, 5, 2048} {
		m := fake()
		m.MaxLen = maxLen
		ll, windows := 0.0, 0
		for _, p := range pages {
			ids := m.Tokenizer().Encode(WikiTextDetokenize(p))
			prev := m.PrefixToken()
			for _, id := range ids {
				ll += m.LogProb(prev, id)
				prev = id
			}
			windows += (len(ids) + maxLen - 1) / maxLen
		}
		res, err := harness.Run(m, New(WikiText, harness.Config{DataRoot: root}), harness.Options{Mixed: true})
		require.NoError(t, err)
		assert.Equal(t, windows, res.Requests, "max_length %d", maxLen)
		assert.Equal(t, 0, res.Truncated)
		assert.Equal(t, int64(0), res.AttentionTokens) // rolling windows stay linear in mixed mode
		assert.InDelta(t, math.Exp(-ll/words), res.Metrics["word_perplexity"].Value, 1e-9*math.Exp(-ll/words))
		assert.InDelta(t, math.Exp(-ll/nbytes), res.Metrics["byte_perplexity"].Value, 1e-9)
		assert.InDelta(t, -ll/nbytes/math.Ln2, res.Metrics["bits_per_byte"].Value, 1e-9)
		assert.True(t, math.IsNaN(res.Metrics["word_perplexity"].Stderr))
		assert.Equal(t, 2, res.Metrics["bits_per_byte"].N)
	}
}
