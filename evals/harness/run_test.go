package harness_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/harness/harnesstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toyTask is a task over inline documents for harness.Run tests: each document is (context, continuation).
type toyTask struct {
	docs [][2]string
	gen  []string
}

func (toyTask) Name() string { return "toy" }

func (tt toyTask) Build(m harness.Model, opts harness.Options) (*harness.Plan, error) {
	p := &harness.Plan{Docs: len(tt.docs) + len(tt.gen), TotalDocs: len(tt.docs) + len(tt.gen)}
	for i, d := range tt.docs {
		ctx, cont := harness.EncodePair(m.Tokenizer(), m.PrefixToken(), d[0], d[1])
		p.LL = append(p.LL, harness.LLItem{Doc: i, Context: d[0], Continuation: d[1], Req: harness.LLRequest{Context: ctx, Continuation: cont, AttentionFrom: len(ctx)}})
	}
	for i, g := range tt.gen {
		ids := harness.EncodeContext(m.Tokenizer(), m.PrefixToken(), g)
		p.Gen = append(p.Gen, harness.GenItem{Doc: len(tt.docs) + i, Prompt: g, Labels: []string{"q"},
			Req: harness.GenRequest{Context: ids, AttentionFrom: len(ids) - 1, Until: []string{"\n"}, MaxTokens: 4}})
	}
	p.Score = func(ll []harness.LLResult, gen []harness.GenResult) (harness.Scores, error) {
		var lls, sc []float64
		for _, r := range ll {
			lls = append(lls, r.LogLikelihood)
		}
		for _, g := range gen {
			sc = append(sc, harness.Bool01(strings.Contains(g.Text, "q")))
		}
		out := harness.Scores{Metrics: map[string]harness.Metric{"sum": {Value: -harness.Perplexity(lls), Stderr: math.NaN(), N: len(ll)}}, Gen: sc}
		if opts.Samples != nil {
			out.PerDoc = map[int]harness.Doc{}
			for i, x := range lls {
				out.PerDoc[i] = harness.Doc{{Key: "ll", Value: x}}
			}
			for i, x := range sc {
				out.PerDoc[len(tt.docs)+i] = harness.Doc{{Key: "contains", Value: x}}
			}
		}
		return out, nil
	}
	if opts.Samples != nil {
		p.SampleDocs = map[int]harness.SampleDoc{0: {Doc: harness.Doc{{Key: "text", Value: tt.docs[0][0]}}, Target: 0}}
	}
	return p, nil
}

