//go:build unix

package runwriter

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openDir opens the directory dir read-only, to lock it (O_DIRECTORY: anything else is refused).
func openDir(dir string) (*os.File, error) {
	return os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY, 0)
}

// linkCount is the number of names a file has (1 where it is unknown).
func linkCount(st fs.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Nlink)
	}
	return 1
}

// tryLock takes an exclusive flock on f without waiting; false when another open file holds it.
func tryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return false, err
	}
}
