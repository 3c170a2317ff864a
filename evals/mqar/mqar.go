// Package mqar scores multi-query associative recall (datasets.MQARConfig, Zoology's MQAR) on an oryx model:
// the accuracy of the greedy prediction of each queried value, under the schedules the variant has —
// all-attention, all-linear, and mixed: every token in linear mode except the query keys (the positions that
// predict a value), which read in attention mode (the paper's "context in linear, questions in attention").
package mqar

import (
	"fmt"
	"math"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/oryx"
)

// Result is the accuracy under one schedule.
type Result struct {
	Schedule          string  `json:"schedule"` // "attention", "linear" or "mixed"
	Accuracy          float64 `json:"accuracy"` // fraction of queried values predicted exactly (greedy)
	StdErr            float64 `json:"stderr"`   // binomial, over queries (queries of one example are not independent)
	Queries           int     `json:"queries"`
	Examples          int     `json:"examples"`
	AttentionFraction float64 `json:"attention_fraction"` // of all input tokens
	// FLOPs and FLOPsGathered are the forward FLOPs spent (oryxlm.Model's counters: as computed, and in the
	// gathered form), both passes of an entropy budget counted; set by EvaluateSchedule.
	FLOPs         float64 `json:"flops,omitempty"`
	FLOPsGathered float64 `json:"flops_gathered,omitempty"`
	Tokens        int     `json:"tokens,omitempty"` // input tokens scored (EvaluateSchedule)
}

// EvaluateSchedule scores examples 0..n-1 of cfg (ids shifted by offset) under the model's own schedule
// (m.Schedule(): a plain spec or a budget:F:POLICY, whose question positions are the query keys — the
// positions Evaluate's "mixed" puts in attention), with the FLOPs it spent.
func EvaluateSchedule(m *oryxlm.Model, cfg datasets.MQARConfig, n int, offset int32) (Result, error) {
	ex, seqs, err := examples(m, cfg, n, offset)
	if err != nil {
		return Result{}, err
	}
	question := make([][]bool, len(ex))
	for i, e := range ex {
		question[i] = e.TargetMask
	}
	f0, g0 := m.FLOPs, m.FLOPsGathered
	_, greedy, _, attn, err := m.PolicyScores(seqs, question)
	if err != nil {
		return Result{}, err
	}
	a := 0
	for _, x := range attn {
		a += x
	}
	t := len(seqs[0]) - 1
	r := accuracy(ex, greedy, Result{Schedule: m.Schedule(), Examples: len(ex), Tokens: len(ex) * t,
		AttentionFraction: float64(a) / float64(len(ex)*t)})
	r.FLOPs, r.FLOPsGathered = m.FLOPs-f0, m.FLOPsGathered-g0
	return r, nil
}

// examples generates examples 0..n-1 of cfg and their id-shifted token sequences.
func examples(m *oryxlm.Model, cfg datasets.MQARConfig, n int, offset int32) ([]datasets.MQARExample, [][]int32, error) {
	if n < 1 {
		return nil, nil, fmt.Errorf("mqar: the number of examples must be ≥ 1, got %d", n)
	}
	ex, err := datasets.GenerateMQAR(cfg, n)
	if err != nil {
		return nil, nil, err
	}
	if maxID := cfg.Vocab - 1 + int(offset); maxID >= m.Config().Vocab || offset < 0 {
		return nil, nil, fmt.Errorf("mqar: the task's ids [%d, %d) exceed the model's vocabulary %d", offset, cfg.Vocab+int(offset), m.Config().Vocab)
	}
	seqs := make([][]int32, len(ex))
	for i, e := range ex {
		seqs[i] = make([]int32, len(e.Tokens))
		for j, id := range e.Tokens {
			seqs[i][j] = id + offset
		}
	}
	return ex, seqs, nil
}

// accuracy fills r's queries, accuracy and standard error from the greedy hits at the query positions.
func accuracy(ex []datasets.MQARExample, greedy [][]bool, r Result) Result {
	correct := 0
	for i, e := range ex {
		for p, q := range e.TargetMask {
			if q {
				r.Queries++
				if greedy[i][p] {
					correct++
				}
			}
		}
	}
	r.Accuracy = float64(correct) / float64(max(r.Queries, 1))
	r.StdErr = math.Sqrt(r.Accuracy * (1 - r.Accuracy) / float64(max(r.Queries, 1)))
	return r
}

