// Package cli is what the project's commands (cmd/oryx, evals, the recipes, tiny-study) share about how
// they end: a usage error — a mistake in the command line — exits 2, as the flag package's own
// ExitOnError does; an interrupted run (SIGINT, internal/interrupt) exits 130; any other failure of the
// work exits 1; -h/--help exits 0.
//
// A command parses its flags with Parse (a flag that is unknown or whose value does not parse becomes a
// UsageError), returns Usagef for the checks it makes on the command line itself (an unexpected argument,
// a missing required flag, a value out of range or not one of the choices), and ends main with Exit.
// What a command finds wrong in files, data, models or the machine is an ordinary error (exit 1).
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/oryx-go/oryx/internal/interrupt"
)

// Exit statuses.
const (
	ExitFailure = 1                  // the work failed
	ExitUsage   = 2                  // the command line is wrong
	ExitSignal  = interrupt.ExitCode // interrupted (130)
)

// UsageError is a mistake in the command line. Its message is Err's.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError whose message is fmt.Errorf(format, args...) (so %w wraps).
func Usagef(format string, args ...any) error { return &UsageError{fmt.Errorf(format, args...)} }

// Usage marks err as a usage error; nil stays nil, and so does flag.ErrHelp (not an error to the user).
func Usage(err error) error {
	if err == nil || errors.Is(err, flag.ErrHelp) || IsUsage(err) {
		return err
	}
	return &UsageError{err}
}

// IsUsage reports whether err is, or wraps, a UsageError.
func IsUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}

// Parse parses args with fs (made with flag.ContinueOnError, which prints the error and the usage to the
// set's output): a parse error is returned as a UsageError, -h/--help as flag.ErrHelp.
func Parse(fs *flag.FlagSet, args []string) error {
	return Usage(fs.Parse(args))
}

// ExitCode is the exit status for err, a command's result: 0 for nil and flag.ErrHelp, ExitUsage for a
// usage error, ExitSignal for an interruption (interrupt.Is with interrupted, e.g. the trainer's
// ErrInterrupted), ExitFailure otherwise.
func ExitCode(err error, interrupted ...error) int {
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return 0
	case IsUsage(err):
		return ExitUsage
	case interrupt.Is(err, interrupted...):
		return ExitSignal
	}
	return ExitFailure
}

// Report writes "name: err" to w unless err is nil or flag.ErrHelp, and returns ExitCode(err, interrupted...).
func Report(w io.Writer, name string, err error, interrupted ...error) int {
	code := ExitCode(err, interrupted...)
	if err != nil && code != 0 {
		fmt.Fprintf(w, "%s: %v\n", name, err)
	}
	return code
}

// Exit ends a command's main with err: it reports a non-nil err on stderr as "name: err" and exits with
// ExitCode; for nil and flag.ErrHelp it returns (main then ends with status 0).
func Exit(name string, err error, interrupted ...error) {
	if code := Report(os.Stderr, name, err, interrupted...); code != 0 {
		os.Exit(code)
	}
}
