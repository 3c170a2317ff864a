//go:build !unix

package runwriter

import (
	"errors"
	"io/fs"
	"os"
)

// openDir opens the directory dir read-only, to lock it.
func openDir(dir string) (*os.File, error) { return os.Open(dir) }

// linkCount: no link count here; 1.
func linkCount(fs.FileInfo) uint64 { return 1 }

// tryLock: without flock there is no lock that dies with its process; refuse rather than risk a mixed run
// directory.
func tryLock(f *os.File) (bool, error) {
	return false, errors.New("run-directory locks need a Unix system (flock)")
}
