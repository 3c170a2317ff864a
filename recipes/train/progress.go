package train

import (
	"fmt"
	"io"
	"time"

	"github.com/oryx-go/oryx/internal/progress"
)

// trainProgress is the training loop's progress (internal/progress): on a terminal a bar with the step, a
// status text and the ETA, redrawn in place; elsewhere (CI logs) a plain line every 10 s and at the end:
//
//	██████████··············  41.7% 125/300  loss 2.1043  lr 3.00e-03  1.2k tok/s  ETA 2m5s
//	step 125/300 (41.7%)  loss 2.1043  lr 3.00e-03  1.2k tok/s  ETA 2m5s
type trainProgress struct {
	r       *progress.Reporter
	total   int
	start   time.Time
	startAt int
}

func newProgress(w io.Writer, total, startAt int) *trainProgress {
	return &trainProgress{r: progress.New(w, progress.Options{}), total: total, start: time.Now(), startAt: startAt}
}

// update shows step (completed) of total with a status text; force draws even within the interval.
func (p *trainProgress) update(step int, status string, force bool) {
	p.r.Update(float64(step), float64(p.total), force, func() string {
		eta := "?"
		if done := step - p.startAt; done > 0 {
			eta = progress.Remaining(time.Since(p.start), float64(done), float64(p.total-step)).Round(time.Second).String()
		}
		frac := float64(step) / float64(max(p.total, 1))
		if p.r.Terminal() {
			return fmt.Sprintf("%s %5.1f%% %d/%d  %s  ETA %s", progress.Bar(frac, 24, "█", "·"), 100*frac, step, p.total, status, eta)
		}
		return fmt.Sprintf("step %d/%d (%.1f%%)  %s  ETA %s", step, p.total, 100*frac, status, eta)
	})
}

// done ends the bar's line on a terminal.
func (p *trainProgress) done() { p.r.Finish() }

// message prints a line without breaking the bar.
func (p *trainProgress) message(format string, args ...any) { p.r.Message(format, args...) }
