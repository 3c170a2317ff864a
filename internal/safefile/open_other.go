//go:build !unix

package safefile

import (
	"fmt"
	"io/fs"
	"os"
)

// openRead checks path before opening it (without O_NONBLOCK a check is all there is).
func openRead(path string) (*os.File, error) {
	if err := CheckRegular(path); err != nil {
		return nil, err
	}
	return os.Open(path)
}

// openNoFollow refuses a symbolic link at path, then opens it.
func openNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s: is a symbolic link", path)
	}
	return os.OpenFile(path, flag, perm)
}
