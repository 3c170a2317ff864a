package oryxlm

import (
	"fmt"
	"sort"
	"strings"

	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/infer"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// capacityBucket rounds KV-cache capacities up so that engines (and their compiled graphs) are reused.
const capacityBucket = 256

// GenerateUntil implements harness.Model: greedy decoding with the engine, Options.Batch requests at a time
// (sorted by prompt length), fewer where the batch would not fit Options.GenMemMB (genBatch). Each row's
// prompt is prefilled in its schedule's modes and every generated token fed back in its decode mode (under
// Mixed: attention from AttentionFrom on; under a budget the running budget, and under budget:F:entropy the
// escalation rule of schedule.Escalation through Engine.StepEscalate). A row stops at EOS, when its decoded text
// contains a stop string, or after MaxTokens; the text is returned up to there (the harness cuts at the stop
// string). A row's tokens do not depend on the batch it runs in.
func (m *Model) GenerateUntil(reqs []harness.GenRequest, progress func(done int)) ([]harness.GenResult, error) {
	order := sortedByLength(len(reqs), func(i int) int { return len(reqs[i].Context) })
	out := make([]harness.GenResult, len(reqs))
	done := 0
	for lo := 0; lo < len(order); {
		b := m.genBatch(reqs, order[lo:min(lo+m.opts.Batch, len(order))])
		idx := order[lo : lo+b]
		if err := m.generateBatch(reqs, idx, out); err != nil {
			return nil, err
		}
		lo += b
		done += len(idx)
		if progress != nil {
			progress(done)
		}
	}
	return out, nil
}

// genBatch returns how many of the candidate requests cand (the next Options.Batch, longest prompt first)
// to generate together: all of them, or as many rows as Options.GenMemMB holds for the longest prompt and
// the largest KV capacity among them (infer.GenerationBatch). Each new choice is reported to Options.Log.
func (m *Model) genBatch(reqs []harness.GenRequest, cand []int) int {
	t, capacity := 1, 1
	for _, i := range cand {
		r := reqs[i]
		t = max(t, len(r.Context))
		capacity = max(capacity, len(r.Context)+r.MaxTokens)
	}
	capacity = max(bucketCapacity(capacity), t)
	b, row := infer.GenerationBatch(m.model.Config, t, capacity, len(cand), m.computeDType().Size(), int64(m.opts.GenMemMB)<<20)
	if plan := [2]int{b, capacity}; m.opts.Log != nil && plan != m.genPlan {
		m.genPlan = plan
		fmt.Fprintf(m.opts.Log, "generation batch %d (of --batch %d): prompts up to %d tokens, KV capacity %d, ≈ %.1f MiB per row of --gen-mem-mb %d MiB\n",
			b, m.opts.Batch, t, capacity, float64(row)/(1<<20), m.opts.GenMemMB)
	}
	return b
}

// bucketCapacity rounds a KV capacity up to capacityBucket.
func bucketCapacity(capacity int) int {
	return (capacity + capacityBucket - 1) / capacityBucket * capacityBucket
}

// maxEngines bounds the engines kept (with their compiled prefill and step graphs) between generation
// batches: a probe's last, smaller batch or a longer prompt needs another (batch, capacity), and going back
// to an earlier shape should not compile its graphs again (XLA CPU: seconds each).
const maxEngines = 4

// keyedEngine is an engine and its (batch, bucketed capacity).
type keyedEngine struct {
	key [2]int
	eng *infer.Engine
}

// engineFor returns an engine of batch rows and (bucketed) capacity, reusing a kept one of that shape. The
// engine used before it gives back its KV caches (Free: one engine's caches alive at a time); beyond
// maxEngines the least recently used is finalized.
func (m *Model) engineFor(batch, capacity int) (*infer.Engine, error) {
	key := [2]int{batch, bucketCapacity(capacity)}
	if n := len(m.engines); n > 0 {
		if m.engines[n-1].key == key {
			return m.engines[n-1].eng, nil
		}
		m.engines[n-1].eng.Free()
	}
	for i, ke := range m.engines {
		if ke.key == key {
			m.engines = append(append(m.engines[:i:i], m.engines[i+1:]...), ke)
			return ke.eng, nil
		}
	}
	if len(m.engines) == maxEngines {
		m.engines[0].eng.Finalize()
		m.engines = m.engines[1:]
	}
	e, err := infer.NewEngine(m.backend, m.ctx, m.model, key[0], key[1])
	if err != nil {
		return nil, err
	}
	m.engines = append(m.engines, keyedEngine{key, e})
	return e, nil
}

func (m *Model) generateBatch(reqs []harness.GenRequest, idx []int, out []harness.GenResult) error {
	c := m.model.Config
	prompts, specs, capacity, err := m.genPrompts(reqs, idx)
	if err != nil {
		return err
	}
	modes, esc, err := m.genModes(reqs, idx, prompts)
	if err != nil {
		return err
	}
	for row, i := range idx {
		out[i].AttentionTokens, out[i].TotalTokens = m.count(modes[row], len(prompts[row])), len(prompts[row])
	}
	if !c.Variant.IsMultiMixer() {
		modes = nil
	}
	e, err := m.engineFor(len(idx), capacity)
	if err != nil {
		return err
	}
	e.Free() // the last batch's caches go before this prefill allocates its own
	logits, err := e.Prefill(prompts, modes)
	if err != nil {
		return fmt.Errorf("oryxlm: prefill: %w", err)
	}
	running := make([]bool, len(idx))
	gen := make([][]int, len(idx))
	for row := range running {
		running[row] = true
	}
	for k := 0; ; k++ {
		st, any, err := m.nextStep(reqs, idx, prompts, specs, esc, logits, running, gen)
		if err != nil {
			return err
		}
		if !any {
			break
		}
		if esc != nil {
			logits, st.modes, _, err = e.StepEscalate(st.next, st.candidate, func(row int, l []float64) bool { return esc.Decide(row, st.pos[row], l) })
		} else {
			var sm []oryx.Mode
			if c.Variant.IsMultiMixer() {
				sm = st.modes
			}
			logits, err = e.Step(st.next, sm)
		}
		if err != nil {
			return fmt.Errorf("oryxlm: decode step %d: %w", k, err)
		}
		m.countStep(st, idx, out)
	}
	for row, i := range idx {
		out[i].Tokens = gen[row]
		out[i].Text = m.tok.Decode(gen[row])
	}
	return nil
}

// genPrompts checks the batch's requests (a context, MaxTokens ≥ 1, ids in the vocabulary) and returns
// their prompts, each row's schedule spec and the KV-cache capacity the batch needs.
func (m *Model) genPrompts(reqs []harness.GenRequest, idx []int) (prompts [][]int32, specs []string, capacity int, err error) {
	c := m.model.Config
	prompts = make([][]int32, len(idx))
	specs = make([]string, len(idx))
	for row, i := range idx {
		r := reqs[i]
		if len(r.Context) == 0 || r.MaxTokens < 1 {
			return nil, nil, 0, fmt.Errorf("oryxlm: generation request %d: empty context or MaxTokens %d < 1", i, r.MaxTokens)
		}
		capacity = max(capacity, len(r.Context)+r.MaxTokens)
		prompts[row] = make([]int32, len(r.Context))
		for p, id := range r.Context {
			if id < 0 || id >= c.Vocab {
				return nil, nil, 0, fmt.Errorf("oryxlm: generation request %d: token %d outside the vocabulary [0, %d)", i, id, c.Vocab)
			}
			prompts[row][p] = int32(id)
		}
		specs[row] = m.specFor(r.AttentionFrom)
	}
	return prompts, specs, capacity, nil
}

// genModes are the prompts' modes; under an entropy budget the linear pass first, and the escalation rule for
// the generated tokens (none to decide at F = 0 or 1).
func (m *Model) genModes(reqs []harness.GenRequest, idx []int, prompts [][]int32) ([][]oryx.Mode, *schedule.Escalation, error) {
	modes := make([][]oryx.Mode, len(idx))
	if m.entropyPolicy() {
		md, ent, err := m.entropyModes(prompts)
		if err != nil {
			return nil, nil, fmt.Errorf("oryxlm: generation: %w", err)
		}
		if f := m.budget.Fraction; f != 0 && f != 1 { // else every generated token's mode is fixed (DecodeMode's rule)
			return md, schedule.NewEscalation(*m.budget, md, ent), nil
		}
		return md, nil, nil
	}
	for row, i := range idx {
		var err error
		if modes[row], err = m.modesOf(rowSpec{n: len(prompts[row]), attnFrom: reqs[i].AttentionFrom, seed: requestSeed(i)}); err != nil {
			return nil, nil, fmt.Errorf("oryxlm: generation request %d: %w", i, err)
		}
	}
	return modes, nil, nil
}

// genStep is one decode step of a generation batch, per row: the token fed (a dummy for a stopped row, to
// keep the batch aligned), its mode, whether it is a real token, the position it is fed at, and whether the
// escalation rule decides its mode (then the step's modes come from StepEscalate).
type genStep struct {
	next      []int32
	modes     []oryx.Mode
	fed       []bool
	pos       []int
	candidate []bool
}

// nextStep takes each running row's greedy token from logits, ends the rows that stop (EOS, MaxTokens, an
// Until string) and prepares the step that feeds the others' tokens; any is false when no row runs.
func (m *Model) nextStep(reqs []harness.GenRequest, idx []int, prompts [][]int32, specs []string, esc *schedule.Escalation,
	logits [][]float32, running []bool, gen [][]int) (st *genStep, any bool, err error) {
	eos := m.tok.EOS()
	n := len(idx)
	st = &genStep{next: make([]int32, n), modes: make([]oryx.Mode, n), fed: make([]bool, n), pos: make([]int, n),
		candidate: make([]bool, n)}
	for row, i := range idx {
		if !running[row] {
			st.next[row] = prompts[row][len(prompts[row])-1] // a dummy keeps the batch aligned
			continue
		}
		tok := argmax(logits[row])
		r := reqs[i]
		if tok == eos {
			running[row] = false
			continue
		}
		gen[row] = append(gen[row], tok)
		if len(gen[row]) >= r.MaxTokens || containsAny(m.tok.Decode(gen[row]), r.Until) {
			running[row] = false
			continue
		}
		st.pos[row] = len(r.Context) + len(gen[row]) - 1 // the position the token is fed at
		st.next[row], st.fed[row], any = int32(tok), true, true
		if esc != nil { // decided by the linear trial step
			st.candidate[row] = esc.Candidate(row, st.pos[row])
			continue
		}
		if st.modes[row], err = m.decodeMode(specs[row], st.pos[row], len(r.Context)); err != nil {
			return nil, false, fmt.Errorf("oryxlm: generation request %d: %w", i, err)
		}
	}
	return st, any, nil
}

// countStep adds a decode step's tokens and FLOPs to the results and the counters: a linear token's step,
// an attention token's, or for an escalated candidate both its linear trial and its attention step.
func (m *Model) countStep(st *genStep, idx []int, out []harness.GenResult) {
	c := m.model.Config
	for row, i := range idx {
		if !st.fed[row] {
			continue
		}
		lin, att := oryx.FLOPsPerToken(c, st.pos[row]+1, 0), oryx.FLOPsPerToken(c, st.pos[row]+1, 1)
		step := lin // a candidate's trial step, or the step of a linear token
		out[i].TotalTokens++
		if st.modes[row] == oryx.Attention {
			out[i].AttentionTokens++
			step = att
			if st.candidate[row] { // trial, then the attention step
				step += lin
				m.LinearPassTokens++
			}
		}
		m.FLOPs += step
		m.FLOPsGathered += step
	}
}

func argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

func containsAny(s string, subs []string) bool {
	for _, u := range subs {
		if u != "" && strings.Contains(s, u) {
			return true
		}
	}
	return false
}

// sortedByLength returns 0..n-1 ordered by decreasing length (stable).
func sortedByLength(n int, length func(i int) int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return length(order[a]) > length(order[b]) })
	return order
}
