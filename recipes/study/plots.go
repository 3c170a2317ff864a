package study

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/oryx-go/oryx/internal/plot"
	"github.com/oryx-go/oryx/internal/rundir"
)

// writePlots draws:
//
//	loss.png       validation loss against training tokens, per model and mode
//	mqar.png       MQAR accuracy against the number of key–value pairs, per model and schedule
//	needle.png     mini needle score against prompt length, per model and schedule
//	copy.png       copy-probe accuracy against prompt length, per model and schedule
//	switch-<v>.png per-position loss around a mode switch, per multi-mixer model
func writePlots(c Config, rep *Report) error {
	loss := &plot.Chart{Title: "validation loss (held-out synthetic language)", XLabel: "training tokens", YLabel: "nats/token"}
	mq := &plot.Chart{Title: "MQAR accuracy", XLabel: "key-value pairs", YLabel: "accuracy", LogX: true}
	nd := &plot.Chart{Title: "mini needle-in-a-haystack", XLabel: "prompt length (tokens)", YLabel: "score", LogX: true}
	cp := &plot.Chart{Title: "copy probe (recall of a copied span)", XLabel: "prompt length (tokens)", YLabel: "accuracy", LogX: true}
	zero, one := 0.0, 1.0
	mq.YMin, mq.YMax, nd.YMin, nd.YMax, cp.YMin, cp.YMax = &zero, &one, &zero, &one, &zero, &one
	for _, m := range rep.Models {
		x, ys := valCurves(filepath.Join(c.Out, "runs", string(m.Variant)+"-tiny"))
		for _, mode := range []string{"attention", "linear", "mixed"} {
			if y, ok := ys[mode]; ok {
				loss.Series = append(loss.Series, plot.Series{Name: fmt.Sprintf("%s %s", m.Variant, mode), X: x, Y: y,
					Dashed: mode == "mixed"})
			}
		}
		for _, s := range m.Schedules {
			name := fmt.Sprintf("%s %s", m.Variant, s.Schedule)
			var px, py []float64
			for _, p := range sortedKeys(s.MQAR) {
				px, py = append(px, float64(p)), append(py, s.MQAR[p].Accuracy)
			}
			mq.Series = append(mq.Series, plot.Series{Name: name, X: px, Y: py, Dashed: s.Schedule == "mixed"})
			px, py = nil, nil
			for _, l := range sortedKeys(s.Needle) {
				px, py = append(px, float64(l)), append(py, s.Needle[l].Score)
			}
			nd.Series = append(nd.Series, plot.Series{Name: name, X: px, Y: py, Dashed: s.Schedule == "mixed"})
			px, py = nil, nil
			for _, l := range sortedKeys(s.Copy) {
				px, py = append(px, float64(l)), append(py, s.Copy[l].Score)
			}
			cp.Series = append(cp.Series, plot.Series{Name: name, X: px, Y: py, Dashed: s.Schedule == "mixed"})
		}
		if m.Switch != nil {
			if err := m.Switch.WritePNG(filepath.Join(c.Out, "switch-"+string(m.Variant)+".png"),
				fmt.Sprintf("%s: loss around a mode switch at position %d", m.Variant, m.Switch.SwitchAt)); err != nil {
				return err
			}
		}
	}
	for name, ch := range map[string]*plot.Chart{"loss.png": loss, "mqar.png": mq, "needle.png": nd, "copy.png": cp} {
		if err := ch.WritePNG(filepath.Join(c.Out, name)); err != nil {
			return fmt.Errorf("plot %s: %w", name, err)
		}
	}
	return nil
}

// valCurves reads the validation records of a run's metrics.jsonl: tokens and the loss per mode.
func valCurves(dir string) ([]float64, map[string][]float64) {
	_, val, err := rundir.ReadMetrics(dir)
	if err != nil {
		return nil, nil
	}
	var x []float64
	ys := map[string][]float64{}
	for _, r := range val {
		x = append(x, float64(r.Tokens))
		for k, v := range r.Loss {
			ys[k] = append(ys[k], float64(v))
		}
	}
	return x, ys
}

func sortedKeys[V any](m map[int]V) []int {
	var k []int
	for x := range m {
		k = append(k, x)
	}
	sort.Ints(k)
	return k
}
