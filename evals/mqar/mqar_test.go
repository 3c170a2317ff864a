package mqar

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

func TestEvaluateRandomModel(t *testing.T) {
	m := oryxtest.TinyModel(t, oryx.OryxTM)
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

// TestSwitch: the switched schedules read the pairs (the first 2P positions) in one mode and the rest in
// the other; their accuracy is what the model's greedy predictions under exactly those modes give.
func TestSwitch(t *testing.T) {
	m := oryxtest.TinyModel(t, oryx.OryxTG)
	lm, err := oryxlm.New(m, context.New(), tokenizers.NewByteTokenizer(), oryxlm.Options{Batch: 4})
	require.NoError(t, err)
	task := datasets.MQARConfig{Vocab: 64, SeqLen: 64, NumPairs: 4, Seed: 9}
	res, err := Switch(lm, task, 6, 0)
	require.NoError(t, err)
	require.Len(t, res, 2)
	require.Equal(t, AttentionToLinear, res[0].Schedule)
	require.InDelta(t, 8.0/64, res[0].AttentionFraction, 1e-12)
	require.InDelta(t, 56.0/64, res[1].AttentionFraction, 1e-12)
	ex, err := datasets.GenerateMQAR(task, 6)
	require.NoError(t, err)
	seqs := make([][]int32, len(ex))
	modes := make([][]oryx.Mode, len(ex))
	for i, e := range ex {
		seqs[i] = e.Tokens
		modes[i] = make([]oryx.Mode, 64)
		for j := 8; j < 64; j++ {
			modes[i][j] = oryx.Attention // linear→attention
		}
	}
	_, greedy, err := lm.TokenScores(seqs, modes)
	require.NoError(t, err)
	correct, n := 0, 0
	for i, e := range ex {
		for _, q := range e.QueryPositions {
			n++
			if greedy[i][q] {
				correct++
			}
		}
	}
	require.Equal(t, n, res[1].Queries)
	require.Equal(t, float64(correct)/float64(n), res[1].Accuracy)
	_, err = Switch(func() *oryxlm.Model {
		l, err := oryxlm.New(oryxtest.TinyModel(t, oryx.Transformer), context.New(), tokenizers.NewByteTokenizer(), oryxlm.Options{Batch: 4})
		require.NoError(t, err)
		return l
	}(), task, 2, 0)
	require.ErrorContains(t, err, "multi-mixer")
}
