package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// parentEnv makes the test binary play the study's parent: it starts a long-lived worker (sleep) through
// dieWithParent, prints the worker's pid and waits to be killed.
const parentEnv = "ORYX_TINY_STUDY_TEST_PARENT"

func init() {
	if os.Getenv(parentEnv) == "" {
		return
	}
	cmd := exec.Command("sleep", "120")
	unlock := dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(cmd.Process.Pid)
	_ = cmd.Wait()
	unlock()
	os.Exit(0)
}

// TestWorkerDiesWithParent runs the exact case: kill -9 of the study's process; its worker used to train on
// as an orphan (and the rerun failed on that run's lock). The worker now gets SIGTERM at once.
func TestWorkerDiesWithParent(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	parent := exec.Command(self, "-test.run=^$")
	parent.Env = append(os.Environ(), parentEnv+"=1")
	out, err := parent.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, parent.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	pid, err := strconv.Atoi(line[:len(line)-1])
	require.NoError(t, err, line)
	require.NoError(t, syscall.Kill(pid, 0), "the worker runs")
	require.NoError(t, parent.Process.Signal(syscall.SIGKILL))
	_ = parent.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		// A zombie (reparented, not yet reaped) still answers signal 0: read its state.
		if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && len(st) > 0 && containsState(string(st), 'Z') {
			break
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the worker %d outlived its parent by 10 s", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// containsState reports whether a /proc/PID/stat line's state field (after the command in parentheses) is s.
func containsState(stat string, s byte) bool {
	for i := len(stat) - 1; i >= 0; i-- {
		if stat[i] == ')' {
			return i+2 < len(stat) && stat[i+2] == s
		}
	}
	return false
}
