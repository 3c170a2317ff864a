package harness

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// ProgressBar returns an Options.Progress function drawing a one-line bar on w ("\r"-rewritten, at most
// every interval, and always at 0 and at completion, which ends the line):
//
//	piqa loglikelihood [#########...........]  1712/3676  46.6%  412.3 req/s  eta 4s
func ProgressBar(w io.Writer, interval time.Duration) func(task, phase string, done, total int) {
	var mu sync.Mutex
	var last time.Time
	var start time.Time
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
		fmt.Fprintf(w, "\r%s %s [%s%s] %6d/%d %5.1f%% %8.1f req/s%s", task, phase,
			strings.Repeat("#", fill), strings.Repeat(".", width-fill), done, total, 100*frac, rate, eta)
		if done >= total {
			fmt.Fprintf(w, "  %.1fs\n", el)
		}
	}
}
