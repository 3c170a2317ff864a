package mqar

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/oryx"
)

// TestChunkedMatchesDense: MQAR accuracies (greedy predictions at the query positions) are the same with the
// chunked scorer (1 MiB: time chunks at batch 3, vocabulary chunks at batch 16) as with the dense logits.
func TestChunkedMatchesDense(t *testing.T) {
	cfg, err := oryx.Preset("tiny", oryx.OryxTM)
	require.NoError(t, err)
	cfg.Vocab = 320
	m, err := oryx.New(cfg)
	require.NoError(t, err)
	ctx := context.New()
	task := datasets.MQARConfig{Vocab: 64, SeqLen: 96, NumPairs: 6, Seed: 4}
	dense, err := oryxlm.New(m, ctx, tokenizers.NewByteTokenizer(), oryxlm.Options{Batch: 3, DenseScoring: true})
	require.NoError(t, err)
	want, err := Evaluate(dense, task, 7, 0)
	require.NoError(t, err)
	for _, batch := range []int{3, 16} {
		lm, err := oryxlm.New(m, ctx, tokenizers.NewByteTokenizer(), oryxlm.Options{Batch: batch, ScoreMemMB: 1})
		require.NoError(t, err)
		got, err := Evaluate(lm, task, 7, 0)
		require.NoError(t, err)
		require.Equal(t, want, got, "batch %d", batch)
	}
}
