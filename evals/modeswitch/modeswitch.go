// Package modeswitch measures what happens to a multi-mixer model's predictions when the mode changes in the
// middle of a sequence: per-position loss curves on held-out text for all-attention, all-linear, and the two
// switches (attention→linear and linear→attention at a chosen position), averaged over sequences, with the
// number of tokens the switched curve takes to reach the new mode's level.
package modeswitch

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/figure"
	"github.com/oryx-go/oryx/oryx"
)

// Curve names.
const (
	Attention         = "attention"
	Linear            = "linear"
	AttentionToLinear = "attention->linear"
	LinearToAttention = "linear->attention"
)

// Curves is the result: Loss[name][p] is the mean loss (nats) of predicting token p+1 from tokens 0..p.
type Curves struct {
	Variant   oryx.Variant         `json:"variant"`
	SwitchAt  int                  `json:"switch_at"` // the first position read in the new mode
	SeqLen    int                  `json:"seq_len"`
	Sequences int                  `json:"sequences"`
	Loss      map[string][]float64 `json:"loss"`
	// Recovery[switch] is the number of tokens after SwitchAt until the switched curve stays within
	// Tolerance of the pure new-mode curve (a Window-token moving average of the gap); -1 if it never does.
	Recovery  map[string]int `json:"recovery_tokens"`
	Tolerance float64        `json:"tolerance"` // relative: 2 % of the new mode's mean loss after the switch
	Window    int            `json:"window"`
	// Mean loss after the switch (positions ≥ SwitchAt) of every curve.
	MeanAfter map[string]float64 `json:"mean_loss_after_switch"`
}

// Tolerance and Window of the recovery measure [choice: per-position losses of a few hundred sequences are
// noisy; a gap under 2 % of the loss, averaged over 8 positions, is "at the new mode's level"].
const (
	DefaultTolerance = 0.02
	DefaultWindow    = 8
)

// Run computes the curves of m on seqs (each SeqLen+1 tokens) switching at switchAt (0 < switchAt < SeqLen).
// Single-mixer variants get only their one curve.
func Run(m *oryxlm.Model, seqs [][]int32, switchAt int) (*Curves, error) {
	if len(seqs) == 0 {
		return nil, fmt.Errorf("modeswitch: no sequences")
	}
	t := len(seqs[0]) - 1
	if switchAt <= 0 || switchAt >= t {
		return nil, fmt.Errorf("modeswitch: switch position %d must be inside the sequence (0, %d)", switchAt, t)
	}
	v := m.Config().Variant
	c := &Curves{Variant: v, SwitchAt: switchAt, SeqLen: t, Sequences: len(seqs), Loss: map[string][]float64{},
		Recovery: map[string]int{}, Tolerance: DefaultTolerance, Window: DefaultWindow, MeanAfter: map[string]float64{}}
	type sched struct {
		name string
		mode func(p int) oryx.Mode
	}
	var scheds []sched
	switch {
	case v.IsMultiMixer():
		scheds = []sched{
			{Attention, func(int) oryx.Mode { return oryx.Attention }},
			{Linear, func(int) oryx.Mode { return oryx.Linear }},
			{AttentionToLinear, func(p int) oryx.Mode { return pick(p < switchAt, oryx.Attention, oryx.Linear) }},
			{LinearToAttention, func(p int) oryx.Mode { return pick(p < switchAt, oryx.Linear, oryx.Attention) }},
		}
	case v.HasAttention():
		scheds = []sched{{Attention, nil}}
	default:
		scheds = []sched{{Linear, nil}}
	}
	for _, s := range scheds {
		var modes [][]oryx.Mode
		if s.mode != nil {
			row := make([]oryx.Mode, t)
			for p := range row {
				row[p] = s.mode(p)
			}
			modes = make([][]oryx.Mode, len(seqs))
			for i := range modes {
				modes[i] = row
			}
		}
		lp, err := m.TokenLogProbs(seqs, modes)
		if err != nil {
			return nil, err
		}
		mean := make([]float64, t)
		for _, row := range lp {
			for p, x := range row {
				mean[p] -= float64(x) / float64(len(lp))
			}
		}
		c.Loss[s.name] = mean
		c.MeanAfter[s.name] = avg(mean[switchAt:])
	}
	if v.IsMultiMixer() {
		c.Recovery[AttentionToLinear] = recovery(c.Loss[AttentionToLinear], c.Loss[Linear], switchAt, c.Tolerance, c.Window)
		c.Recovery[LinearToAttention] = recovery(c.Loss[LinearToAttention], c.Loss[Attention], switchAt, c.Tolerance, c.Window)
	}
	return c, nil
}

func pick(cond bool, a, b oryx.Mode) oryx.Mode {
	if cond {
		return a
	}
	return b
}

func avg(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(max(len(x), 1))
}

// recovery returns the first k ≥ 0 such that from SwitchAt+k on, every window-token moving average of
// |switched − pure| stays within tol × (the pure curve's mean after the switch); -1 if none.
func recovery(switched, pure []float64, at int, tol float64, window int) int {
	limit := tol * avg(pure[at:])
	n := len(pure)
	gapAvg := func(p int) float64 { // mean gap over [p, p+window)
		var s float64
		k := 0
		for q := p; q < min(p+window, n); q++ {
			s += math.Abs(switched[q] - pure[q])
			k++
		}
		return s / float64(k)
	}
	last := -1 // the last window start that is out of tolerance
	for p := at; p < n; p++ {
		if gapAvg(p) > limit {
			last = p
		}
	}
	if last == n-1 {
		return -1
	}
	if last < 0 {
		return 0
	}
	return last + 1 - at
}

// WriteJSON writes the curves to path.
func (c *Curves) WriteJSON(path string) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'))
}

// WritePNG plots the curves (a centred moving average over Window positions) with a vertical line at the
// switch: the pure modes dashed over the whole sequence, the switched curves solid from the switch on —
// before it each is exactly its first mode's curve (causality), and drawing it there would hide that curve.
func (c *Curves) WritePNG(path, title string) error {
	pn := &figure.Panel{Title: title, LegendInside: true, // per-position losses fall: the top right is empty
		Comment: fmt.Sprintf("%d sequences, %d-position centred mean", c.Sequences, c.Window),
		X:       figure.Axis{Label: "position in the sequence (tokens)"}, Y: figure.Axis{Label: "loss (nats/token)"},
		VRefs: []figure.Ref{{At: float64(c.SwitchAt), Label: fmt.Sprintf("switch at %d", c.SwitchAt)}}}
	for i, name := range []string{Attention, Linear, AttentionToLinear, LinearToAttention} {
		y, ok := c.Loss[name]
		if !ok {
			continue
		}
		x := make([]float64, len(y))
		for i := range x {
			x[i] = float64(i)
		}
		l := figure.Line{Name: name + " (from the switch)", X: x, Y: figure.CentredMean(y, c.Window), Color: i, Width: 1.8}
		if name == Attention || name == Linear {
			l.Name, l.Dash, l.Width = name, figure.Dashed, 1.2
		} else if c.SwitchAt < len(x) {
			l.X, l.Y = l.X[c.SwitchAt:], l.Y[c.SwitchAt:]
		}
		pn.Lines = append(pn.Lines, l)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return figure.WritePNG(path, 1, pn)
}
