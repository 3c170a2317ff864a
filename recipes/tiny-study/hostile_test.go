package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/recipes/train"
)

// TestQuickDecomposeKeepsLRDecay: --decompose --quick --lr-decay trains the quick decomposition with the
// cosine decay, in its own output directory. Before, --quick dropped --lr-decay without a word: the quick
// "decayed" decomposition ran at a constant learning rate into the constant one's directory.
func TestQuickDecomposeKeepsLRDecay(t *testing.T) {
	for _, lrDecay := range []bool{false, true} {
		args := []string{"--decompose", "--quick"}
		if lrDecay {
			args = append(args, "--lr-decay")
		}
		f, err := parseFlags(args, io.Discard)
		require.NoError(t, err)
		require.NoError(t, f.check())
		c, _, _, err := f.chooseConfig(io.Discard)
		require.NoError(t, err)
		require.True(t, c.Quick)
		if lrDecay {
			require.Equal(t, train.LRCosine, c.Train.LRSchedule)
			require.Equal(t, 0.1, c.Train.MinLRRatio)
			require.Equal(t, "runs/study-decompose-quick-lr", c.Out)
		} else {
			require.Equal(t, train.LRConstant, c.Train.LRSchedule)
			require.Equal(t, "runs/study-decompose-quick", c.Out)
		}
	}
}
