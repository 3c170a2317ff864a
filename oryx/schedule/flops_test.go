package schedule

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/oryx"
)

func TestScheduleFLOPs(t *testing.T) {
	c, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	const T = 64
	few, err := parseSchedule("attention-last:4", 1, T, 0)
	require.NoError(t, err)
	dense, gathered := ScheduleFLOPs(c, few, 0, false), ScheduleFLOPs(c, few, 0, true)
	assert.InDelta(t, T*oryx.FLOPsPerToken(c, T, 0.5), dense, 1e-6) // both readouts for every token
	assert.Less(t, gathered, dense, "gathering 4 of 64 attention tokens must cost less")
	// The saving is the dense core and W_QA on the 60 linear tokens.
	perToken := 2*float64(c.DModel*c.Heads*c.KeyDim) + oryx.AttentionCoreFLOPs(c, T, nil)/float64(c.Layers)/T
	assert.InDelta(t, float64(c.Layers)*60*perToken, dense-gathered, 1e-3)
	none, err := parseSchedule("linear", 1, T, 0)
	require.NoError(t, err)
	assert.InDelta(t, T*oryx.FLOPsPerToken(c, T, 0), ScheduleFLOPs(c, none, 0, true), 1e-3)
	assert.Less(t, ScheduleFLOPs(c, none, 0, true), gathered)
	all, err := parseSchedule("attention", 1, T, 0)
	require.NoError(t, err)
	assert.InDelta(t, ScheduleFLOPs(c, all, 0, false), ScheduleFLOPs(c, all, 0, true), 1e-3)
}
