package train

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/oryx"
)

// TestValidationDoesNotChangeTraining: how often a run validates (and whether it probes) does not change its
// training — the same losses step by step and the same final weights with validation every 3 steps, every 2
// and never, on the mixture the study trains on. The study's budgets rely on it (study-scale validates every
// 50 steps where the main job validates every 25, and reads the main job's budget from its own runs).
func TestValidationDoesNotChangeTraining(t *testing.T) {
	tmp := t.TempDir()
	var dirs []string
	for i, every := range []int{3, 2, 0} {
		r := tinyRun(t, oryx.OryxTG, filepath.Join(tmp, string(rune('a'+i))))
		r.Data.Spec, r.Train.SeqLen = "mix:synth=1,mqar=2,needle=1,pairs=8", 128
		r.Train.EvalEvery = every
		if every == 0 {
			r.Train.EvalBatches = 0
		}
		_, err := Train(r)
		require.NoError(t, err)
		dirs = append(dirs, r.Out)
	}
	require.Equal(t, trainLosses(t, dirs[0]), trainLosses(t, dirs[1]))
	require.Equal(t, trainLosses(t, dirs[0]), trainLosses(t, dirs[2]))
	requireSameWeights(t, dirs[0], dirs[1])
	requireSameWeights(t, dirs[0], dirs[2])
}
