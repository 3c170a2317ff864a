package niahtask

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/harness/harnesstest"
)

func lookup(t *testing.T, params map[string]string) harness.Task {
	task, err := harness.Lookup("niah_single_1", harness.Config{DataRoot: t.TempDir(), Params: params})
	require.NoError(t, err)
	return task
}

func TestNoiseTaskEndToEnd(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	m := harnesstest.NewFakeModel(tok)
	res, err := harness.Run(m, lookup(t, map[string]string{ParamLengths: "1024", ParamSamples: "3", ParamWords: "embedded"}), harness.Options{Mixed: true})
	require.NoError(t, err)
	require.Equal(t, 3, res.Metrics["score"].N)
	require.Contains(t, res.Metrics, "score@1024")
	assert.Equal(t, 3, res.Docs)
	assert.Equal(t, 3, res.TotalDocs)
	assert.Contains(t, res.Notes[len(res.Notes)-1], "embedded word lists")
	require.Greater(t, res.AttentionFraction, 0.0)
	// Mixed: the question, the answer prefix and the (up to 128) generated tokens in attention, the haystack not.
	require.Less(t, res.AttentionFraction, 0.5)
	s := res.Segments
	assert.True(t, s.AttentionKnown)
	assert.Equal(t, int64(0), s.ContextAttention)
	assert.Equal(t, s.QuestionTokens, s.QuestionAttention)
	assert.Equal(t, s.GeneratedTokens, s.GeneratedAttention)
	assert.Equal(t, res.Tokens, s.ContextTokens+s.QuestionTokens+s.GeneratedTokens)

	// --limit: fewer samples scored, the total stays the protocol's (1 length × 500).
	res, err = harness.Run(m, lookup(t, map[string]string{ParamLengths: "1024", ParamWords: "embedded"}), harness.Options{Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Docs)
	assert.Equal(t, 500, res.TotalDocs)
}

func TestDepthSweep(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	m := harnesstest.NewFakeModel(tok)
	// The fake model repeats the prompt's last token: it never finds the needle, so every score is 0.
	res, err := harness.Run(m, lookup(t, map[string]string{ParamLengths: "1024", ParamSamples: "2", ParamWords: "embedded",
		ParamDepths: "0, 50,100"}), harness.Options{})
	require.NoError(t, err)
	assert.Equal(t, 6, res.Docs) // 2 samples × 3 depths
	for _, k := range []string{"score@d0", "score@d50", "score@d100"} {
		require.Contains(t, res.Metrics, k)
		assert.Equal(t, 2, res.Metrics[k].N, k)
		assert.Equal(t, 0.0, res.Metrics[k].Value, k)
	}
	// A model that answers with the needle's value scores 1 (a fraction, not RULER's percent).
	task := lookup(t, map[string]string{ParamLengths: "1024", ParamSamples: "1", ParamWords: "embedded", ParamDepths: "25"})
	plan, err := task.Build(m, harness.Options{})
	require.NoError(t, err)
	answer := plan.Gen[0].Labels[0]
	m.Generate = func(string) string { return " " + answer + "." }
	res, err = harness.Run(m, task, harness.Options{})
	require.NoError(t, err)
	assert.Equal(t, 1.0, res.Metrics["score@d25"].Value)
	assert.Equal(t, 1.0, res.Metrics["score"].Value)
}

func TestBadOptions(t *testing.T) {
	m := harnesstest.NewFakeModel(tokenizers.NewByteTokenizer())
	cases := map[string]map[string]string{
		"ruler_words/words.parquet is missing": {ParamLengths: "1024"},
		"niah.words=embedded":                  {ParamLengths: "1024"},
		`niah.words "x"`:                       {ParamWords: "x"},
		"niah.lengths":                         {ParamLengths: "x", ParamWords: "embedded"},
		"niah.samples":                         {ParamSamples: "0", ParamWords: "embedded"},
		"niah.depths":                          {ParamDepths: "101", ParamWords: "embedded"},
		"given twice":                          {ParamDepths: "5,5", ParamWords: "embedded"},
		"niah.fit":                             {ParamFit: "loose", ParamWords: "embedded"},
		"raise --max-length":                   {ParamLengths: "4096", ParamWords: "embedded"},
	}
	for want, params := range cases {
		_, err := harness.Run(m, lookup(t, params), harness.Options{})
		assert.ErrorContains(t, err, want, want)
	}
	// Check fails before any model: the lengths against the max length.
	c, ok := lookup(t, map[string]string{ParamWords: "embedded"}).(harness.Checker)
	require.True(t, ok)
	assert.ErrorContains(t, c.Check(4096), "target length 8192 exceeds the max length 4096")
	assert.NoError(t, c.Check(8192))
}

func TestUnknownParamRefused(t *testing.T) {
	_, err := harness.ParseParams([]string{"niah.lenghts=1024"})
	assert.ErrorContains(t, err, `unknown param "niah.lenghts"`)
	assert.ErrorContains(t, err, "niah.lengths:")
	p, err := harness.ParseParams([]string{"niah.lengths= 1024,2048"})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"niah.lengths": "1024,2048"}, p)
	_, err = harness.ParseParams([]string{"niah.lengths"})
	assert.ErrorContains(t, err, "want key=value")
}
