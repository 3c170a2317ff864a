// Package progress is the project's one progress reporter, used by training (recipes/train), evaluation
// (evals/harness) and `oryx tokenize`. On a terminal it redraws one line in place ("\r" + text + "\033[K")
// at most every Interval, with messages printed above it without breaking it; anywhere else (a log file,
// CI, a pipe) it writes whole lines only — at most one every LogInterval, and/or one each time another
// 1/LogSteps of the work is done — so that logs stay line-oriented and short. Callers render their own text
// (Bar, Remaining and internal/human help); the reporter decides when and how it is written.
package progress

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"
)

// IsTerminal reports whether w is a terminal (a character device): the project's one test for whether to
// draw bars and in-place progress.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Mode says whether a Reporter draws for a terminal.
type Mode int

const (
	Auto     Mode = iota // a terminal when IsTerminal(w)
	Terminal             // redraw one line in place
	Log                  // whole lines only
)

// Options configure a Reporter; the zero value is Auto with the defaults below.
type Options struct {
	Mode Mode
	// Interval is the least time between two redraws on a terminal (default 200 ms).
	Interval time.Duration
	// LogInterval is the least time between two lines elsewhere (default 10 s; < 0: no lines by time). The
	// first update writes a line when lines come by time.
	LogInterval time.Duration
	// LogSteps > 0 also writes a line elsewhere each time another 1/LogSteps of the work is done (10: a line
	// at every 10 %).
	LogSteps int
	// Now is the clock (default time.Now), for tests.
	Now func() time.Time
}

// Reporter writes progress to one writer. It is safe for concurrent use.
type Reporter struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	o     Options
	last  time.Time // the last redraw or line
	drawn bool      // a bar is on the terminal's current line
	step  int       // the last LogSteps step written
}

// New returns a Reporter writing to w.
func New(w io.Writer, o Options) *Reporter {
	if o.Interval <= 0 {
		o.Interval = 200 * time.Millisecond
	}
	if o.LogInterval == 0 {
		o.LogInterval = 10 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	tty := o.Mode == Terminal || (o.Mode == Auto && IsTerminal(w))
	return &Reporter{w: w, tty: tty, o: o}
}

// Terminal reports whether the reporter draws for a terminal.
func (r *Reporter) Terminal() bool { return r.tty }

// Update reports that done of total units of work are done. When something is due — on a terminal: the
// first update, one after a Message, or Interval since the last redraw; elsewhere: LogInterval since the
// last line, or another LogSteps step — it calls line for the text and writes it; force writes in any case
// (e.g. the start and the end of the work). line is called only when the text is written.
func (r *Reporter) Update(done, total float64, force bool, line func() string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.o.Now()
	if r.tty {
		if force || !r.drawn || now.Sub(r.last) >= r.o.Interval {
			r.last, r.drawn = now, true
			fmt.Fprintf(r.w, "\r%s\033[K", line())
		}
		return
	}
	step := r.step
	if r.o.LogSteps > 0 && total > 0 {
		step = int(math.Floor(done * float64(r.o.LogSteps) / total))
	}
	byTime := r.o.LogInterval > 0 && now.Sub(r.last) >= r.o.LogInterval
	if force || byTime || step > r.step {
		r.last, r.step = now, max(step, r.step)
		fmt.Fprintln(r.w, line())
	}
}

// Message writes a line of its own (a newline is added). On a terminal it replaces the bar's line; the next
// Update draws the bar again below it.
func (r *Reporter) Message(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tty && r.drawn {
		fmt.Fprint(r.w, "\r\033[K")
		r.drawn = false
	}
	fmt.Fprintf(r.w, format+"\n", args...)
}

// Finish ends the bar's line on a terminal, leaving its last state on screen; elsewhere every line is
// complete already and it writes nothing. A later Update starts a new bar (and a new LogSteps count).
func (r *Reporter) Finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tty && r.drawn {
		fmt.Fprintln(r.w)
	}
	r.drawn, r.step = false, 0
}

// Bar is a bar of width cells with frac (clamped to [0, 1]) of them filled:
// Bar(0.45, 20, "#", ".") is "#########...........".
func Bar(frac float64, width int, fill, empty string) string {
	n := int(min(max(frac, 0), 1) * float64(width))
	return strings.Repeat(fill, n) + strings.Repeat(empty, width-n)
}

// Remaining estimates the time left from the time elapsed while done units of work were done, with left
// units to go (0 when nothing is done yet).
func Remaining(elapsed time.Duration, done, left float64) time.Duration {
	if done <= 0 || left <= 0 {
		return 0
	}
	return time.Duration(float64(elapsed) / done * left)
}
