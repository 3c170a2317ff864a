//go:build !unix

package runwriter

import (
	"errors"
	"os"
)

// tryLock: without flock there is no lock that dies with its process; refuse rather than risk a mixed run
// directory.
func tryLock(f *os.File) (bool, error) {
	return false, errors.New("run-directory locks need a Unix system (flock)")
}
