package recipe

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress draws a one-line progress bar with rate and ETA on a terminal, or a plain line every interval
// when the output is not a terminal (CI logs).
type progress struct {
	w        io.Writer
	tty      bool
	total    int
	start    time.Time
	startAt  int
	last     time.Time
	interval time.Duration
}

func newProgress(w io.Writer, total, startAt int) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	iv := 10 * time.Second
	if tty {
		iv = 200 * time.Millisecond
	}
	return &progress{w: w, tty: tty, total: total, start: time.Now(), startAt: startAt, interval: iv}
}

// update shows step (completed) of total with a status text; force draws even within the interval.
func (p *progress) update(step int, status string, force bool) {
	now := time.Now()
	if !force && now.Sub(p.last) < p.interval {
		return
	}
	p.last = now
	done := step - p.startAt
	eta := "?"
	if done > 0 {
		rem := time.Duration(float64(now.Sub(p.start)) / float64(done) * float64(p.total-step))
		eta = rem.Round(time.Second).String()
	}
	frac := float64(step) / float64(max(p.total, 1))
	if p.tty {
		const width = 24
		n := int(frac * width)
		bar := strings.Repeat("█", n) + strings.Repeat("·", width-n)
		fmt.Fprintf(p.w, "\r\033[K%s %5.1f%% %d/%d  %s  ETA %s", bar, 100*frac, step, p.total, status, eta)
	} else {
		fmt.Fprintf(p.w, "step %d/%d (%.1f%%)  %s  ETA %s\n", step, p.total, 100*frac, status, eta)
	}
}

// done ends the bar's line on a terminal.
func (p *progress) done() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

// message prints a line without breaking the bar.
func (p *progress) message(format string, args ...any) {
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}
