package train

import (
	"os"
	"os/signal"
	"syscall"
)

// control steers a run from outside its loop: the loss scale of each step, the interrupt signals, and what
// happens once a step is done. Train runs under the operating system's (osControl); tests inject their own
// (control_test.go) to make a step non-finite, deliver a signal after a chosen step, or stop as a kill would.
type control interface {
	// lossScale is the loss scale of step (configured: TrainConfig.LossScale).
	lossScale(step int, configured float64) float64
	// notify starts delivering SIGINT and SIGTERM to c; stop ends it.
	notify(c chan<- os.Signal)
	stop(c chan<- os.Signal)
	// afterStep is told when step is done (stepsHere of them in this process; final: the last of the run),
	// its validation and checkpoint written, before the signal check. An error ends the run at once, without
	// saving, as a kill would.
	afterStep(step, stepsHere int, final bool) error
}

// osControl is Train's control: the configured loss scale, the process's SIGINT and SIGTERM, nothing after a
// step.
type osControl struct{}

func (osControl) lossScale(_ int, configured float64) float64 { return configured }
func (osControl) notify(c chan<- os.Signal)                   { signal.Notify(c, os.Interrupt, syscall.SIGTERM) }
func (osControl) stop(c chan<- os.Signal)                     { signal.Stop(c) }
func (osControl) afterStep(int, int, bool) error              { return nil }
