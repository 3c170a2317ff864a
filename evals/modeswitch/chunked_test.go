package modeswitch

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/oryx"
)

// TestCurvesChunkedMatchDense: the per-position losses of the mode-switch curves are the same with the
// chunked scorer (1 MiB: several time chunks, and vocabulary chunks at batch 16) as with the dense logits.
func TestCurvesChunkedMatchDense(t *testing.T) {
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	cfg.Vocab = 320
	m, err := oryx.New(cfg)
	require.NoError(t, err)
	ctx := context.New()
	rng := rand.New(rand.NewPCG(2, 2))
	seqs := make([][]int32, 5)
	for i := range seqs {
		for range 81 {
			seqs[i] = append(seqs[i], int32(rng.IntN(256)))
		}
	}
	dense, err := oryxlm.New(m, ctx, tokenizers.NewByteTokenizer(), oryxlm.Options{Batch: 3, DenseScoring: true})
	require.NoError(t, err)
	want, err := Run(dense, seqs, 40)
	require.NoError(t, err)
	for _, batch := range []int{3, 16} {
		lm, err := oryxlm.New(m, ctx, tokenizers.NewByteTokenizer(), oryxlm.Options{Batch: batch, ScoreMemMB: 1})
		require.NoError(t, err)
		got, err := Run(lm, seqs, 40)
		require.NoError(t, err)
		for name, w := range want.Loss {
			for p := range w {
				// Float32 per-position scores averaged in float64.
				require.LessOrEqual(t, math.Abs(got.Loss[name][p]-w[p]), 1e-5*math.Abs(w[p]), "batch %d %s position %d", batch, name, p)
			}
		}
		require.Equal(t, want.Recovery, got.Recovery)
	}
}
