// Package clitest runs a command's real main function in a child process, for tests that feed commands
// hostile input and check what a user sees: the exit code, the message, and never a Go panic or runtime
// fatal error. The test binary itself is the command: its TestMain calls RunMainIfChild first, so nothing is
// built and no toolchain is needed.
//
//	func TestMain(m *testing.M) { clitest.RunMainIfChild("oryx", main); os.Exit(m.Run()) }
package clitest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

const childEnv = "ORYX_CLITEST_MAIN"

// RunMainIfChild runs main as the command name when this process was started by Run, then exits 0 (main
// exits with its own code on failure); otherwise it returns at once.
func RunMainIfChild(name string, main func()) {
	if os.Getenv(childEnv) != "1" {
		return
	}
	os.Args = append([]string{name}, os.Args[1:]...)
	main()
	os.Exit(0)
}

// Result is what a command run gave.
type Result struct {
	Args   []string
	Code   int
	Output string // stdout and stderr together
}

// Start starts the command with args (extra environment in env, "K=V") without waiting.
func Start(t testing.TB, dir string, env []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), childEnv+"=1"), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// Wait waits for a command started by Start (at most timeout) and returns its result.
func Wait(t testing.TB, cmd *exec.Cmd, out *bytes.Buffer, timeout time.Duration) Result {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%v: still running after %v (output so far: %s)", cmd.Args[1:], timeout, out.String())
	}
	res := Result{Args: cmd.Args[1:], Output: out.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		t.Fatalf("%v: %v", res.Args, err)
	}
	return res
}

// Run runs the command with args to completion (at most two minutes).
func Run(t testing.TB, env []string, args ...string) Result {
	t.Helper()
	cmd, out := Start(t, "", env, args...)
	return Wait(t, cmd, out, 2*time.Minute)
}

// Check asserts the exit code, that the output has no Go panic or runtime fatal error, and that it contains
// every wanted text (the flag, field or file the message must name).
func (r Result) Check(t testing.TB, code int, want ...string) {
	t.Helper()
	if r.Code != code {
		t.Errorf("%q: exit code %d, want %d; output:\n%s", r.Args, r.Code, code, r.Output)
	}
	for _, bad := range []string{"panic:", "fatal error:", "goroutine "} {
		if strings.Contains(r.Output, bad) {
			t.Errorf("%q: the output has %q:\n%s", r.Args, bad, r.Output)
		}
	}
	for _, w := range want {
		if !strings.Contains(r.Output, w) {
			t.Errorf("%q: the output does not contain %q:\n%s", r.Args, w, r.Output)
		}
	}
}

// RunUnderMemoryLimit is Run with the child's address space limited to limitKiB (sh's `ulimit -v`,
// RLIMIT_AS), for tests that a command's memory stays bounded, or that its memory guard refuses work before
// allocating it. It skips the test where there is no sh.
func RunUnderMemoryLimit(t testing.TB, limitKiB int64, args ...string) Result {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh for ulimit")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh, append([]string{"-c", `ulimit -v ` + strconv.FormatInt(limitKiB, 10) + ` && exec "$0" "$@"`, exe}, args...)...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	res := Wait(t, cmd, &out, 2*time.Minute)
	res.Args = args
	return res
}
