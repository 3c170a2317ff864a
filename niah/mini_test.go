package niah

import (
	"testing"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/stretchr/testify/require"
)

func TestScoreMini(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	for _, d := range []float64{0, 0.5, 1} {
		s, err := datasets.GenerateMiniNeedle(tok, 128, d, 1, 3)
		require.NoError(t, err)
		require.Equal(t, 1.0, ScoreMini(s, " "+s.Value+"."))
		require.Equal(t, 1.0, ScoreMini(s, "THE MAGIC NUMBER IS "+s.Value), "case-insensitive substring, as RULER")
		require.Equal(t, 0.0, ScoreMini(s, " 12"))
	}
}
