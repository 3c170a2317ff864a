package train

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/oryx"
)

// TestValidationDoesNotChangeTraining: how often a run validates does not change its training — the same
// losses step by step and the same final weights with validation every 3 steps, every 2 and never — and, with
// the constant learning-rate schedule, a longer run's first steps are exactly the shorter run, on the mixture
// the study trains on. The study's budgets rely on both: study-scale validates every 50 steps where the main job
// validates every 25, and reads the main job's 700-step budget from the first 700 steps of 1,050-step runs.
func TestValidationDoesNotChangeTraining(t *testing.T) {
	tmp := t.TempDir()
	run := func(name string, every, steps int) string {
		r := tinyRun(t, oryx.OryxTG, filepath.Join(tmp, name))
		r.Data.Spec, r.Train.SeqLen = "mix:synth=1,mqar=2,needle=1,pairs=8", 128
		r.Train.LRSchedule, r.Train.EvalEvery, r.Train.Steps = LRConstant, every, steps
		if every == 0 {
			r.Train.EvalBatches = 0
		}
		_, err := Train(r)
		require.NoError(t, err)
		return r.Out
	}
	every3, every2, never, longer := run("every3", 3, 6), run("every2", 2, 6), run("never", 0, 6), run("longer", 3, 9)
	require.Equal(t, trainLosses(t, every3), trainLosses(t, every2))
	require.Equal(t, trainLosses(t, every3), trainLosses(t, never))
	require.Equal(t, trainLosses(t, every3), trainLosses(t, longer)[:6], "a 9-step run's first 6 steps are the 6-step run")
	requireSameWeights(t, every3, every2)
	requireSameWeights(t, every3, never)
}
