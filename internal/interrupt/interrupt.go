// Package interrupt is how the project's commands stop cleanly: a context cancelled by the first SIGINT or
// SIGTERM (the library code under them saves what is done and returns an error wrapping context.Canceled),
// and the shell's exit status for it. A second signal kills the process as usual, so a stuck save can
// still be interrupted.
package interrupt

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// ExitCode is the exit status of a command stopped by SIGINT (128 + 2, as a shell reports it).
const ExitCode = 130

// Context returns a child of parent cancelled by the first SIGINT or SIGTERM; after it, the signals have
// their default effect again. Call stop to release the signal handler.
func Context(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	ctx, stop = signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the next signal kills
	}()
	return ctx, stop
}

// Is reports whether err says the work was interrupted (a cancelled or expired context, or one of extra,
// e.g. the trainer's ErrInterrupted).
func Is(err error, extra ...error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	for _, e := range extra {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
