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

// GenerateUntil implements harness.Model: greedy decoding with the engine's generation (infer.Engine.Generate,
// generateBatch), Options.Batch requests at a time (sorted by prompt length), fewer where the batch would not
// fit Options.GenMemMB (genBatch). Each row's prompt is prefilled in its schedule's modes and every generated
// token fed back in its decode mode (under Mixed: attention from AttentionFrom on; under a budget the running
// budget, and under budget:F:entropy the escalation rule of schedule.Escalation). A row stops at EOS, when
// its decoded text contains a stop string, or after MaxTokens; the text is returned up to there (the harness
// cuts at the stop string). A row's tokens do not depend on the batch it runs in.
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
	t, most := 1, 1
	for _, i := range cand {
		r := reqs[i]
		t, most = max(t, len(r.Context)), max(most, r.MaxTokens)
	}
	capacity := bucketCapacity(t + most) // as generateBatch's: the longest prompt + the largest MaxTokens
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

// generateBatch generates the requests idx together with the engine's generation (infer.Engine.Generate):
// the prompts in their modes (the request's schedule, or the budget's placement), greedy tokens, each fed back
// in its decode mode or escalated by the entropy budget's rule; a row ends at EOS (not kept), at its
// MaxTokens or when its text holds an Until string. It fills out[i] and the counters.
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
	e, err := m.engineFor(len(idx), capacity)
	if err != nil {
		return err
	}
	e.Free() // the last batch's caches go before this prefill allocates its own
	opts := infer.GenerateOptions{RowMaxTokens: make([]int, len(idx)),
		StopAfter: func(row int, toks []int32) bool { return containsAny(m.tok.Decode(toInts(toks)), reqs[idx[row]].Until) }}
	if c.Variant.IsMultiMixer() {
		opts.Modes = &infer.RowModes{Prompt: modes, Escalation: esc, Decode: func(row, pos, promptLen int) (oryx.Mode, error) {
			return specs[row].DecodeMode(pos, promptLen)
		}}
	}
	for row, i := range idx {
		opts.RowMaxTokens[row] = reqs[i].MaxTokens
		opts.MaxTokens = max(opts.MaxTokens, reqs[i].MaxTokens)
	}
	eos := m.tok.EOS()
	if eos >= 0 && eos < c.Vocab {
		opts.Stop = []int32{int32(eos)}
	}
	gen, err := e.Generate(prompts, opts)
	if err != nil {
		return fmt.Errorf("oryxlm: generation: %w", err)
	}
	fed := make([][]oryx.Mode, len(idx)) // the modes of the tokens fed back, per row
	for row, i := range idx {
		toks := gen.Tokens[row]
		fed[row] = gen.Modes[row][:len(toks)-1] // a row's last token is never fed
		if n := len(toks); int(toks[n-1]) == eos {
			toks, fed[row] = toks[:n-1], gen.Modes[row][:n-1] // EOS ends the text, not part of it
		}
		out[i].Tokens = toInts(toks)
		out[i].Text = m.tok.Decode(out[i].Tokens)
	}
	m.countFed(out, idx, prompts, fed, esc != nil)
	return nil
}

// genPrompts checks the batch's requests (a context, MaxTokens ≥ 1, ids in the vocabulary) and returns
// their prompts, each row's schedule spec and the KV-cache capacity the batch needs.
func (m *Model) genPrompts(reqs []harness.GenRequest, idx []int) (prompts [][]int32, specs []schedule.Spec, capacity int, err error) {
	c := m.model.Config
	prompts = make([][]int32, len(idx))
	specs = make([]schedule.Spec, len(idx))
	longest, most := 0, 0 // the longest prompt and the largest MaxTokens
	for row, i := range idx {
		r := reqs[i]
		if len(r.Context) == 0 || r.MaxTokens < 1 {
			return nil, nil, 0, fmt.Errorf("oryxlm: generation request %d: empty context or MaxTokens %d < 1", i, r.MaxTokens)
		}
		longest, most = max(longest, len(r.Context)), max(most, r.MaxTokens)
		prompts[row] = make([]int32, len(r.Context))
		for p, id := range r.Context {
			if id < 0 || id >= c.Vocab {
				return nil, nil, 0, fmt.Errorf("oryxlm: generation request %d: token %d outside the vocabulary [0, %d)", i, id, c.Vocab)
			}
			prompts[row][p] = int32(id)
		}
		if specs[row], err = m.specFor(r.AttentionFrom); err != nil {
			return nil, nil, 0, fmt.Errorf("oryxlm: generation request %d: %w", i, err)
		}
	}
	// Every row is fed until the last one ends (a row that has stopped gets dummy tokens): each needs its
	// prompt + the largest MaxTokens − 1 positions (infer.GenerateOptions.RowMaxTokens).
	return prompts, specs, longest + most, nil
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

// countFed adds the decode steps of the fed tokens (fed[row]: their modes, the first fed at the position
// after its prompt) to the results and the counters, step by step as they ran: a linear token's step or an
// attention token's; under the entropy budget's escalation (escalating) an attention token is an escalated
// candidate, its linear trial step counted too.
func (m *Model) countFed(out []harness.GenResult, idx []int, prompts [][]int32, fed [][]oryx.Mode, escalating bool) {
	c := m.model.Config
	for k := 0; ; k++ {
		stepped := false
		for row, i := range idx {
			if k >= len(fed[row]) {
				continue
			}
			stepped = true
			pos := len(prompts[row]) + k
			lin, att := oryx.FLOPsPerToken(c, pos+1, 0), oryx.FLOPsPerToken(c, pos+1, 1)
			step := lin // a candidate's trial step, or the step of a linear token
			out[i].TotalTokens++
			if fed[row][k] == oryx.Attention {
				out[i].AttentionTokens++
				step = att
				if escalating { // trial, then the attention step
					step += lin
					m.LinearPassTokens++
				}
			}
			m.FLOPs += step
			m.FLOPsGathered += step
		}
		if !stepped {
			return
		}
	}
}

// toInts widens token ids.
func toInts(ids []int32) []int {
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
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
