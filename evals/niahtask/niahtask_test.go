package niahtask

import (
	"testing"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/harness/harnesstest"
	"github.com/stretchr/testify/require"
)

func TestNoiseTaskEndToEnd(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	m := harnesstest.NewFakeModel(tok)
	task, err := harness.Lookup("niah_single_1", harness.Config{Params: map[string]string{"niah.lengths": "1024", "niah.samples": "3"}})
	require.NoError(t, err)
	res, err := harness.Run(m, task, harness.Options{Mixed: true})
	require.NoError(t, err)
	require.Equal(t, 3, res.Metrics["score"].N)
	require.Contains(t, res.Metrics, "score@1024")
	require.Greater(t, res.AttentionFraction, 0.0)
	// Mixed: the question, the answer prefix and the (up to 128) generated tokens in attention, the haystack not.
	require.Less(t, res.AttentionFraction, 0.5)

	task, err = harness.Lookup("niah_single_1", harness.Config{Params: map[string]string{"niah.lengths": "4096"}})
	require.NoError(t, err)
	_, err = harness.Run(m, task, harness.Options{})
	require.ErrorContains(t, err, "max length")
	_, err = harness.Lookup("niah_single_1", harness.Config{Params: map[string]string{"niah.lengths": "x"}})
	if err == nil {
		task, _ := harness.Lookup("niah_single_1", harness.Config{Params: map[string]string{"niah.lengths": "x"}})
		_, err = harness.Run(m, task, harness.Options{})
	}
	require.ErrorContains(t, err, "niah.lengths")
}
