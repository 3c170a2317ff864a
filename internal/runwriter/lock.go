package runwriter

// One writer per run directory: an advisory lock file, DIR/.oryx.lock, held for the life of the process that
// trains into (or initialises) DIR. Without it two runs started at the same moment on one --out both succeed
// and leave a directory that mixes them (run.json and the training curve of one, validation and weights of
// the other).
//
// The lock is flock(2) on the file (Unix): the kernel drops it when the process dies, however it dies, so a
// lock file left by a killed run is recognised as stale — its process no longer holds the lock — and taken
// over with a message. The file records the holder (pid, host, command, start time) for the refusal message.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/internal/safefile"
)

// heldLock is a held run-directory lock.
type heldLock struct {
	f    *os.File
	path string
}

// ErrBusy is wrapped by acquireLock's error when another live process holds the directory.
var ErrBusy = errors.New("run directory in use")

// acquireLock locks dir (which must exist) for this process. It fails at once, without waiting, when another
// process holds the lock: the error wraps ErrBusy and names the directory and the holder. A stale lock file
// (its process died without releasing it) is taken over, and a line saying so goes to log (nil: discarded).
// what describes this process in the lock file (e.g. the command name).
func acquireLock(dir, what string, log io.Writer) (*heldLock, error) {
	path := filepath.Join(dir, rundir.LockFile)
	for attempt := 0; ; attempt++ {
		// Never through a link planted at the lock's path (its target would be truncated), never a FIFO.
		f, err := safefile.OpenNoFollow(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("run directory %s: creating the lock file: %w", dir, err)
		}
		held, err := tryLock(f)
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("run directory %s: locking %s: %w", dir, path, err)
		}
		prev := readHolder(f)
		if !held {
			_ = f.Close()
			return nil, fmt.Errorf("%w: %s is being written by %s; wait for it to finish or use another output directory "+
				"(the lock is %s)", ErrBusy, dir, prev.describe(), path)
		}
		// The holder may have removed the file between our open and our lock (release): then we hold the lock
		// of an unlinked file, and must retry on the path's current file.
		if same, err := samePath(f, path); err != nil || !same {
			_ = f.Close()
			if attempt < 10 {
				continue
			}
			return nil, fmt.Errorf("run directory %s: the lock file keeps changing under us", dir)
		}
		if prev.pid != 0 && log != nil {
			fmt.Fprintf(log, "run directory %s: taking over the stale lock of %s (that process no longer holds it; "+
				"it probably died)\n", dir, prev.describe())
		}
		host, _ := os.Hostname()
		rec := fmt.Sprintf("pid %d\nhost %s\ncommand %s\nstarted %s\n", os.Getpid(), host, oneLine(what),
			time.Now().UTC().Format(time.RFC3339))
		// The record only serves the refusal message of another process: writing it is best effort.
		if f.Truncate(0) == nil {
			_, _ = f.WriteAt([]byte(rec), 0)
		}
		return &heldLock{f: f, path: path}, nil
	}
}

// release removes the lock file and drops the lock. Calling it again does nothing.
func (l *heldLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := os.Remove(l.path) // while still holding the lock: a waiter that opened it retries (samePath)
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

// readHolder parses the lock file's record; an empty or unreadable file gives the zero holder.
func readHolder(f *os.File) holder {
	buf := make([]byte, 4096)
	n, _ := f.ReadAt(buf, 0)
	var h holder
	for _, line := range strings.Split(string(buf[:n]), "\n") {
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

// samePath tells whether the open file f is the file now at path.
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
