package study

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/evals/evalapi"
	"github.com/oryx-go/oryx/internal/figure"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/recipes/train"
)

// The schedules' styles, the same in every figure: a schedule is a colour, a marker and a dash. The
// switched schedules of the switch test (pairs read in one mode, queries in the other) take the colour of
// the mode that reads the queries, a marker of their own and a dash, so each sits visibly beside the pure
// mode it should match.
var scheduleStyle = map[string]figure.Line{
	"attention": {Color: 0, Marker: 1, Dash: figure.Solid},
	"linear":    {Color: 1, Marker: 2, Dash: figure.Dotted},
	"mixed":     {Color: 2, Marker: 3, Dash: figure.Dashed},
	// The validation loss in block-random modes (loss.png only): the multi-mixer runs' training
	// distribution, not the mixed schedule, so it has a style of its own.
	train.ValBlockRandom:      {Color: 3, Marker: 7, Dash: figure.Dashed},
	evalapi.LinearToAttention: {Color: 0, Marker: 4, Dash: figure.Dashed},
	evalapi.AttentionToLinear: {Color: 1, Marker: 5, Dash: figure.Dashed},
}

// writePlots draws:
//
//	loss.png       validation loss against training tokens: one panel per run (controls and ablation
//	               included), one line per validation mode (attention, linear, block-random); the
//	               baselines' panels mark the half-token control
//	mqar.png       MQAR accuracy against key–value pairs (log₂ axis, ticks at the measured counts, chance line)
//	switch.png     the switch test: MQAR accuracy with the pairs read in one mode and the queries in the
//	               other, beside the two pure modes, one panel per multi-mixer run (same axes as mqar.png)
//	needle.png     mini needle score against prompt length (log₂ axis, ticks at the measured lengths)
//	copy.png       copy-probe accuracy against prompt length (same axes)
//	switch-<r>.png per-position loss on held-out text around a mode switch, per multi-mixer run
//
// Each accuracy figure has one panel per run with one line per schedule, with ±1 standard-error bars, on
// a shared 0–1 axis, so the schedules of a run are compared within a panel and runs across panels.
func writePlots(c Config, rep *Report) error {
	var loss, mq, sw, nd, cp []*figure.Panel
	unit := figure.Axis{Label: "accuracy", Min: ptr(0), Max: ptr(1.02)}
	pairs := figure.Axis{Label: "key–value pairs", Scale: figure.Log2, Ticks: ints(c.MQARPairs)}
	chance := []figure.Ref{{At: 2.0 / datasets.MQARVocab, Label: fmt.Sprintf("chance (1/%d)", datasets.MQARVocab/2)}}
	line := func(sched, name string, x, y, e []float64) figure.Line {
		l := scheduleStyle[sched]
		l.Name, l.X, l.Y, l.YErr = name, x, y, e
		return l
	}
	for _, m := range rep.Models {
		title := panelTitle(c, m)
		lp := &figure.Panel{Title: title, X: figure.Axis{Label: "training tokens"}, Y: figure.Axis{Label: "validation loss (nats/token)"},
			LegendInside: true}
		x, ys := valCurves(filepath.Join(c.Out, m.RunDir))
		for _, mode := range train.ValModes {
			if y, ok := ys[mode]; ok {
				lp.Lines = append(lp.Lines, line(mode, valModeName(mode), x, y, nil))
			}
		}
		// The baselines' half-token controls are their own curves at half the tokens (DefaultRuns).
		if (m.Role == RoleMain || m.Role == RoleScale) && !m.Variant.IsMultiMixer() && len(x) > 0 {
			lp.VRefs = []figure.Ref{{At: x[len(x)-1] / 2, Label: "half-token control"}}
		}
		loss = append(loss, lp)
		if c.evaluation() == EvalCurves {
			continue // no evaluation: the loss and recall curves only
		}

		mqP := &figure.Panel{Title: title, X: pairs, Y: unit, HRefs: chance, Dodge: true}
		ndP := &figure.Panel{Title: title, X: figure.Axis{Label: "prompt length (tokens)", Scale: figure.Log2, Ticks: ints(c.NeedleLengths)},
			Y: figure.Axis{Label: "score (4-digit value found)", Min: ptr(0), Max: ptr(1.02)}, Dodge: true}
		cpP := &figure.Panel{Title: title, X: figure.Axis{Label: "prompt length (tokens)", Scale: figure.Log2, Ticks: ints(c.NeedleLengths)},
			Y: unit, Dodge: true}
		for _, s := range m.Schedules {
			name := fmt.Sprintf("%s (%.0f%% attention)", s.Schedule, 100*s.AttentionFraction)
			mx, my, me := mqarPoints(s.MQARCells)
			mqP.Lines = append(mqP.Lines, line(s.Schedule, name, mx, my, me))
			var nx, ny, ne, cx, cy, ce []float64
			for _, l := range sortedKeys(s.Needle) {
				nx, ny, ne = append(nx, float64(l)), append(ny, s.Needle[l].Score), append(ne, s.Needle[l].StdErr)
			}
			for _, l := range sortedKeys(s.Copy) {
				cx, cy, ce = append(cx, float64(l)), append(cy, s.Copy[l].Score), append(ce, s.Copy[l].StdErr)
			}
			ndP.Lines = append(ndP.Lines, line(s.Schedule, name, nx, ny, ne))
			cpP.Lines = append(cpP.Lines, line(s.Schedule, name, cx, cy, ce))
		}
		mq = append(mq, mqP)
		if c.evaluation() == EvalFull {
			nd, cp = append(nd, ndP), append(cp, cpP)
		}

		if m.SwitchMQAR != nil {
			swP := &figure.Panel{Title: title, X: pairs, Y: unit, HRefs: chance, Dodge: true,
				Comment: "A → B: the pairs read in A, the queries in B"}
			for _, k := range []string{"attention", "linear", evalapi.LinearToAttention, evalapi.AttentionToLinear} {
				cells := m.SwitchMQAR[k]
				if k == "attention" || k == "linear" {
					cells = m.sched(k).MQARCells
				}
				x, y, e := mqarPoints(cells)
				swP.Lines = append(swP.Lines, line(k, switchName(k), x, y, e))
			}
			sw = append(sw, swP)
		}

		if m.Switch != nil {
			if err := m.Switch.WritePNG(filepath.Join(c.Out, "switch-"+m.Name+".png"),
				fmt.Sprintf("%s: loss around a mode switch at position %d", m.Name, m.Switch.SwitchAt)); err != nil {
				return err
			}
		}
	}
	if err := writeCurvesPlot(c, rep); err != nil {
		return err
	}
	if rep.Scale != nil {
		if err := writeScalePlot(c, rep.Scale); err != nil {
			return fmt.Errorf("plot scale.png: %w", err)
		}
	}
	if rep.Trend != nil {
		if err := writeTrendPlot(c, rep.Trend); err != nil {
			return fmt.Errorf("plot trend.png: %w", err)
		}
	}
	held := "held-out synthetic language"
	if datasets.HasHeldOut(c.Data) {
		held = "held-out text of the data's text components"
	}
	for _, f := range []struct {
		name, title string
		panels      []*figure.Panel
	}{
		{"loss.png", "validation loss (" + held + ")", loss},
		{"mqar.png", "MQAR accuracy", mq},
		{"switch.png", "switch test: MQAR with the pairs in one mode and the queries in the other", sw},
		{"needle.png", "mini needle-in-a-haystack", nd},
		{"copy.png", "copy probe (recall of a copied span)", cp},
	} {
		if len(f.panels) == 0 {
			continue
		}
		fig := figure.Figure{Title: f.title, Cols: min(len(f.panels), 3), Panels: f.panels, ShareY: true}
		if err := fig.WritePNG(filepath.Join(c.Out, f.name)); err != nil {
			return fmt.Errorf("plot %s: %w", f.name, err)
		}
	}
	return nil
}

