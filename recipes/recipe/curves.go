package recipe

import (
	"math"
	"path/filepath"

	"github.com/oryx-go/oryx/internal/plot"
	"github.com/oryx-go/oryx/internal/rundir"
)

// writeCurves draws curves.png from metrics.jsonl: the training loss (and each validation mode's loss)
// against tokens seen, the learning rate, and the gradient norm.
func writeCurves(dir string) error {
	train, val, err := rundir.ReadMetrics(dir)
	if err != nil {
		return err
	}
	var steps, tokens, loss, lr, gn []float64
	for _, r := range train {
		steps = append(steps, float64(r.Step))
		tokens = append(tokens, float64(r.Tokens))
		loss = append(loss, float64(r.Loss))
		lr = append(lr, r.LR)
		gn = append(gn, float64(r.GradNorm))
	}
	lossChart := &plot.Chart{Title: "loss", XLabel: "tokens", YLabel: "nats/token",
		Series: []plot.Series{{Name: "train", X: tokens, Y: smooth(loss, 10)}}}
	for _, mode := range []string{"attention", "linear", "mixed"} {
		var x, y []float64
		for _, r := range val {
			if v, ok := r.Loss[mode]; ok {
				x = append(x, float64(r.Tokens))
				y = append(y, float64(v))
			}
		}
		if len(x) > 0 {
			lossChart.Series = append(lossChart.Series, plot.Series{Name: "val " + mode, X: x, Y: y, Dashed: true})
		}
	}
	lrChart := &plot.Chart{Title: "learning rate", XLabel: "step", Series: []plot.Series{{Name: "lr", X: steps, Y: lr}}}
	gnChart := &plot.Chart{Title: "gradient norm (before clipping)", XLabel: "step", LogY: true,
		Series: []plot.Series{{Name: "grad norm", X: steps, Y: gn}}}
	return plot.WriteGridPNG(filepath.Join(dir, "curves.png"), 3, lossChart, lrChart, gnChart)
}

// smooth is a trailing moving average over w points that skips NaNs (a NaN point stays NaN).
func smooth(y []float64, w int) []float64 {
	out := make([]float64, len(y))
	for i := range y {
		if math.IsNaN(y[i]) {
			out[i] = math.NaN()
			continue
		}
		var s float64
		var n int
		for j := max(0, i-w+1); j <= i; j++ {
			if !math.IsNaN(y[j]) {
				s += y[j]
				n++
			}
		}
		out[i] = s / float64(n)
	}
	return out
}
