package train

import "errors"

// testHooks step into a run (Run's hooks): stop as if killed after stopAfter steps in this process (0:
// never), the loss scale of a step (nil: the configured one; e.g. NaN for a non-finite step), SIGTERM once
// step interruptAt is done (0: never).
type testHooks struct {
	stopAfter   int
	lossScaleAt func(step int) float64
	interruptAt int
}

// errSimulatedKill ends a run early (stopAfter), as a kill would, without saving.
var errSimulatedKill = errors.New("simulated kill")

func (h testHooks) lossScale(step int, configured float64) float64 {
	if h.lossScaleAt == nil {
		return configured
	}
	return h.lossScaleAt(step)
}

func (h testHooks) signalAfter(step int) bool { return h.interruptAt > 0 && step == h.interruptAt }

func (h testHooks) killAfter(_, stepsHere int) error {
	if h.stopAfter > 0 && stepsHere >= h.stopAfter {
		return errSimulatedKill
	}
	return nil
}