// panelTitle names a run's panel: its name (with its size when not tiny, its seed with several), and for
// a control or ablation its role (the name says what it changes; a longer title would be cut at the edges
// of a panel narrowed by its legend).
func panelTitle(c Config, m *ModelResult) string {
	name := m.Name
	if m.width() > 1 {
		name += " " + m.Size()
	}
	if c.seeds() > 1 {
		name += fmt.Sprintf(" s%d", m.Seed)
	}
	if m.Role == RoleControl || m.Role == RoleAblation {
		return fmt.Sprintf("%s (%s)", name, m.Role)
	}
	return name
}

// writeCurvesPlot draws mqar_curves.png, the recall learning curves: MQAR accuracy of the curve subset
// against training tokens, one panel per run (and size), one line per schedule in the schedules' styles —
// with several seeds each seed a thin line and their mean a thick one — with the chance level. A first
// panel overlays the main comparison: the Transformer, GDN and Oryx-TG's modes (seed means).
func writeCurvesPlot(c Config, rep *Report) error {
	if c.CurveExamples == 0 {
		return nil
	}
	unit := figure.Axis{Label: "MQAR accuracy (curve subset)", Min: ptr(0), Max: ptr(1.02)}
	tokens := figure.Axis{Label: "training tokens"}
	chance := []figure.Ref{{At: 2.0 / datasets.MQARVocab, Label: fmt.Sprintf("chance (1/%d)", datasets.MQARVocab/2)}}
	comment := ""
	if c.seeds() > 1 {
		comment = fmt.Sprintf("thin: each of %d seeds, thick: their mean", c.seeds())
	}
	overview := &figure.Panel{Title: "main comparison (mean over seeds)", X: tokens, Y: unit, HRefs: chance, Comment: comment}
	var panels []*figure.Panel
	colour := 0
	for _, runs := range bySpec(rep.Models) {
		k := runs[0]
		title := k.Name
		if k.width() > 1 {
			title += " " + k.Size()
		}
		p := &figure.Panel{Title: title, X: tokens, Y: unit, HRefs: chance, Comment: comment}
		for _, s := range curveSchedules(runs[0].Curves) {
			x, mean := meanCurve(runs, s)
			if len(x) == 0 {
				continue
			}
			l := scheduleStyle[s]
			if len(runs) > 1 {
				for _, m := range runs {
					rc := m.Curves[s]
					if rc == nil {
						continue
					}
					thin := scheduleStyle[s]
					thin.X, thin.Y, thin.Faint, thin.Marker = int64s(rc.Tokens), rc.Accuracy, true, 0
					p.Lines = append(p.Lines, thin)
				}
				l.Width = 2.5
			}
			l.Name, l.X, l.Y = s, x, mean
			p.Lines = append(p.Lines, l)
			main := runs[0].Role == RoleMain || runs[0].Role == RoleScale || runs[0].Role == RoleDecompose || (runs[0].Role == RoleAttribution && runs[0].Change == "")
			if main && k.width() == c.mainWidth() {
				overview.Lines = append(overview.Lines, figure.Line{Name: k.Name + " " + s, X: x, Y: mean, Color: colour,
					Dash: scheduleStyle[s].Dash, Marker: 1 + colour})
				colour++
			}
		}
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return nil
	}
	if len(overview.Lines) > 0 {
		panels = append([]*figure.Panel{overview}, panels...)
	}
	fig := figure.Figure{Title: fmt.Sprintf("recall learning curves: MQAR accuracy during training (%d examples at each of %s pairs, every %d steps)",
		c.CurveExamples, joinInts(c.CurvePairs), c.curveSteps()), Cols: min(len(panels), 3), Panels: panels, ShareY: true}
	if err := fig.WritePNG(filepath.Join(c.Out, "mqar_curves.png")); err != nil {
		return fmt.Errorf("plot mqar_curves.png: %w", err)
	}
	return nil
}