func TestRunTruncatesCountsAndLogs(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	m := harnesstest.NewFakeModel(tok)
	m.MaxLen = 8
	m.Generate = func(prompt string) string { return "qq\nrest" }
	var buf bytes.Buffer
	sw := harness.NewSampleWriter(&buf)
	task := toyTask{docs: [][2]string{{"abcdefghij", "kl"}, {"ab ", "c"}}, gen: []string{"0123456789"}}
	res, err := harness.Run(m, task, harness.Options{Mixed: true, Samples: sw})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Requests)
	assert.Equal(t, 2, res.Truncated) // the long LL context and the 10-token prompt (8-4 = 4 kept)
	// What the model saw: left-truncated, with shifted split points.
	require.Len(t, m.LLSeen, 2)
	assert.Equal(t, tok.Encode("defghij"), m.LLSeen[0].Context) // (ctx+cont)[-9:]
	assert.Equal(t, 7, m.LLSeen[0].AttentionFrom)
	assert.Equal(t, tok.Encode("ab"), m.LLSeen[1].Context)
	assert.Equal(t, tok.Encode(" c"), m.LLSeen[1].Continuation)
	require.Len(t, m.GenSeen, 1)
	assert.Equal(t, tok.Encode("6789"), m.GenSeen[0].Context)
	assert.Equal(t, 3, m.GenSeen[0].AttentionFrom)
	// Attention tokens: LL1 runs 8 positions, 1 in attention; LL2 runs 3, 1; the generation runs 4+4-1 = 7
	// (the scripted "qq\nr" is cut to 4 tokens), 4 in attention.
	assert.Equal(t, int64(8+3+7), res.Tokens)
	assert.Equal(t, int64(1+1+4), res.AttentionTokens)
	assert.InDelta(t, 6.0/18, res.AttentionFraction, 1e-12)
	// Segments: LL1 context 7 (split 10 shifted by the 3 dropped tokens) and question 1; LL2 2 and 1; the
	// generation 3 and 1 and 3 generated tokens fed back; the mixed attention is exactly the question and
	// generated parts.
	assert.Equal(t, harness.Segments{ContextTokens: 12, QuestionTokens: 3, GeneratedTokens: 3, QuestionAttention: 3,
		GeneratedAttention: 3, AttentionKnown: true}, res.Segments)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 3) // one record per document
	ll0 := harness.PyFloatRepr(m.LogProb(tok.Encode("j")[0], tok.Encode("k")[0]) + m.LogProb(tok.Encode("k")[0], tok.Encode("l")[0]))
	docJSON := "{\n  \"text\": \"abcdefghij\"\n}"
	// lm-eval's on-disk record: str() of every response, the three hashes, the metric values, then ours.
	assert.Equal(t, `{"doc_id": 0, "doc": {"text": "abcdefghij"}, "target": "0", `+
		`"arguments": {"gen_args_0": {"arg_0": "abcdefghij", "arg_1": "kl"}}, `+
		`"resps": [[["`+ll0+`", "False"]]], "filtered_resps": [["`+ll0+`", "False"]], "filter": "none", "metrics": ["ll"], `+
		`"doc_hash": "`+harness.HashString(docJSON)+`", "prompt_hash": "`+harness.HashString("abcdefghij")+`", `+
		`"target_hash": "`+harness.HashString("0")+`", "ll": `+ll0+`, `+
		`"oryx": {"requests": [{"context_tokens": 7, "continuation_tokens": 2, "truncated": true, "attention_from": 7}]}}`, lines[0])
	assert.Equal(t, harness.HashString(harness.HashString(docJSON)+harness.HashString("abcdefghij")+harness.HashString("0")+hashesOf(t, lines[1:])), res.TaskHash)
	var g map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[2]), &g))
	assert.Equal(t, 2.0, g["doc_id"])
	assert.Nil(t, g["doc"]) // no harness.SampleDoc for it
	assert.Equal(t, map[string]any{"gen_args_0": map[string]any{"arg_0": "0123456789",
		"arg_1": map[string]any{"until": []any{"\n"}, "max_gen_toks": 4.0, "do_sample": false}}}, g["arguments"])
	assert.Equal(t, []any{[]any{"qq"}}, g["resps"]) // cut at "\n"
	assert.Equal(t, []any{"qq"}, g["filtered_resps"])
	assert.Equal(t, 1.0, g["contains"])

	// Not mixed: the model sees no split point (AttentionFrom at the end) and runs nothing in attention;
	// the segments still split the tokens by the task's split point.
	m2 := harnesstest.NewFakeModel(tok)
	m2.MaxLen = 8
	m2.Generate = m.Generate
	res2, err := harness.Run(m2, task, harness.Options{})
	require.NoError(t, err)
	assert.Equal(t, len(m2.LLSeen[0].Context)+len(m2.LLSeen[0].Continuation), m2.LLSeen[0].AttentionFrom)
	assert.Equal(t, len(m2.GenSeen[0].Context)+4, m2.GenSeen[0].AttentionFrom)
	assert.Equal(t, int64(0), res2.AttentionTokens)
	assert.Equal(t, harness.Segments{ContextTokens: 12, QuestionTokens: 3, GeneratedTokens: 3, AttentionKnown: true}, res2.Segments)
	assert.Contains(t, res.Summary(), "truncated 2")
}

