package study

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/oryx-go/oryx/evals/mqar"
	"github.com/oryx-go/oryx/internal/plot"
	"github.com/oryx-go/oryx/internal/rundir"
)

// writePlots draws:
//
//	loss.png        validation loss against training tokens, per run and mode (the controls included)
//	mqar.png        MQAR accuracy against the number of key–value pairs, per run and schedule
//	switch.png      the switch test: MQAR accuracy per pairs with the pairs read in one mode and the queries in
//	                the other, beside the two pure modes, per multi-mixer run
//	needle.png      mini needle score against prompt length, per run and schedule
//	copy.png        copy-probe accuracy against prompt length, per run and schedule
//	switch-<r>.png  per-position loss on held-out text around a mode switch, per multi-mixer run
func writePlots(c Config, rep *Report) error {
	loss := &plot.Chart{Title: "validation loss (held-out synthetic language)", XLabel: "training tokens", YLabel: "nats/token"}
	mq := &plot.Chart{Title: "MQAR accuracy", XLabel: "key-value pairs", YLabel: "accuracy", LogX: true}
	sw := &plot.Chart{Title: "switch test: MQAR pairs in one mode, queries in the other", XLabel: "key-value pairs",
		YLabel: "accuracy", LogX: true}
	nd := &plot.Chart{Title: "mini needle-in-a-haystack", XLabel: "prompt length (tokens)", YLabel: "score"}
	cp := &plot.Chart{Title: "copy probe (recall of a copied span)", XLabel: "prompt length (tokens)", YLabel: "accuracy"}
	zero, one := 0.0, 1.0
	for _, ch := range []*plot.Chart{mq, sw, nd, cp} {
		ch.YMin, ch.YMax = &zero, &one
	}
	for _, m := range rep.Models {
		x, ys := valCurves(runDir(c, m.Name))
		for _, mode := range []string{"attention", "linear", "mixed"} {
			if y, ok := ys[mode]; ok {
				loss.Series = append(loss.Series, plot.Series{Name: fmt.Sprintf("%s %s", m.Name, mode), X: x, Y: y,
					Dashed: mode == "mixed" || m.Role != RoleMain})
			}
		}
		for _, s := range m.Schedules {
			name := fmt.Sprintf("%s %s", m.Name, s.Schedule)
			var px, py []float64
			for _, p := range sortedKeys(s.MQAR) {
				px, py = append(px, float64(p)), append(py, s.MQAR[p])
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
		if m.SwitchMQAR != nil {
			cells := map[string]map[int]mqarCell{"attention": m.sched("attention").MQARCells, "linear": m.sched("linear").MQARCells,
				mqar.AttentionToLinear: m.SwitchMQAR[mqar.AttentionToLinear], mqar.LinearToAttention: m.SwitchMQAR[mqar.LinearToAttention]}
			for _, k := range []string{"attention", "linear", mqar.AttentionToLinear, mqar.LinearToAttention} {
				var px, py []float64
				for _, p := range sortedKeys(cells[k]) {
					px, py = append(px, float64(p)), append(py, cells[k][p].Accuracy)
				}
				sw.Series = append(sw.Series, plot.Series{Name: m.Name + " " + k, X: px, Y: py, Dashed: strings.Contains(k, "->")})
			}
		}
		if m.Switch != nil {
			if err := m.Switch.WritePNG(filepath.Join(c.Out, "switch-"+m.Name+".png"),
				fmt.Sprintf("%s: loss around a mode switch at position %d", m.Name, m.Switch.SwitchAt)); err != nil {
				return err
			}
		}
	}
	charts := map[string]*plot.Chart{"loss.png": loss, "mqar.png": mq, "needle.png": nd, "copy.png": cp}
	if len(sw.Series) > 0 {
		charts["switch.png"] = sw
	}
	for name, ch := range charts {
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
