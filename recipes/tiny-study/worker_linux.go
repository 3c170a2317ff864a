package main

import (
	"os/exec"
	"runtime"
	"syscall"
)

// dieWithParent makes the worker process receive SIGTERM when the study's process dies, however it dies (kill
// -9 included): the worker saves its checkpoint and exits instead of training on as an orphan that holds its
// run directory's lock (a rerun then failed on it). Linux delivers the signal when the thread that started
// the child exits, so the caller keeps its goroutine on that thread until the child is waited for: the
// returned function unlocks it.
func dieWithParent(cmd *exec.Cmd) (unlock func()) {
	runtime.LockOSThread()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	return runtime.UnlockOSThread
}
