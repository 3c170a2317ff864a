package train

import (
	"fmt"
	"path/filepath"

	"github.com/oryx-go/oryx/internal/figure"
	"github.com/oryx-go/oryx/internal/rundir"
)

// smoothSteps is the window of the smoothed training loss [choice: a per-step loss on 16 short sequences
// is noisy; 21 steps is about 7 % of the tiny run]. The window is centred, so the smoothed curve does not
// lag the raw one and can be read against validation points at the same token count.
const smoothSteps = 21

// writeCurves draws curves.png from metrics.jsonl: three panels against the same x axis (tokens seen) —
// the training loss per step (faint) and smoothed, with each validation mode's loss as marked points; the
// learning rate; the gradient norm before clipping (log scale).
func writeCurves(dir string) error {
	train, val, err := rundir.ReadMetrics(dir)
	if err != nil {
		return err
	}
	var tokens, loss, lr, gn []float64
	for _, r := range train {
		tokens = append(tokens, float64(r.Tokens))
		loss = append(loss, float64(r.Loss))
		lr = append(lr, r.LR)
		gn = append(gn, float64(r.GradNorm))
	}
	xAxis := figure.Axis{Label: "training tokens"}
	lossPanel := &figure.Panel{Title: "loss", X: xAxis, LegendInside: true, Y: figure.Axis{Label: "loss (nats/token)"},
		Lines: []figure.Line{
			{Name: "train, per step", X: tokens, Y: loss, Faint: true},
			{Name: fmt.Sprintf("train, %d-step centred mean", smoothSteps), X: tokens, Y: figure.CentredMean(loss, smoothSteps), Width: 2},
		}}
	for i, mode := range ValModes {
		var x, y []float64
		for _, r := range val {
			if v, ok := r.Loss[mode]; ok {
				x = append(x, float64(r.Tokens))
				y = append(y, float64(v))
			}
		}
		if len(x) > 0 {
			lossPanel.Lines = append(lossPanel.Lines, figure.Line{Name: "validation, " + mode, X: x, Y: y,
				Color: i + 1, Dash: figure.Dashed, Marker: i + 1})
		}
	}
	lrPanel := &figure.Panel{Title: "learning rate", X: xAxis, Y: figure.Axis{Label: "learning rate"},
		Lines: []figure.Line{{X: tokens, Y: lr}}}
	gnPanel := &figure.Panel{Title: "gradient norm before clipping", X: xAxis, Y: figure.Axis{Label: "global L2 norm", Scale: figure.Log10},
		Lines: []figure.Line{{X: tokens, Y: gn}}}
	return figure.WritePNG(filepath.Join(dir, rundir.CurvesFile), 3, lossPanel, lrPanel, gnPanel)
}
