// Package safefile opens the files the project reads and appends to so that a hostile path cannot hang it,
// exhaust its memory or make it write through a link: a FIFO, socket, device or directory where a regular
// file should be is refused before anything waits on it (opened non-blocking, then checked with fstat, so
// there is no window between a check and the open), a file is read whole only when this machine can hold it,
// and files the project opens for writing in place (the run directory's lock, metrics.jsonl) are opened
// without following a symbolic link planted at their path. Atomic writes (internal/atomicfile) need none of
// this: they write a fresh temporary file and rename it over the path, which replaces a link instead of
// following it.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/oryx-go/oryx/internal/guard"
)

// ErrNotRegular is wrapped by the errors of Open, ReadFile and CheckRegular for a path that is not a regular
// file.
var ErrNotRegular = errors.New("not a regular file")

// notRegular is the error for path, of mode m.
func notRegular(path string, m fs.FileMode) error {
	return fmt.Errorf("%s: %w (it is %s)", path, ErrNotRegular, Describe(m))
}

// Describe names the kind of file a mode is: "a directory", "a named pipe (FIFO)", ...
func Describe(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// Open opens path for reading; anything but a regular file (after following links) is refused without
// blocking: a FIFO with no writer would otherwise hang the open, a device never end a read.
func Open(path string) (*os.File, error) {
	f, err := openRead(path)
	if err != nil {
		return nil, err
	}
	return regularOnly(f, path)
}

// regularOnly returns f when it is a regular file, else closes it and returns the error naming what it is.
func regularOnly(f *os.File, path string) (*os.File, error) {
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, notRegular(path, st.Mode())
	}
	return f, nil
}

// CheckRegular returns nil when path is a regular file (after following links), an error wrapping
// fs.ErrNotExist when there is nothing there, and one wrapping ErrNotRegular otherwise. It is for files that
// another library opens (GoMLX's checkpoint files): a check before that open.
func CheckRegular(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return notRegular(path, st.Mode())
	}
	return nil
}

// ReadFile is os.ReadFile for a regular file whose size this machine can hold (guard.CheckMemory): a FIFO
// or device is refused (Open), and so is a file larger than the memory, before anything is read.
func ReadFile(path string) ([]byte, error) {
	return ReadFileMax(path, -1)
}

// ReadFileMax is ReadFile refusing a file of more than max bytes (max < 0: no bound but the memory's), with
// an error naming the file and both sizes.
func ReadFileMax(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if max >= 0 && size > max {
		return nil, fmt.Errorf("%s: %s is larger than the %s such a file can be", path, guard.HumanBytes(size), guard.HumanBytes(max))
	}
	// Read what is there, not what Stat said: the file may change under us; never past max. The buffer is
	// sized once from Stat (one byte more, to see a file that grew): io.ReadAll's growth by reallocation
	// held about twice the file while it read.
	limit := size + 1
	if max >= 0 {
		limit = min(limit, max+1)
	}
	if err := guard.CheckMemory("reading "+path, limit); err != nil {
		return nil, err
	}
	data := make([]byte, limit)
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	data = data[:n]
	if max >= 0 && int64(len(data)) > max {
		return nil, fmt.Errorf("%s: grew past the %s such a file can be while it was read", path, guard.HumanBytes(max))
	}
	return data, nil
}

// OpenAppend opens an existing regular file for appending without following a symbolic link at path (the
// link itself is refused: a link planted in a run directory must not redirect the project's writes).
func OpenAppend(path string) (*os.File, error) {
	return OpenNoFollow(path, os.O_WRONLY|os.O_APPEND, 0)
}

// OpenNoFollow opens path with flag (os.O_RDWR|os.O_CREATE, ...) and perm, refusing a symbolic link at path
// and anything but a regular file, without blocking on a FIFO.
func OpenNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := openNoFollow(path, flag, perm)
	if err != nil {
		if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s: is a symbolic link; refusing to write through it (remove it)", path)
		}
		return nil, err
	}
	return regularOnly(f, path)
}
