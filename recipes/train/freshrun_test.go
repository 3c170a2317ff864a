package train

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/oryx"
)

// TestFreshRunsAreIdentical: one configuration trained twice from scratch on the same backend — once in this
// process, once in a child process with its own backend client that compiles its graphs again (-short on XLA:
// loads them from the compilation cache) — gives the same loss at every step, bit for bit, and the same weights. Every number the project
// publishes rests on this: a rerun that differs is a determinism regression, whereas a code change that moves
// a run is a new trajectory (docs/determinism.md). Oryx-TG draws its block-random mode schedule too.
func TestFreshRunsAreIdentical(t *testing.T) {
	const steps = 4
	here := t.TempDir()
	r := tinyRun(t, oryx.OryxTG, here)
	r.Train.Steps, r.Train.CheckpointEvery, r.Train.EvalBatches = steps, steps, 0 // the child's settings
	_, err := Train(r)
	require.NoError(t, err)

	there := t.TempDir()
	cmd := childTraining(there, oryx.OryxTG, steps, steps)
	if !testing.Short() {
		// XLA: no executable from the suite's compilation cache (internal/backend's CacheEnvVar; the last value
		// wins), so the child compiles its graphs again. The -short XLA suite lets the child load them (as a
		// rerun with the user's cache does): a fresh process and backend client, without a minute of compiling.
		cmd.Env = append(cmd.Env, "ORYX_XLA_CACHE=off")
	}
	outp, err := cmd.CombinedOutput()
	require.NoError(t, err, "child training:\n%s", outp)
	require.NotContains(t, string(outp), "resuming", "the child trained from scratch")

	losses := trainLosses(t, here)
	require.Len(t, losses, steps)
	require.Equal(t, losses, trainLosses(t, there), "losses of two fresh runs (this process, a child process)")
	requireSameWeights(t, here, there)
}
