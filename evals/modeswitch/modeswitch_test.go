package modeswitch

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

func TestCurves(t *testing.T) {
	m := oryxtest.TinyModel(t, oryx.OryxTG)
	lm, err := oryxlm.New(m, context.New(), tokenizers.NewByteTokenizer(), oryxlm.Options{Batch: 4})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 1))
	seqs := make([][]int32, 6)
	for i := range seqs {
		seqs[i] = make([]int32, 49)
		for j := range seqs[i] {
			seqs[i][j] = int32(rng.IntN(256))
		}
	}
	c, err := Run(lm, seqs, 20)
	require.NoError(t, err)
	require.Len(t, c.Loss, 4)
	// Before the switch a switched curve is its first mode's curve (causality), after it not.
	require.InDeltaSlice(t, c.Loss[Attention][:20], c.Loss[AttentionToLinear][:20], 1e-5)
	require.InDeltaSlice(t, c.Loss[Linear][:20], c.Loss[LinearToAttention][:20], 1e-5)
	require.NotEqual(t, c.Loss[Attention][30], c.Loss[AttentionToLinear][30])
	require.Contains(t, c.Recovery, AttentionToLinear)
	dir := t.TempDir()
	require.NoError(t, c.WriteJSON(filepath.Join(dir, "c.json")))
	require.NoError(t, c.WritePNG(filepath.Join(dir, "c.png"), "test"))
	_, err = Run(lm, seqs, 48)
	require.ErrorContains(t, err, "inside the sequence")
}

func TestRecovery(t *testing.T) {
	pure := make([]float64, 40)
	sw := make([]float64, 40)
	for i := range pure {
		pure[i] = 2
		sw[i] = 2
	}
	for i := 10; i < 15; i++ { // a transient of 5 tokens after a switch at 10
		sw[i] = 3
	}
	require.Equal(t, 5, recovery(sw, pure, 10, 0.02, 1))
	require.Equal(t, 0, recovery(pure, pure, 10, 0.02, 4))
	sw[39] = 3 // never settles
	require.Equal(t, -1, recovery(sw, pure, 10, 0.02, 1))
}