// hashesOf concatenates the doc, prompt and target hashes of sample lines.
func hashesOf(t *testing.T, lines []string) string {
	var out string
	for _, l := range lines {
		var g map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &g))
		out += g["doc_hash"].(string) + g["prompt_hash"].(string) + g["target_hash"].(string)
	}
	return out
}

func TestRegistry(t *testing.T) {
	harness.Register("zz_toy_a", func(harness.Config) (harness.Task, error) { return toyTask{}, nil })
	harness.Register("zz_toy_b", func(harness.Config) (harness.Task, error) { return toyTask{}, nil })
	harness.RegisterGroup("zz_toys", "zz_toy_a", "zz_toy_b")
	assert.Panics(t, func() { harness.Register("zz_toy_a", nil) })
	names, err := harness.ParseTaskList("zz_toy_b, zz_toys")
	require.NoError(t, err)
	assert.Equal(t, []string{"zz_toy_b", "zz_toy_a"}, names)
	_, err = harness.Lookup("zz_nope", harness.Config{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown task "zz_nope"`)
	assert.Contains(t, err.Error(), "zz_toy_a, zz_toy_b")
	assert.Contains(t, err.Error(), "zz_toys (zz_toy_a,zz_toy_b)")
	_, err = harness.ParseTaskList("zz_toy_a,zz_nope")
	assert.ErrorContains(t, err, "known tasks")
	_, err = harness.ParseTaskList(" , ")
	assert.Error(t, err)
	ov, err := harness.ParsePathOverrides([]string{"zz_toy_a=/x/a.parquet,zz_toy_b=/y"})
	require.NoError(t, err)
	assert.Equal(t, "/x/a.parquet", harness.Config{DataRoot: "/r", Paths: ov}.Path("zz_toy_a", "a/b.parquet"))
	assert.Equal(t, "/r/a/b.parquet", harness.Config{DataRoot: "/r"}.Path("zz_toy_a", "a/b.parquet"))
	_, err = harness.ParsePathOverrides([]string{"zz_nope=/x"})
	assert.ErrorContains(t, err, "known tasks")
	_, err = harness.ParsePathOverrides([]string{"zz_toy_a"})
	assert.ErrorContains(t, err, "task=path")
}

// dataTask is toyTask reading its documents from a data path.
type dataTask struct {
	toyTask
	data string
}

func (d dataTask) Build(m harness.Model, opts harness.Options) (*harness.Plan, error) {
	p, err := d.toyTask.Build(m, opts)
	if err == nil {
		p.Data = d.data
	}
	return p, err
}

// TestRunStatesDataAbsolute: a task that read a relative path (a relative --data-root) states it absolute in
// its result (the results file's configs.data_file): relative to the working directory, which the file
// does not record, it named nothing.
func TestRunStatesDataAbsolute(t *testing.T) {
	m := harnesstest.NewFakeModel(tokenizers.NewByteTokenizer())
	wd, err := os.Getwd()
	require.NoError(t, err)
	for data, want := range map[string]string{"data/piqa/validation.parquet": filepath.Join(wd, "data/piqa/validation.parquet"),
		"/abs/piqa/*.parquet": "/abs/piqa/*.parquet", "": ""} {
		res, err := harness.Run(m, dataTask{toyTask{docs: [][2]string{{"ab", "c"}}}, data}, harness.Options{})
		require.NoError(t, err)
		assert.Equal(t, want, res.Data, data)
	}
}

func TestRequestedGroups(t *testing.T) {
	harness.RegisterGroup("toygroup", "toy")
	assert.Equal(t, []string{"toygroup"}, harness.RequestedGroups("toy, toygroup ,toy"))
	assert.Empty(t, harness.RequestedGroups("toy"), "a task named alone belongs to no group in the results file")
	assert.Contains(t, harness.RequestedGroups("all"), "toygroup")
}
