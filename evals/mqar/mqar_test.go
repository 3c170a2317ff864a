package mqar

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/internal/testutil/tinymodel"
	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/require"
)

func TestEvaluateRandomModel(t *testing.T) {
	m := tinymodel.New(t, oryx.OryxTM)
	lm, err := oryxlm.New(m, context.New(), tokenizers.NewByteTokenizer(), oryxlm.Options{Batch: 4})
	require.NoError(t, err)
	task := datasets.MQARConfig{Vocab: 64, SeqLen: 64, NumPairs: 4, Seed: 9}
	res, err := Evaluate(lm, task, 6, 0)
	require.NoError(t, err)
	require.Len(t, res, 3)
	for _, r := range res {
		require.Equal(t, 24, r.Queries)
		require.Less(t, r.Accuracy, 0.5, "a random model does not recall")
	}
	require.InDelta(t, 4.0/64, res[2].AttentionFraction, 1e-9, "mixed: only the 4 query keys of 64 tokens")
	require.Equal(t, 1.0, res[0].AttentionFraction)
	_, err = Evaluate(lm, datasets.MQARConfig{Vocab: 1024, SeqLen: 64, NumPairs: 4}, 2, 0)
	require.ErrorContains(t, err, "exceed")
	_, err = Evaluate(lm, datasets.MQARConfig{Vocab: 128, SeqLen: 64, NumPairs: 4}, 2, 256)
	require.ErrorContains(t, err, "exceed")
	res, err = Evaluate(lm, datasets.MQARConfig{Vocab: 128, SeqLen: 64, NumPairs: 4}, 2, 128)
	require.NoError(t, err)
	require.Equal(t, 8, res[0].Queries)
}
