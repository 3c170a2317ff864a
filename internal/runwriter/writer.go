// Package runwriter is the one way into a run directory for writing: Open claims the directory (it must be a
// run directory, or absent, empty, or hold none of a run directory's names: internal/claim), creates it, takes
// its lock (one writer per directory: lock.go) and removes what killed saves left behind (leftovers.go).
// Training (recipes/train), `oryx init`, `oryx import` and checkpoint saving (oryx.SaveCheckpoint, which
// refuses to save without an open Writer) all go through it — the trainer and the commands by
// oryx.OpenCheckpointDir, its public face — so none of them can write into a directory another process is
// writing, or into another command's output without --force.
//
// Every cleanup here removes only the exact names the run directory's writers give their files (the names
// are internal/rundir's): a user's "checkpoint-backup/" or "notes.json.tmp-1" beside a run is never touched.
package runwriter

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gomlx/gomlx/pkg/ml/context/checkpoints"

	"github.com/oryx-go/oryx/internal/claim"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/internal/safefile"
)

// Options say who opens a run directory.
type Options struct {
	// Flag names the directory in messages: the flag it came from ("--out", "init: --out").
	Flag string
	// Command is what this process is (a recipe's name, "oryx init"): the lock file records it for the message
	// a refused second writer gets.
	Command string
	// Force writes into a directory that holds another command's output (claim.Dir refuses it otherwise).
	Force bool
	// Log receives what Open did besides taking the lock: the leftovers it removed, a stale lock it took over
	// (nil: discarded).
	Log io.Writer
}

// Writer is an open run directory: this process is its one writer until Close.
type Writer struct {
	dir     string
	lock    *heldLock
	created bool // Open created dir: Close removes it again if nothing was written there
}

// Open makes this process the one writer of the run directory dir. In order: it claims dir for a run
// directory (claim.Dir: refused when it is another command's output, unless o.Force), creates it, takes its
// lock (refused at once, naming the holder, while another live process holds it; the error wraps ErrBusy) and
// removes the leftovers of killed saves (saying so on o.Log). Every error names o.Flag and the directory.
func Open(dir string, o Options) (*Writer, error) {
	flag := o.Flag
	if flag == "" {
		flag = "run directory"
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if err := claim.Dir(flag, dir, claim.RunDir, o.Force); err != nil {
		return nil, err
	}
	_, err := os.Lstat(dir)
	created := errors.Is(err, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	l, err := acquireLock(dir, o.Command, o.Log)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	// Nothing else can be writing here now, so every temporary file of ours is a leftover of a killed process.
	removed, err := cleanLeftovers(dir)
	if err != nil {
		_ = l.release()
		return nil, fmt.Errorf("%s: removing leftovers of interrupted saves in %s: %w", flag, dir, err)
	}
	if len(removed) > 0 {
		fmt.Fprintf(o.Log, "%s: removed %d leftover(s) of interrupted saves (no complete checkpoint uses them): %s\n",
			dir, len(removed), strings.Join(removed, ", "))
	}
	return &Writer{dir: dir, lock: l, created: created}, nil
}

// Dir is the run directory.
func (w *Writer) Dir() string { return w.dir }

// ErrNotOpen is wrapped by Check's error for a nil or closed Writer.
var ErrNotOpen = errors.New("the run directory is not open for writing")

// Check returns nil while w is open (Open, before Close), else an error wrapping ErrNotOpen: the writers that
// take a Writer (oryx.SaveCheckpoint) refuse to write without one.
func (w *Writer) Check() error {
	if w == nil {
		return fmt.Errorf("%w (no writer: open it with runwriter.Open or oryx.OpenCheckpointDir)", ErrNotOpen)
	}
	if w.lock == nil || w.lock.f == nil {
		return fmt.Errorf("%s: %w (its writer was closed)", w.dir, ErrNotOpen)
	}
	return nil
}

// Close drops the lock (and removes the lock file). A directory that Open created and that is empty now (the
// writer failed before writing anything: an import of a refused export) is removed, so a refused command
// leaves nothing behind. Calling Close again does nothing.
func (w *Writer) Close() error {
	if w == nil || w.lock == nil || w.lock.f == nil {
		return nil
	}
	err := w.lock.release()
	if w.created {
		_ = os.Remove(w.dir) // fails, as it should, unless the directory is empty
	}
	return err
}

// RemoveRun removes what a training run wrote into the directory, for a retrain: its checkpoints
// (rundir.IsCheckpointFile), trainer states (rundir.IsStateFile), metrics.jsonl, curves.png and
// summary.json — those exact names and regular files only. Everything else stays: config.json, run.json and
// the tokenizer copy (rewritten by the new run), and whatever else is there ("checkpoint-backup/", a
// "trainer-state-mine.json"). An entry with one of those names that is not a regular file (a folder, a link)
// is not the run's: it is refused, naming it.
func (w *Writer) RemoveRun() error {
	if err := w.Check(); err != nil {
		return err
	}
	entries, err := os.ReadDir(w.dir)
	if err != nil {
		return err
	}
	var remove []string
	for _, e := range entries {
		n := e.Name()
		_, _, ckpt := rundir.IsCheckpointFile(n)
		if !ckpt && !rundir.IsStateFile(n) && n != rundir.MetricsFile && n != rundir.SummaryFile && n != rundir.CurvesFile {
			continue
		}
		if !e.Type().IsRegular() {
			return fmt.Errorf("retraining %s: %s is %s, not a file the run wrote: refusing to remove it (move it away "+
				"or use another run directory)", w.dir, filepath.Join(w.dir, n), safefile.Describe(e.Type()))
		}
		remove = append(remove, n)
	}
	// The .json files first: a checkpoint stops being listed before its data goes, so a kill part-way through
	// leaves no listed checkpoint without its data (a .bin left alone is a leftover Open removes).
	for _, jsonPass := range []bool{true, false} {
		for _, n := range remove {
			if strings.HasSuffix(n, checkpoints.JsonNameSuffix) != jsonPass {
				continue
			}
			if err := os.Remove(filepath.Join(w.dir, n)); err != nil {
				return fmt.Errorf("retraining %s: %w", w.dir, err)
			}
		}
	}
	return nil
}
