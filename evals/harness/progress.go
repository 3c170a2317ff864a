package harness

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// ProgressBar returns an Options.Progress function drawing a one-line bar on w ("\r"-rewritten, at most
// every interval, and always at 0 and at completion, which ends the line):
//
//	piqa loglikelihood [#########...........]  1712/3676  46.6%  412.3 req/s  eta 4s
//
// When w is not a terminal (a log file, CI), it writes plain lines instead, at most every 10 intervals.
func ProgressBar(w io.Writer, interval time.Duration) func(task, phase string, done, total int) {
	var mu sync.Mutex
	var last time.Time
	var start time.Time
	tty := isTerminal(w)
	if !tty {
		interval *= 10
	}
	return func(task, phase string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		if done == 0 {
			start = now
		}
		if done != 0 && done < total && now.Sub(last) < interval {
			return
		}
		last = now
		frac := 0.0
		if total > 0 {
			frac = float64(done) / float64(total)
		}
		const width = 20
		fill := int(frac * width)
		el := now.Sub(start).Seconds()
		rate, eta := 0.0, ""
		if el > 0 && done > 0 {
			rate = float64(done) / el
			eta = fmt.Sprintf("  eta %s", time.Duration(float64(total-done)/rate*float64(time.Second)).Round(time.Second))
		}
		lead, end := "\r", ""
		if !tty {
			lead, end = "", "\n"
		}
		fmt.Fprintf(w, "%s%s %s [%s%s] %6d/%d %5.1f%% %8.1f req/s%s", lead, task, phase,
			strings.Repeat("#", fill), strings.Repeat(".", width-fill), done, total, 100*frac, rate, eta)
		if done >= total {
			fmt.Fprintf(w, "  %.1fs\n", el)
		} else {
			fmt.Fprint(w, end)
		}
	}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
