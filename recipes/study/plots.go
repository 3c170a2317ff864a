package study

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/internal/figure"
	"github.com/oryx-go/oryx/internal/rundir"
)

// The schedules' styles, the same in every figure: a schedule is a colour, a marker and a dash.
var scheduleStyle = map[string]figure.Line{
	"attention": {Color: 0, Marker: 1, Dash: figure.Solid},
	"linear":    {Color: 1, Marker: 2, Dash: figure.Dotted},
	"mixed":     {Color: 2, Marker: 3, Dash: figure.Dashed},
}

// writePlots draws:
//
//	loss.png       validation loss against training tokens: one panel per model, one line per mode
//	mqar.png       MQAR accuracy against key–value pairs (log₂ axis, ticks at the measured counts, chance line)
//	needle.png     mini needle score against prompt length (log₂ axis, ticks at the measured lengths)
//	copy.png       copy-probe accuracy against prompt length (same axes)
//	switch-<v>.png per-position loss around a mode switch, per multi-mixer model
//
// Each accuracy figure has one panel per model with one line per schedule, with ±1 standard-error bars, on
// a shared 0–1 axis, so the schedules of a model are compared within a panel and models across panels.
func writePlots(c Config, rep *Report) error {
	var loss, mq, nd, cp []*figure.Panel
	unit := figure.Axis{Label: "accuracy", Min: ptr(0), Max: ptr(1.02)}
	for _, m := range rep.Models {
		title := string(m.Variant)
		lp := &figure.Panel{Title: title, X: figure.Axis{Label: "training tokens"}, Y: figure.Axis{Label: "validation loss (nats/token)"},
			LegendInside: true}
		x, ys := valCurves(filepath.Join(c.Out, "runs", string(m.Variant)+"-tiny"))
		for _, mode := range []string{"attention", "linear", "mixed"} {
			if y, ok := ys[mode]; ok {
				l := scheduleStyle[mode]
				l.Name, l.X, l.Y = mode, x, y
				lp.Lines = append(lp.Lines, l)
			}
		}
		loss = append(loss, lp)

		mqP := &figure.Panel{Title: title, X: figure.Axis{Label: "key–value pairs", Scale: figure.Log2, Ticks: ints(c.MQARPairs)},
			Y: unit, HRefs: []figure.Ref{{At: 2.0 / datasets.MQARVocab, Label: fmt.Sprintf("chance (1/%d)", datasets.MQARVocab/2)}}}
		ndP := &figure.Panel{Title: title, X: figure.Axis{Label: "prompt length (tokens)", Scale: figure.Log2, Ticks: ints(c.NeedleLengths)},
			Y: figure.Axis{Label: "score (4-digit value found)", Min: ptr(0), Max: ptr(1.02)}}
		cpP := &figure.Panel{Title: title, X: figure.Axis{Label: "prompt length (tokens)", Scale: figure.Log2, Ticks: ints(c.NeedleLengths)},
			Y: unit}
		for _, s := range m.Schedules {
			var mx, my, me, nx, ny, ne, cx, cy, ce []float64
			for _, p := range sortedKeys(s.MQAR) {
				mx, my, me = append(mx, float64(p)), append(my, s.MQAR[p].Accuracy), append(me, s.MQAR[p].StdErr)
			}
			for _, l := range sortedKeys(s.Needle) {
				nx, ny, ne = append(nx, float64(l)), append(ny, s.Needle[l].Score), append(ne, s.Needle[l].StdErr)
			}
			for _, l := range sortedKeys(s.Copy) {
				cx, cy, ce = append(cx, float64(l)), append(cy, s.Copy[l].Score), append(ce, s.Copy[l].StdErr)
			}
			st := scheduleStyle[s.Schedule]
			name := fmt.Sprintf("%s (%.0f%% attention)", s.Schedule, 100*s.AttentionFraction)
			add := func(p *figure.Panel, x, y, e []float64) {
				l := st
				l.Name, l.X, l.Y, l.YErr = name, x, y, e
				p.Lines = append(p.Lines, l)
			}
			add(mqP, mx, my, me)
			add(ndP, nx, ny, ne)
			add(cpP, cx, cy, ce)
		}
		mqP.Dodge, ndP.Dodge, cpP.Dodge = true, true, true
		mq, nd, cp = append(mq, mqP), append(nd, ndP), append(cp, cpP)

		if m.Switch != nil {
			if err := m.Switch.WritePNG(filepath.Join(c.Out, "switch-"+string(m.Variant)+".png"),
				fmt.Sprintf("%s: loss around a mode switch at position %d", m.Variant, m.Switch.SwitchAt)); err != nil {
				return err
			}
		}
	}
	if len(rep.Models) == 0 {
		return nil
	}
	for _, f := range []struct {
		name, title string
		panels      []*figure.Panel
	}{
		{"loss.png", "validation loss (held-out synthetic language)", loss},
		{"mqar.png", "MQAR accuracy", mq},
		{"needle.png", "mini needle-in-a-haystack", nd},
		{"copy.png", "copy probe (recall of a copied span)", cp},
	} {
		fig := figure.Figure{Title: f.title, Cols: min(len(f.panels), 3), Panels: f.panels, ShareY: true}
		if err := fig.WritePNG(filepath.Join(c.Out, f.name)); err != nil {
			return fmt.Errorf("plot %s: %w", f.name, err)
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
	k := make([]int, 0, len(m))
	for x := range m {
		k = append(k, x)
	}
	sort.Ints(k)
	return k
}

func ints(v []int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func ptr(v float64) *float64 { return &v }
