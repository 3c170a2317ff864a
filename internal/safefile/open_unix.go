//go:build unix

package safefile

import (
	"io/fs"
	"os"
	"syscall"
)

// openRead opens path read-only and non-blocking: on a FIFO without a writer the open returns at once (a
// blocking open would wait for a writer forever); regular files ignore the flag.
func openRead(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// openNoFollow opens path without following a final symbolic link (O_NOFOLLOW: the open fails on one) and
// without blocking on a FIFO.
func openNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
}
