package recall

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/harness/harnesstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fixture rows in the hazyresearch/based-* column layouts (docs/evals.md §4).
type (
	kvRow struct { // based-swde-v2, based-fda
		DocID string `parquet:"doc_id"`
		Text  string `parquet:"text"`
		Key   string `parquet:"key"`
		Value string `parquet:"value"`
	}
	fdaNoKeyRow struct {
		Text  string `parquet:"text"`
		Value string `parquet:"value"`
	}
	squadRow struct {
		Text     string `parquet:"text"`
		Value    string `parquet:"value"`
		Context  string `parquet:"context"`
		Question string `parquet:"question"`
	}
	qaRow struct { // based_triviaqa, based_nq_*, based_drop
		DocID        string   `parquet:"doc_id"`
		Context      string   `parquet:"context"`
		Question     string   `parquet:"question"`
		Answers      []string `parquet:"answers,list"`
		OrigQuestion string   `parquet:"orig_question"`
	}
)

func write[T any](t *testing.T, root, rel string, rows []T) {
	t.Helper()
	p := filepath.Join(root, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, hfparquet.WriteFile(p, rows))
}

// byteCutter cuts in the byte tokenizer (one token per byte), so positions are byte offsets:
// desired = 30 - 10 = 20 tokens, half 10.
func byteCutter() Cutter {
	return Cutter{Tok: tokenizers.NewByteTokenizer(), BOS: -1, ContextLength: 30, AnswerLength: 10}
}

func TestCutWindowByHand(t *testing.T) {
	c := byteCutter()
	text := strings.Repeat("abcdefghij", 10) // 100 bytes
	text = text[:50] + "ANSWER" + text[56:]
	// Answer at 50: start 40, end 50 + (20 - 10) = 60.
	got, keep := c.Cut(CutDoc{Text: "  " + text + "\n", Answers: []string{"answer", "ANSWER"}})
	require.True(t, keep)
	assert.Equal(t, text[40:60], got)
	// Near the start: start 0, end 5 + 15 = 20. The smallest position over the keys wins.
	got, _ = c.Cut(CutDoc{Text: text, Answers: []string{"answer", "fgh"}})
	assert.Equal(t, text[0:20], got)
	// Not found: Python's context[:-1] puts the window at the end: atp = 99, start 89, end 100.
	got, _ = c.Cut(CutDoc{Text: text, Answers: []string{"zzz", "yyy"}})
	assert.Equal(t, text[89:100], got)
	// Not found with tok_pos and a long prefix: tok_pos = 30 gives [20, 40).
	got, _ = c.Cut(CutDoc{Text: text, Answers: []string{"zzz", "yyy"}, HasTokPos: true, TokPos: 30})
	assert.Equal(t, text[20:40], got)
	// alt_answers: the first alt answer found gives the position (70 here).
	text2 := text[:70] + "qq" + text[72:]
	got, _ = c.Cut(CutDoc{Text: text2, Answers: []string{"zzz", "yyy"}, HasAlt: true, AltAnswers: []string{"xx", "qq", "ab"}})
	assert.Equal(t, text2[60:80], got)
	// No answer key: position 0.
	got, _ = c.Cut(CutDoc{Text: text})
	assert.Equal(t, text[0:20], got)
	// Drop rule: an answer of length <= 1 (code points) or empty drops the document, even if another key
	// is fine.
	for _, a := range []string{"", "x", "é"} {
		_, keep = c.Cut(CutDoc{Text: text, Answers: []string{"answer", a}})
		assert.False(t, keep, "answer %q", a)
	}
	_, keep = c.Cut(CutDoc{Text: text, Answers: []string{"éé", "answer"}})
	assert.True(t, keep)
}

func TestCutWithBOS(t *testing.T) {
	c := byteCutter()
	c.BOS = tokenizers.ByteTokenizerPad // stands for a BOS the tokenizer adds by default
	text := strings.Repeat("0123456789", 10)
	text = text[:50] + "ANSWER" + text[56:]
	// enc(context[:50]) has 51 tokens with BOS: start 41, end 61 of [BOS]+bytes = bytes[40:60].
	got, _ := c.Cut(CutDoc{Text: text, Answers: []string{"answer"}})
	assert.Equal(t, text[40:60], got)
	// At the start the window holds BOS, which decoding skips: 20 tokens = BOS + 19 bytes.
	got, _ = c.Cut(CutDoc{Text: text, Answers: []string{"0123"}})
	assert.Equal(t, text[:19], got)
}

