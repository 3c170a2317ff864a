package runwriter

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/rundir"
)

// The test binary doubles as a lock holder: with RUNLOCK_HOLD=DIR it takes DIR's lock, says "held" and
// waits to be killed.
func TestMain(m *testing.M) {
	if dir := os.Getenv("RUNLOCK_HOLD"); dir != "" {
		if _, err := acquireLock(dir, "holder", os.Stderr); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("held")
		select {}
	}
	os.Exit(m.Run())
}

func TestSecondAcquireRefused(t *testing.T) {
	dir := t.TempDir()
	l, err := acquireLock(dir, "first", nil)
	require.NoError(t, err)
	_, err = acquireLock(dir, "second", nil)
	require.ErrorIs(t, err, ErrBusy)
	require.ErrorContains(t, err, dir)
	require.ErrorContains(t, err, fmt.Sprintf("process %d", os.Getpid()))
	require.ErrorContains(t, err, "(first)")
	require.NoError(t, l.release())
	require.NoFileExists(t, filepath.Join(dir, rundir.LockFile))
	require.NoError(t, l.release(), "a second release does nothing")

	l2, err := acquireLock(dir, "third", nil)
	require.NoError(t, err, "free again after release")
	require.NoError(t, l2.release())
}

// TestStaleLockTakenOver: a lock file whose process died (killed with SIGKILL, no clean-up) is taken over,
// with a message naming the dead holder; while it lived, the lock was refused.
func TestStaleLockTakenOver(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run", "^$")
	cmd.Env = append(os.Environ(), "RUNLOCK_HOLD="+dir)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "held\n", line)

	_, err = acquireLock(dir, "me", nil)
	require.ErrorIs(t, err, ErrBusy)
	require.ErrorContains(t, err, fmt.Sprintf("process %d", cmd.Process.Pid))

	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	require.FileExists(t, filepath.Join(dir, rundir.LockFile), "SIGKILL leaves the lock file behind")
	var log bytes.Buffer
	l, err := acquireLock(dir, "me", &log)
	require.NoError(t, err)
	defer l.release()
	require.Contains(t, log.String(), "taking over the stale lock of process "+fmt.Sprint(cmd.Process.Pid))
	data, err := os.ReadFile(filepath.Join(dir, rundir.LockFile))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(data), fmt.Sprintf("pid %d\n", os.Getpid())), string(data))
}

func TestMissingDirectory(t *testing.T) {
	_, err := acquireLock(filepath.Join(t.TempDir(), "nope"), "x", nil)
	require.Error(t, err)
	require.False(t, errors.Is(err, ErrBusy))
	require.ErrorContains(t, err, "opening it to lock it")
}

// TestLockRefusesPlantedLink: a symbolic link planted at the lock's path is refused and its target is left
// as it was (it used to be truncated and overwritten with the lock record).
func TestLockRefusesPlantedLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "precious.txt")
	require.NoError(t, os.WriteFile(target, []byte("keep me"), 0o644))
	require.NoError(t, os.Symlink(target, filepath.Join(dir, rundir.LockFile)))
	_, err := acquireLock(dir, "test", nil)
	require.ErrorContains(t, err, "symbolic link")
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "keep me", string(b))
}

// TestLockRefusesPlantedHardLink: a hard link planted at the lock's path (a second name of a file elsewhere)
// is refused and the file is left as it was: O_NOFOLLOW guarded symbolic links only, and `oryx init --out
// RUN` overwrote the linked file with the lock record.
func TestLockRefusesPlantedHardLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "precious.txt")
	require.NoError(t, os.WriteFile(target, []byte("keep me"), 0o644))
	require.NoError(t, os.Link(target, filepath.Join(dir, rundir.LockFile)))
	_, err := acquireLock(dir, "test", nil)
	require.ErrorContains(t, err, "hard link")
	require.ErrorContains(t, err, filepath.Join(dir, rundir.LockFile))
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "keep me", string(b))
}

// TestLockSurvivesRemovingTheLockFile: removing the lock file (the path the refusal names) while a holder
// runs does not let a second writer in — the lock is on the directory — neither in this process nor in
// another; the holder still releases cleanly, and then the directory is free.
func TestLockSurvivesRemovingTheLockFile(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run", "^$")
	cmd.Env = append(os.Environ(), "RUNLOCK_HOLD="+dir)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "held\n", line)

	require.NoError(t, os.Remove(filepath.Join(dir, rundir.LockFile)))
	_, err = acquireLock(dir, "second trainer", nil)
	require.ErrorIs(t, err, ErrBusy, "a second writer got in once the lock file was removed")
	require.ErrorContains(t, err, dir)

	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	a, err := acquireLock(dir, "A", nil)
	require.NoError(t, err, "free once the holder died")
	require.NoError(t, os.Remove(filepath.Join(dir, rundir.LockFile)))
	_, err = acquireLock(dir, "B", nil)
	require.ErrorIs(t, err, ErrBusy, "in one process too")
	require.NoError(t, a.release(), "releasing after the lock file went")
	b, err := acquireLock(dir, "B", nil)
	require.NoError(t, err)
	require.NoError(t, b.release())
}
