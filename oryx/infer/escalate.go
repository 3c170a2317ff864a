package infer

// Decoding under an entropy budget (oryx/schedule/budget.go): the prompt's linear pass and the per-token escalation,
// hooked into Engine.Generate (generate.go calls entropyPrompt and decodeStep).

import (
	"fmt"
	"slices"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/internal/tensordata"
	"github.com/oryx-go/oryx/layers"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// StepEscalate feeds one token per row like Step, choosing each row's mode from its linear readout. The
// step first runs with every row in linear mode as a trial that commits nothing: it reads neither KV cache
// (a linear readout does not) and leaves the state it read intact. Each row with candidate[b] is then
// offered to escalate(b, the trial's next-token logits of row b at full precision). If some row escalates,
// the step is rerun from the same state with those rows in attention mode and the others in linear mode,
// and that result is committed; otherwise the trial is, its token's keys and values appended to the caches
// in place. With no candidate row no trial runs: one linear Step.
//
// It returns the committed step's logits, each row's mode, and whether a second step ran. Multi-mixer
// variants only.
func (e *Engine) StepEscalate(tokens []int32, candidate []bool, escalate func(row int, linearLogits []float64) bool) ([][]float32, []oryx.Mode, bool, error) {
	const fn = "Engine.StepEscalate"
	if !e.model.Config.Variant.IsMultiMixer() {
		return nil, nil, false, fmt.Errorf("%s: variant %s has a single readout", fn, e.model.Config.Variant)
	}
	if len(tokens) != e.batch || len(candidate) != e.batch {
		return nil, nil, false, fmt.Errorf("%s: want %d tokens and candidates, got %d and %d", fn, e.batch, len(tokens), len(candidate))
	}
	modes := make([]oryx.Mode, e.batch)
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
	x, err := e.escalationExecs()
	if err != nil {
		return nil, nil, false, err
	}
	restIdx, cacheIdx := splitState(e.model)
	args := []any{tensors.FromFlatDataAndDimensions(append([]int32(nil), tokens...), e.batch)}
	for _, i := range restIdx { // Pos, linear and conv states: small, not donated (an escalation reruns from them)
		args = append(args, e.state[i])
	}
	outs, err := x.trial.Exec(args...)
	if err != nil {
		return nil, nil, false, fmt.Errorf("%s: linear trial: %w", fn, err)
	}
	nRest := len(restIdx)
	rest, kv := outs[1:1+nRest], outs[1+nRest:] // the next Pos, linear and conv states; the token's k, v per layer
	logits := e.logitsRows(outs[0])
	escalated := false
	for b := range modes {
		if candidate[b] && escalate(b, e.lastLogits[b]) {
			modes[b], escalated = oryx.Attention, true
		}
	}
	if escalated {
		tensordata.FinalizeAll(outs[1:])
		logits, err = e.Step(tokens, modes)
		return logits, modes, true, err
	}
	// Commit the trial: append its keys and values to the caches (donated: written in place).
	cargs := []any{e.state[0]}
	for _, i := range cacheIdx {
		d, err := DonateTensorBuffer(e.state[i], e.backend, 0)
		if err != nil {
			return nil, nil, false, err
		}
		cargs = append(cargs, d)
	}
	for _, t := range kv {
		cargs = append(cargs, t)
	}
	caches, err := x.appendKV.Exec(cargs...)
	tensordata.FinalizeAll(kv)
	if err != nil {
		e.state = nil
		return nil, nil, false, fmt.Errorf("%s: %w (the state was lost: Reset or Prefill before the next Step)", fn, err)
	}
	next := make([]*tensors.Tensor, len(e.state))
	for k, i := range restIdx {
		e.state[i].FinalizeAll()
		next[i] = rest[k]
	}
	for k, i := range cacheIdx {
		next[i] = caches[k]
	}
	e.state = nil // the caches were donated, the rest finalized
	e.setState(next)
	return logits, modes, false, nil
}

// escalationExecs are the graphs of StepEscalate and of the entropy budget's prompt pass, made on first use.
type escalationExecs struct {
	scorer   *oryx.Scorer  // the linear pass over prompts
	trial    *context.Exec // tokens, the state without caches → logits, the next state without caches, k, v per layer
	appendKV *context.Exec // Pos, the caches, k, v per layer → the caches with the token appended
}

func (e *Engine) escalationExecs() (*escalationExecs, error) {
	if e.escalation != nil {
		return e.escalation, nil
	}
	m := e.model
	x := &escalationExecs{}
	var err error
	if x.scorer, err = oryx.NewScorer(e.backend, e.ctx, m, 0); err != nil {
		return nil, err
	}
	if x.trial, err = context.NewExec(e.backend, e.ctx, func(ctx *context.Context, in []*Node) []*Node {
		// Every row in linear mode, from the state without caches, which the linear readout does not read.
		logits, next, spans := stepGraph(ctx, m, in[0], nil, unflattenWithout(m, in[1:]), true, 0)
		out := append([]*Node{logits}, next.Flatten()...)
		for _, l := range spans { // the token's cache entries, to append when the trial is committed
			out = append(out, Squeeze(l.KRows, 1), Squeeze(l.VRows, 1))
		}
		return out
	}); err != nil {
		return nil, err
	}
	if x.appendKV, err = context.NewExec(e.backend, e.ctx, func(ctx *context.Context, in []*Node) []*Node {
		pos, n := in[0], m.Config.Layers
		caches, kv := in[1:1+2*n], in[1+2*n:]
		out := make([]*Node, 2*n)
		for l := range n {
			out[2*l] = layers.CacheAppend(caches[2*l], kv[2*l], pos)
			out[2*l+1] = layers.CacheAppend(caches[2*l+1], kv[2*l+1], pos)
		}
		return out
	}); err != nil {
		return nil, err
	}
	e.escalation = x
	return x, nil
}

// entropyPrompt is Generate's hook for budget:F:entropy on a multi-mixer model: it runs the linear pass over
// the prompts (none at F = 0 or 1), places the prompt's attention tokens by entropy and returns them with
// the escalation rule for the generated tokens. For every other spec or variant it returns nil, nil.
func (e *Engine) entropyPrompt(spec schedule.Spec, prompts [][]int32) ([][]oryx.Mode, *schedule.Escalation, error) {
	b, _ := spec.Budget()
	if !isEntropyBudget(spec) || !e.model.Config.Variant.IsMultiMixer() {
		return nil, nil, nil
	}
	modes := make([][]oryx.Mode, len(prompts))
	var ent [][]float64
	if f := b.Fraction; f == 0 || f == 1 {
		m := oryx.Linear
		if f == 1 {
			m = oryx.Attention
		}
		for r, p := range prompts {
			modes[r] = slices.Repeat([]oryx.Mode{m}, len(p))
		}
		return modes, schedule.NewEscalation(b, modes, nil), nil
	}
	x, err := e.escalationExecs()
	if err != nil {
		return nil, nil, err
	}
	t := 0
	for _, p := range prompts {
		t = max(t, len(p))
	}
	tok := make([]int32, len(prompts)*t) // rows padded after their end: causality keeps it out
	for r, p := range prompts {
		copy(tok[r*t:], p)
	}
	all, err := x.scorer.Entropies(tok, make([]int32, len(tok)), len(prompts), t)
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
	return modes, schedule.NewEscalation(b, modes, ent), nil
}

// decodeStep is Generate's decode step: Step, or under an entropy budget (esc non-nil and not fixed)
// StepEscalate, whose escalated rows replace the tentative Linear of their last token in gen.Modes. It
// returns the logits and how many rows ran in attention beyond the modes passed in.
func (e *Engine) decodeStep(esc *schedule.Escalation, tokens []int32, modes []oryx.Mode, stopped []bool, promptLen []int, gen *Generation) ([][]float32, int, error) {
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
		if m == oryx.Attention {
			gen.Modes[b][len(gen.Modes[b])-1] = oryx.Attention
			extra++
		}
	}
	return logits, extra, err
}

// isEntropyBudget tells whether spec is a budget:F:entropy spec.
func isEntropyBudget(spec schedule.Spec) bool {
	b, ok := spec.Budget()
	return ok && b.Policy == schedule.PolicyEntropy
}