func TestPrompts(t *testing.T) {
	p, s := SWDEPrompt("Movie: X\nyear: 1983.\n\n"+swdeSummary+"\nyear: 1983\nyear:", "year")
	assert.Equal(t, "Movie: X\nyear: 1983. Year:", p)
	assert.Equal(t, " Year:", p[s:])
	p, s = SWDEPrompt("Title page. DIRECTOR:director:", "director")
	assert.Equal(t, "Title page. Director:", p)
	assert.Equal(t, " Director:", p[s:])
	p, s = SWDETwicePrompt("Body text\n", "genre")
	assert.Equal(t, "Information about Genre. Body text.\nBody text. Genre:", p)
	assert.Equal(t, " Genre:", p[s:])
	p, s = FDAPrompt("The device: Foo.\nApplicant: Bar\napplicant:Applicant:", "applicant")
	assert.Equal(t, "The device: Foo.\nApplicant: Bar. Applicant:", p)
	assert.Equal(t, " Applicant:", p[s:])
	p, _ = FDAPrompt("\nEnds with a dot...\n", "k x")
	assert.Equal(t, "Ends with a dot. K x:", p) // strip("\n") (both ends), then strip(".") and one "." back
	p, s = FDATwicePrompt("Body", "date")
	assert.Equal(t, "Information about Date. Body.\nBody. Date:", p)
	assert.Equal(t, " Date:", p[s:])

	p, s = QAPrompt(" [DOC] [TLE] Paris [PAR] Paris is the capital of France. What is the capital of France?", "what is the capital of France? ", true, false)
	assert.Equal(t, "Paris  Paris is the capital of France. what is the capital of France?", p)
	assert.Equal(t, ". what is the capital of France?", p[s:])
	// NQ strips the question once and case-sensitively.
	p, _ = QAPrompt("Ctx. when was it? when was it?", "when was it?", false, true)
	assert.Equal(t, "Ctx. when was it?. when was it?", p)
	p, _ = QAPrompt("Ctx. When was it?", "when was it?", false, true)
	assert.Equal(t, "Ctx. When was it?. when was it?", p)
	// DROP strips repeatedly and case-insensitively.
	p, _ = QAPrompt("Ctx... How many?how many?", "How many?", false, false)
	assert.Equal(t, "Ctx. How many?", p)
	p, _ = QAPrompt("Ctx... How many? how many?", "How many?", false, false) // a space stops the loop
	assert.Equal(t, "Ctx... How many?. How many?", p)
	p, s = QATwicePrompt("Ctx [PAR] text.", "Who?", "orig q:", true)
	assert.Equal(t, "orig q: Ctx  text.\nCtx  text. Who?", p)
	assert.Equal(t, " Who?", p[s:])
	p, _ = QATwicePrompt("Ctx.", "Who?", "orig q:", false)
	assert.Equal(t, "orig q Ctx.\nCtx. Who?", p)

	p, s = SQuADPrompt("  The Normans lived in Normandy. The Normans were from\n")
	assert.Equal(t, "The Normans lived in Normandy. The Normans were from", p)
	assert.Equal(t, "The Normans were from", p[s:])
	p, s = SQuADPrompt("no sentence break")
	assert.Equal(t, len(p), s)
	p, s = SQuADTwicePrompt("Ctx. They came from", "Ctx body Question: where?", "Where did they come from?")
	assert.Equal(t, "Where did they come from? Ctx body \nCtx. They came from", p)
	assert.Equal(t, "They came from", p[s:])
}

func TestContains(t *testing.T) {
	assert.Equal(t, 1.0, Contains(" paris is nice", []string{"London", "Paris"}))
	assert.Equal(t, 0.0, Contains("axb", []string{"a.b"})) // escaped
	assert.Equal(t, 1.0, Contains("C++ lang", []string{"c++"}))
	assert.Equal(t, 0.0, Contains("x", nil))
}

