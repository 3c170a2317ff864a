package oryxlm

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/oryx"
)

// TestGenerateUntilLongPromptShortAnswer: a batch whose longest prompt has the smallest MaxTokens and whose
// short prompt the largest gets a KV cache for the longest prompt + the largest MaxTokens (a row that has
// stopped is fed until the last row ends), and generates what each request generates alone. Before, the
// capacity followed each row's own prompt + MaxTokens (here 250 + 2 → 256 rows) and the long row's cache
// overran while the short one went on: the evaluation failed with "the KV cache of row 0 is full".
func TestGenerateUntilLongPromptShortAnswer(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	reqs := []harness.GenRequest{
		{Context: tok.Encode(strings.Repeat("long context ", 20)[:250]), AttentionFrom: 200, MaxTokens: 2},
		{Context: tok.Encode("hi"), AttentionFrom: 0, MaxTokens: 20},
	}
	run := func(batch int) ([]harness.GenResult, string) {
		var log strings.Builder
		lm, _, _ := tinyModel(t, oryx.OryxTG, Options{Schedule: Mixed, Batch: batch, Log: &log})
		res, err := lm.GenerateUntil(reqs, nil)
		require.NoError(t, err, "batch %d", batch)
		return res, log.String()
	}
	alone, _ := run(1)
	together, log := run(2)
	require.Equal(t, alone, together)
	require.Contains(t, log, "generation batch 2 (of --batch 2): prompts up to 250 tokens, KV capacity 512")
}
