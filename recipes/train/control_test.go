package train

import (
	"errors"
	"os"
	"syscall"
)

// testControl is the control tests run a training under (train(r, &testControl{...})): stop as if killed
// after stopAfter steps in this process (0: never), the loss scale of a step (nil: the configured one; e.g.
// NaN for a non-finite step), SIGTERM once step interruptAt is done (0: never). No OS signal reaches it.
type testControl struct {
	stopAfter   int
	lossScaleAt func(step int) float64
	interruptAt int
	signals     chan<- os.Signal
}

// errSimulatedKill ends a run early (stopAfter), as a kill would, without saving.
var errSimulatedKill = errors.New("simulated kill")

func (c *testControl) lossScale(step int, configured float64) float64 {
	if c.lossScaleAt == nil {
		return configured
	}
	return c.lossScaleAt(step)
}

func (c *testControl) notify(ch chan<- os.Signal) { c.signals = ch }
func (c *testControl) stop(chan<- os.Signal)      { c.signals = nil }

func (c *testControl) afterStep(step, stepsHere int, final bool) error {
	if c.interruptAt > 0 && step == c.interruptAt {
		c.signals <- syscall.SIGTERM // as a signal is delivered: the run sees it at its signal check
	}
	if !final && c.stopAfter > 0 && stepsHere >= c.stopAfter {
		return errSimulatedKill
	}
	return nil
}
