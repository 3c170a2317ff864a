package oryx

// Decoding under an entropy budget (budget.go): the prompt's linear pass and the per-token escalation,
// hooked into Engine.Generate (generate.go calls entropyPrompt and decodeStep).

import (
	"fmt"
	"slices"

	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// StepEscalate feeds one token per row like Step, choosing each row's mode from its linear readout. The
// step first runs with every row in linear mode as a trial that is not committed (the state it read stays
// intact; its caches are copied, not updated in place); each row with candidate[b] is then offered to
// escalate(b, the trial's next-token logits of row b at full precision). If some row escalates, the step is
// rerun from the same state with those rows in attention mode and the others in linear mode, and that
// result is committed; otherwise the trial is. With no candidate row no trial runs: one linear Step.
//
// It returns the committed step's logits, each row's mode, and whether a second step ran. Multi-mixer
// variants only.
func (e *Engine) StepEscalate(tokens []int32, candidate []bool, escalate func(row int, linearLogits []float64) bool) ([][]float32, []Mode, bool, error) {
	const fn = "Engine.StepEscalate"
	if !e.model.Config.Variant.IsMultiMixer() {
		return nil, nil, false, fmt.Errorf("%s: variant %s has a single readout", fn, e.model.Config.Variant)
	}
	if len(tokens) != e.batch || len(candidate) != e.batch {
		return nil, nil, false, fmt.Errorf("%s: want %d tokens and candidates, got %d and %d", fn, e.batch, len(tokens), len(candidate))
	}
	modes := make([]Mode, e.batch)
	if !slices.Contains(candidate, true) {
		logits, err := e.Step(tokens, modes)
		return logits, modes, false, err
	}
	if err := e.checkTokens(tokens); err != nil {
		return nil, nil, false, fmt.Errorf("%s: %w", fn, err)
	}
	for b, p := range e.pos {
		if p >= e.capacity {
			return nil, nil, false, fmt.Errorf("%s: the KV cache of row %d is full (%d of %d tokens): create the engine with a larger capacity", fn, b, p, e.capacity)
		}
	}
	args := []any{tensors.FromFlatDataAndDimensions(append([]int32(nil), tokens...), e.batch),
		tensors.FromFlatDataAndDimensions(make([]int32, e.batch), e.batch)}
	for _, s := range e.state { // not donated: the trial must leave the state intact
		args = append(args, s)
	}
	outs, err := e.stepLinear.Exec(args...)
	if err != nil {
		return nil, nil, false, fmt.Errorf("%s: linear trial: %w", fn, err)
	}
	logits := e.logitsRows(outs[0])
	any := false
	for b := range modes {
		if candidate[b] && escalate(b, e.lastLogits[b]) {
			modes[b], any = Attention, true
		}
	}
	if !any {
		e.setState(outs[1:])
		return logits, modes, false, nil
	}
	finalizeAll(outs[1:])
	logits, err = e.Step(tokens, modes)
	return logits, modes, true, err
}

// entropyPrompt is Generate's hook for budget:F:entropy on a multi-mixer model: it runs the linear pass over
// the prompts (none at F = 0 or 1), places the prompt's attention tokens by entropy and returns them with
// the escalation rule for the generated tokens. For every other spec or variant it returns nil, nil.
func (e *Engine) entropyPrompt(spec string, prompts [][]int32) ([][]Mode, *Escalation, error) {
	b, ok := IsEntropyBudget(spec)
	if !ok || !e.model.Config.Variant.IsMultiMixer() {
		return nil, nil, nil
	}
	modes := make([][]Mode, len(prompts))
	var ent [][]float64
	if f := b.Fraction; f == 0 || f == 1 {
		for r, p := range prompts {
			modes[r] = make([]Mode, len(p))
			fill(modes[r], modeIf(f == 1))
		}
		return modes, NewEscalation(b, modes, nil), nil
	}
	if e.scorer == nil {
		s, err := NewScorer(e.backend, e.ctx, e.model, 0)
		if err != nil {
			return nil, nil, err
		}
		e.scorer = s
	}
	t := 0
	for _, p := range prompts {
		t = max(t, len(p))
	}
	tok := make([]int32, len(prompts)*t) // rows padded after their end: causality keeps it out
	for r, p := range prompts {
		copy(tok[r*t:], p)
	}
	all, err := e.scorer.Entropies(tok, make([]int32, len(tok)), len(prompts), t)
	if err != nil {
		return nil, nil, fmt.Errorf("linear pass: %w", err)
	}
	ent = make([][]float64, len(prompts))
	for r, p := range prompts {
		ent[r] = all[r*t : r*t+len(p)]
		if modes[r], err = b.Modes(len(p), nil, ent[r], nil); err != nil {
			return nil, nil, err
		}
	}
	return modes, NewEscalation(b, modes, ent), nil
}

// decodeStep is Generate's decode step: Step, or under an entropy budget (esc non-nil and not fixed)
// StepEscalate, whose escalated rows replace the tentative Linear of their last token in gen.Modes. It
// returns the logits and how many rows ran in attention beyond the modes passed in.
func (e *Engine) decodeStep(esc *Escalation, tokens []int32, modes []Mode, stopped []bool, promptLen []int, gen *Generation) ([][]float32, int, error) {
	if esc == nil {
		logits, err := e.Step(tokens, modes)
		return logits, 0, err
	}
	if _, fixed := esc.Fixed(); fixed {
		logits, err := e.Step(tokens, modes)
		return logits, 0, err
	}
	pos := make([]int, e.batch)
	candidate := make([]bool, e.batch)
	for b := range e.batch {
		pos[b] = promptLen[b] + len(gen.Tokens[b]) - 1
		candidate[b] = !stopped[b] && esc.Candidate(b, pos[b])
	}
	logits, used, _, err := e.StepEscalate(tokens, candidate, func(b int, l []float64) bool { return esc.Decide(b, pos[b], l) })
	extra := 0
	for b, m := range used {
		if m == Attention {
			gen.Modes[b][len(gen.Modes[b])-1] = Attention
			extra++
		}
	}
	return logits, extra, err
}
