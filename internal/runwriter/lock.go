package runwriter

// One writer per run directory: an advisory lock on the directory itself, held for the life of the process
// that trains into (or initialises) DIR. Without it two runs started at the same moment on one --out both
// succeed and leave a directory that mixes them (run.json and the training curve of one, validation and
// weights of the other).
//
// The lock is flock(2) on the directory (Unix), opened read-only: the kernel drops it when the process dies,
// however it dies, and nobody can remove it while it is held — it used to be a flock on the file
// DIR/.oryx.lock, and removing that file (the path the refusal names) let a second trainer in beside the
// first. The file DIR/.oryx.lock stays as a marker for people and for the refusal message: it records the
// holder (pid, host, command, start time). It is written whole to a temporary file and renamed into place,
// never opened for writing, so a link planted at its path cannot redirect the write; a symbolic link, a hard
// link (a name shared with another file) or anything but a regular file there is refused. A marker left by
// a killed run is recognised as stale — the directory's lock is free — and replaced with a message.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/internal/safefile"
)

// heldLock is a held run-directory lock: the locked directory and the marker file's path.
type heldLock struct {
	f    *os.File // the directory, flocked
	path string   // DIR/.oryx.lock
}

// ErrBusy is wrapped by acquireLock's error when another live process holds the directory.
var ErrBusy = errors.New("run directory in use")

// acquireLock locks dir (which must exist) for this process. It fails at once, without waiting, when another
// process holds the lock: the error wraps ErrBusy and names the directory and the holder. A stale marker (its
// process died without releasing the lock) is replaced, and a line saying so goes to log (nil: discarded).
// what describes this process in the marker (e.g. the command name).
func acquireLock(dir, what string, log io.Writer) (*heldLock, error) {
	path := filepath.Join(dir, rundir.LockFile)
	for attempt := 0; ; attempt++ {
		d, err := openDir(dir)
		if err != nil {
			return nil, fmt.Errorf("run directory %s: opening it to lock it: %w", dir, err)
		}
		held, err := tryLock(d)
		if err != nil {
			_ = d.Close()
			return nil, fmt.Errorf("run directory %s: locking it: %w", dir, err)
		}
		prev := readHolder(path)
		if !held {
			_ = d.Close()
			return nil, fmt.Errorf("%w: %s is being written by %s; wait for it to finish or use another output directory "+
				"(the lock is held on the directory itself; %s names its holder)", ErrBusy, dir, prev.describe(), path)
		}
		// The holder may have removed the directory between our open and our lock (a refused command removes
		// the empty directory it created): then we hold the lock of a directory that is gone, and must retry on
		// the path's current one.
		if same, err := samePath(d, dir); err != nil || !same {
			_ = d.Close()
			if attempt < 10 {
				continue
			}
			return nil, fmt.Errorf("run directory %s: the directory keeps changing under us", dir)
		}
		if err := checkMarker(path); err != nil {
			_ = d.Close()
			return nil, fmt.Errorf("run directory %s: %w", dir, err)
		}
		if prev.pid != 0 && log != nil {
			fmt.Fprintf(log, "run directory %s: taking over the stale lock of %s (that process no longer holds it; "+
				"it probably died)\n", dir, prev.describe())
		}
		host, _ := os.Hostname()
		rec := fmt.Sprintf("pid %d\nhost %s\ncommand %s\nstarted %s\n", os.Getpid(), host, oneLine(what),
			time.Now().UTC().Format(time.RFC3339))
		// The record only serves people and the refusal message of another process: writing it is best
		// effort. A new file renamed over the path: whatever was there is replaced, never written into.
		_ = atomicfile.WriteFile(path, []byte(rec))
		return &heldLock{f: d, path: path}, nil
	}
}

// checkMarker refuses what may not stand at the marker's path: a symbolic link, a hard link (a file with
// another name too, which the old lock truncated and overwrote) or anything but a regular file. Nothing there
// is fine.
func checkMarker(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link; refusing to write through it (remove it)", path)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s: %w (it is %s; remove it)", path, safefile.ErrNotRegular, safefile.Describe(st.Mode()))
	}
	if n := linkCount(st); n > 1 {
		return fmt.Errorf("%s is a hard link (the file has %d names); refusing to write through it (remove it)", path, n)
	}
	return nil
}

// release removes the marker and drops the lock. Calling it again does nothing.
func (l *heldLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := os.Remove(l.path) // while still holding the lock: the next holder writes its own
	if errors.Is(err, fs.ErrNotExist) {
		err = nil // someone removed the marker: the lock held regardless
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// holder is what a lock file says about its process.
type holder struct {
	pid           int
	host, command string
	started       string
}

func (h holder) describe() string {
	if h.pid == 0 {
		return "another process"
	}
	s := "process " + strconv.Itoa(h.pid)
	if h.host != "" {
		s += " on " + h.host
	}
	if h.command != "" {
		s += " (" + h.command + ")"
	}
	if h.started != "" {
		s += ", started " + h.started
	}
	return s
}

// readHolder parses the marker's record; a missing, empty, unreadable or oversized marker gives the zero
// holder. It is opened read-only and never waited on (safefile: a FIFO there is refused at once).
func readHolder(path string) holder {
	data, err := safefile.ReadFileMax(path, 4096)
	if err != nil {
		return holder{}
	}
	var h holder
	for _, line := range strings.Split(string(data), "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "pid":
			h.pid, _ = strconv.Atoi(v)
		case "host":
			h.host = v
		case "command":
			h.command = v
		case "started":
			h.started = v
		}
	}
	return h
}

// samePath tells whether the open file f is the file (or directory) now at path.
func samePath(f *os.File, path string) (bool, error) {
	a, err := f.Stat()
	if err != nil {
		return false, err
	}
	b, err := os.Lstat(path)
	if err != nil {
		return false, nil
	}
	return os.SameFile(a, b), nil
}

func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}