// bySpec groups the models by run spec (name and width), in their order: one group per run, its seeds in
// order.
func bySpec(models []*ModelResult) [][]*ModelResult {
	type key struct {
		name  string
		width int
	}
	var out [][]*ModelResult
	at := map[key]int{}
	for _, m := range models {
		k := key{m.Name, m.width()}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], m)
	}
	return out
}

// meanCurve is the mean over runs (seeds) of their curves under sched, on the first run's validation
// points (the seeds of a run validate at the same steps).
func meanCurve(runs []*ModelResult, sched string) (x, y []float64) {
	first := runs[0].Curves[sched]
	if first == nil {
		return nil, nil
	}
	x = int64s(first.Tokens)
	y = make([]float64, len(x))
	for i := range x {
		n := 0
		for _, m := range runs {
			if rc := m.Curves[sched]; rc != nil && i < len(rc.Accuracy) {
				y[i] += rc.Accuracy[i]
				n++
			}
		}
		y[i] /= float64(max(n, 1))
	}
	return x, y
}

func int64s(v []int64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// switchName is the legend entry of a switch-test schedule (the panel's comment says what A → B is).
func switchName(k string) string {
	switch k {
	case evalapi.LinearToAttention:
		return "linear → attention"
	case evalapi.AttentionToLinear:
		return "attention → linear"
	}
	return k
}

// valModeName is the legend entry of a validation mode.
func valModeName(mode string) string {
	if mode == train.ValBlockRandom {
		return "block-random modes"
	}
	return mode
}

// mqarPoints are the accuracy and standard error of MQAR cells by increasing number of pairs.
func mqarPoints(cells map[int]mqarCell) (x, y, e []float64) {
	for _, p := range sortedKeys(cells) {
		x, y, e = append(x, float64(p)), append(y, cells[p].Accuracy), append(e, cells[p].StdErr)
	}
	return x, y, e
}

// valCurves reads the validation records of a run's metrics.jsonl: tokens and the loss per validation mode
// (train.ValModes; older runs' keys renamed).
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
