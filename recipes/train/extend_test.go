package train

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/oryx"
)

// TestExtendConstantLRRun: with a constant learning rate after warm-up a finished run continues to more steps
// and ends exactly where a run of that many steps from scratch ends (losses and weights); a cosine-decayed
// run, whose every step's rate depends on the total, is refused; a run beyond the asked steps is refused
// instead of being taken for a shorter one.
func TestExtendConstantLRRun(t *testing.T) {
	constant := func(out string, steps int) Run {
		r := tinyRun(t, oryx.OryxTG, out)
		r.Train.LRSchedule, r.Train.Steps = LRConstant, steps
		return r
	}
	full := t.TempDir()
	_, err := Train(constant(full, 6))
	require.NoError(t, err)

	ext := t.TempDir()
	_, err = Train(constant(ext, 4))
	require.NoError(t, err)
	s, err := Train(constant(ext, 6))
	require.NoError(t, err)
	require.Equal(t, 4, s.ResumedAt)
	require.Equal(t, trainLosses(t, full), trainLosses(t, ext))
	requireSameWeights(t, full, ext)

	_, err = Train(constant(ext, 4))
	require.ErrorContains(t, err, "beyond --steps 4")

	cos := t.TempDir()
	r := tinyRun(t, oryx.OryxTG, cos)
	r.Train.Steps = 4
	_, err = Train(r)
	require.NoError(t, err)
	r.Train.Steps = 6
	_, err = Train(r)
	require.ErrorContains(t, err, "steps: 4 vs 6")
}
