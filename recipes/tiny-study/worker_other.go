//go:build !linux

package main

import "os/exec"

// dieWithParent has no parent-death signal outside Linux: the worker notices its parent's death only when
// writing its log fails.
func dieWithParent(cmd *exec.Cmd) (unlock func()) { return func() {} }