// Evaluate generates examples 0..n-1 of cfg (use a seed unseen in training), adds offset to every id (a
// byte-level model trained on MQAR in another id range, e.g. datasets.MQARTokenOffset) and scores them.
func Evaluate(m *oryxlm.Model, cfg datasets.MQARConfig, n int, offset int32) ([]Result, error) {
	v := m.Config().Variant
	switch {
	case v.IsMultiMixer():
		return score(m, cfg, n, offset, []sched{{"attention", fill(oryx.Attention)}, {"linear", fill(oryx.Linear)},
			{"mixed", func(e datasets.MQARExample) []oryx.Mode {
				row := make([]oryx.Mode, len(e.TargetMask))
				for i, q := range e.TargetMask {
					if q {
						row[i] = oryx.Attention
					}
				}
				return row
			}}})
	case v.HasAttention():
		return score(m, cfg, n, offset, []sched{{"attention", fill(oryx.Attention)}})
	}
	return score(m, cfg, n, offset, []sched{{"linear", fill(oryx.Linear)}})
}

// Switched schedules of Switch.
const (
	AttentionToLinear = "attention->linear"
	LinearToAttention = "linear->attention"
)

// Switch is the mode-switch test of a multi-mixer model: the key–value pairs (positions < 2·NumPairs) are
// read in one mode and everything from the first query-region position on in the other, both directions.
// Both memories are written at every token whatever the mode, so the queries should be answered as well as
// by the reading mode alone (Evaluate's "attention" or "linear"); a model whose layers' representations
// depend on the mode the pairs were read in — memories that disagree — fails.
func Switch(m *oryxlm.Model, cfg datasets.MQARConfig, n int, offset int32) ([]Result, error) {
	if !m.Config().Variant.IsMultiMixer() {
		return nil, fmt.Errorf("mqar: the switch test needs a multi-mixer variant, not %s", m.Config().Variant)
	}
	at := 2 * cfg.NumPairs
	split := func(before, after oryx.Mode) func(datasets.MQARExample) []oryx.Mode {
		return func(e datasets.MQARExample) []oryx.Mode {
			row := make([]oryx.Mode, len(e.TargetMask))
			for i := range row {
				row[i] = after
				if i < at {
					row[i] = before
				}
			}
			return row
		}
	}
	return score(m, cfg, n, offset, []sched{{AttentionToLinear, split(oryx.Attention, oryx.Linear)},
		{LinearToAttention, split(oryx.Linear, oryx.Attention)}})
}

type sched struct {
	name  string
	modes func(e datasets.MQARExample) []oryx.Mode
}

func fill(md oryx.Mode) func(datasets.MQARExample) []oryx.Mode {
	return func(e datasets.MQARExample) []oryx.Mode {
		row := make([]oryx.Mode, len(e.TargetMask))
		for i := range row {
			row[i] = md
		}
		return row
	}
}

// score generates examples 0..n-1 of cfg, shifts their ids by offset and scores each schedule.
func score(m *oryxlm.Model, cfg datasets.MQARConfig, n int, offset int32, scheds []sched) ([]Result, error) {
	ex, seqs, err := examples(m, cfg, n, offset)
	if err != nil {
		return nil, err
	}
	t := len(seqs[0]) - 1
	var out []Result
	for _, s := range scheds {
		modes := make([][]oryx.Mode, len(ex))
		attn := 0
		for i, e := range ex {
			modes[i] = s.modes(e)
			for _, x := range modes[i] {
				if x == oryx.Attention {
					attn++
				}
			}
		}
		_, greedy, err := m.TokenScores(seqs, modes)
		if err != nil {
			return nil, err
		}
		out = append(out, accuracy(ex, greedy, Result{Schedule: s.name, Examples: len(ex), AttentionFraction: float64(attn) / float64(len(ex)*t)}))
	}
	return out, nil
}