// TestSWDETaskEndToEnd runs based_swde on a fixture through the FakeModel with a scripted answer:
// dropping, cutting, the prompt, generation cut at "\n", contains, left truncation to 2000 tokens and the
// mixed-mode split point.
func TestSWDETaskEndToEnd(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("filler words here. ", 150) + "year: 1983. " + strings.Repeat("more text here. ", 150) // 5000+ bytes
	write(t, root, DefaultPaths["based_swde"], []kvRow{
		{Text: "Heat (1995). Genre: Crime.\n\n" + swdeSummary + "\ngenre: Crime\n", Key: "genre", Value: "Crime"},
		{Text: "Page. year: 2001\n" + swdeSummary + "\nyear: 2001\nyear:", Key: "year", Value: "x"}, // dropped: value of length 1
		{Text: long, Key: "year", Value: "1983"},
		{Text: "Nothing here.\n" + swdeSummary, Key: "director", Value: "Nobody"},
	})
	m := harnesstest.NewFakeModel(tokenizers.NewByteTokenizer())
	m.Generate = func(prompt string) string {
		switch {
		case strings.HasSuffix(prompt, " Genre:"):
			return " crime drama\nGenre: x"
		case strings.HasSuffix(prompt, " Year:"):
			return " 19\n83"
		}
		return " Nobody"
	}
	var buf bytes.Buffer
	task, err := harness.Lookup("based_swde", harness.Config{DataRoot: root})
	require.NoError(t, err)
	res, err := harness.Run(m, task, harness.Options{Mixed: true, Samples: harness.NewSampleWriter(&buf)})
	require.NoError(t, err)
	assert.Equal(t, 4, res.TotalDocs)
	assert.Equal(t, 1, res.Dropped)
	assert.Equal(t, 3, res.Docs)
	// Doc 0: " crime drama" contains "Crime"; doc 2: " 19" (cut at "\n") misses "1983"; doc 3: hit.
	assert.InDelta(t, 2.0/3, res.Metrics["contains"].Value, 1e-12)
	assert.Equal(t, 3, res.Metrics["contains"].N)
	require.Len(t, m.GenSeen, 3)
	tok := m.Tokenizer()
	assert.Equal(t, "Heat (1995). Genre: Crime. Genre:", tok.Decode(m.GenSeen[0].Context))
	assert.Equal(t, len("Heat (1995). Genre: Crime."), m.GenSeen[0].AttentionFrom)
	for _, g := range m.GenSeen {
		assert.Equal(t, []string{"\n"}, g.Until)
		assert.Equal(t, 48, g.MaxTokens)
	}
	// Doc 2: the cut window is 1998 bytes around the answer; the prompt (1998 + ". Year:") is left-truncated
	// to 2000 tokens, and its split point still marks " Year:".
	assert.Equal(t, 1, res.Truncated)
	assert.Len(t, m.GenSeen[1].Context, 2000)
	assert.Equal(t, " Year:", tok.Decode(m.GenSeen[1].Context[m.GenSeen[1].AttentionFrom:]))
	// Mixed mode keeps attention small on long documents: 7 prompt tokens + 2 generated fed back.
	assert.Less(t, res.AttentionFraction, 0.1)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 3)
	var s struct {
		DocID         int    `json:"doc_id"`
		Target        string `json:"target"`
		Resps         [][]string
		FilteredResps []string `json:"filtered_resps"`
		Contains      float64  `json:"contains"`
		Oryx          struct {
			Requests []harness.SampleRequest `json:"requests"`
		} `json:"oryx"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &s))
	assert.Equal(t, 2, s.DocID) // doc 1 was dropped
	assert.Equal(t, []string{" 19"}, s.FilteredResps)
	assert.Equal(t, [][]string{{" 19"}}, s.Resps)
	assert.Equal(t, "['1983']", s.Target) // str() of the label list, as lm-eval writes it
	assert.Equal(t, 0.0, s.Contains)
	assert.True(t, s.Oryx.Requests[0].Truncated)
}

func TestQATasksWithoutCutColumns(t *testing.T) {
	root := t.TempDir()
	rows := []qaRow{
		{Context: "Paris is in France. Where is Paris?", Question: "Where is Paris?", Answers: []string{"France", "FR"}, OrigQuestion: "where paris:"},
		{Context: "Short.", Question: "Q?", Answers: []string{"b"}, OrigQuestion: "q"},
	}
	write(t, root, DefaultPaths["based_triviaqa"], rows)
	write(t, root, DefaultPaths["based_nq_2048"], rows)
	m := harnesstest.NewFakeModel(tokenizers.NewByteTokenizer())
	m.Generate = func(string) string { return " in france" }
	for _, name := range []string{"based_triviaqa", "based_nq_2048", "based_nq_2048_twice"} {
		task, err := harness.Lookup(name, harness.Config{DataRoot: root})
		require.NoError(t, err)
		res, err := harness.Run(m, task, harness.Options{})
		require.NoError(t, err, name)
		assert.Equal(t, 0, res.Dropped, name) // the answer "b" is short, but nothing is cut or dropped here
		assert.Equal(t, 0.5, res.Metrics["contains"].Value, name)
		assert.NotEmpty(t, res.Notes, name)
	}
	assert.Equal(t, "Paris is in France. Where is Paris?", m.Tokenizer().Decode(m.GenSeen[0].Context))
	// Not mixed: AttentionFrom is "never" (the end of context + max tokens).
	assert.Equal(t, len(m.GenSeen[0].Context)+48, m.GenSeen[0].AttentionFrom)
	assert.Equal(t, "where paris Paris is in France.\nParis is in France. Where is Paris?", m.Tokenizer().Decode(m.GenSeen[4].Context))
}

func TestRecallBadInput(t *testing.T) {
	root := t.TempDir()
	write(t, root, DefaultPaths["based_fda"], []fdaNoKeyRow{{Text: "t", Value: "vv"}})
	task, err := harness.Lookup("based_fda", harness.Config{DataRoot: root})
	require.NoError(t, err)
	_, err = harness.Run(harnesstest.NewFakeModel(tokenizers.NewByteTokenizer()), task, harness.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), DefaultPaths["based_fda"])
	assert.Contains(t, err.Error(), `no column "key"`)
	_, err = harness.Lookup("swde", harness.Config{})
	require.Error(t, err)
	for _, n := range GroupTasks {
		assert.Contains(t, err.Error(), n)
	}
	names, err := harness.ParseTaskList("recall")
	require.NoError(t, err)
	assert.Equal(t, GroupTasks, names)
}

func TestSQuADTaskMixedSplit(t *testing.T) {
	root := t.TempDir()
	write(t, root, DefaultPaths["based_squad"], []squadRow{
		{Text: "The Normans lived in Normandy in France. The Normans lived in", Value: "Normandy", Context: "c", Question: "q"},
	})
	m := harnesstest.NewFakeModel(tokenizers.NewByteTokenizer())
	m.Generate = func(string) string { return " Normandy, a region" }
	res, err := harness.Run(m, New("based_squad", harness.Config{DataRoot: root}), harness.Options{Mixed: true})
	require.NoError(t, err)
	assert.Equal(t, 1.0, res.Metrics["contains"].Value)
	g := m.GenSeen[0]
	assert.Equal(t, "The Normans lived in", m.Tokenizer().Decode(g.Context[g.AttentionFrom:]))
}

// TestCutRealTokenizers cuts a long synthetic document with GPT-NeoX (no BOS) and Llama-2 (BOS added by
// default): the window holds the answer and at most 1998 tokens. Skipped without shared/data.
func TestCutRealTokenizers(t *testing.T) {
	wd, _ := os.Getwd()
	var dir string
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "shared", "data", "tokenizers")); err == nil {
			dir = filepath.Join(d, "shared", "data", "tokenizers")
			break
		}
		if filepath.Dir(d) == d {
			t.Skipf("shared tokenizers not found above %s", wd)
		}
	}
	doc := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 400) + "The release year: 1987. " +
		strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 300)
	for _, f := range []string{"gpt-neox-20b/tokenizer.json", "llama2/tokenizer.model"} {
		tok, err := tokenizers.Load(filepath.Join(dir, f))
		if err != nil {
			t.Skipf("tokenizer %s: %v", f, err)
		}
		m := harnesstest.NewFakeModel(tok)
		if strings.HasPrefix(f, "llama2") {
			m.Prefix = 1 // BOS <s>, distinct from EOS </s> = 2
			require.Equal(t, 1, BOSFor(m))
		} else {
			require.Equal(t, -1, BOSFor(m))
		}
		c := Cutter{Tok: tok, BOS: BOSFor(m), ContextLength: ContextLength, AnswerLength: AnswerLength}
		got, keep := c.Cut(CutDoc{Text: doc, Answers: []string{"year", "1987"}})
		require.True(t, keep)
		assert.Contains(t, got, "The release year: 1987.", f)
		n := len(tok.Encode(got))
		assert.InDelta(t, 1998, n, 5, f) // re-encoding the decoded window may merge a token or two at its edges
		t.Logf("%s: window of %d tokens (%d bytes)", f, n, len(got))
	}
}
