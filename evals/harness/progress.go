package harness

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/oryx-go/oryx/internal/progress"
)

// ProgressBar returns an Options.Progress function drawing a one-line bar on w (internal/progress: redrawn in
// place at most every interval, and always at 0 and at completion, which ends the line):
//
//	piqa loglikelihood [#########...........]  1712/3676  46.6%  412.3 req/s  eta 4s
//
// When w is not a terminal (a log file, CI), it writes plain lines instead, at most every 10 intervals.
func ProgressBar(w io.Writer, interval time.Duration) func(task, phase string, done, total int) {
	var mu sync.Mutex
	var start time.Time
	r := progress.New(w, progress.Options{Interval: interval, LogInterval: 10 * interval})
	return func(task, phase string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		if done == 0 {
			start = now
		}
		r.Update(float64(done), float64(total), done == 0 || done >= total, func() string {
			frac := 0.0
			if total > 0 {
				frac = float64(done) / float64(total)
			}
			el := now.Sub(start)
			rate, eta := 0.0, ""
			if s := el.Seconds(); s > 0 && done > 0 {
				rate = float64(done) / s
				eta = fmt.Sprintf("  eta %s", progress.Remaining(el, float64(done), float64(total-done)).Round(time.Second))
			}
			line := fmt.Sprintf("%s %s [%s] %6d/%d %5.1f%% %8.1f req/s%s", task, phase, progress.Bar(frac, 20, "#", "."),
				done, total, 100*frac, rate, eta)
			if done >= total {
				line += fmt.Sprintf("  %.1fs", el.Seconds())
			}
			return line
		})
		if done >= total {
			r.Finish()
		}
	}
}
