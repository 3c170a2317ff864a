package oryxlm

// Modes per request under the model's schedule — Mixed, a plain spec, or a budget (oryx/schedule/budget.go) — and
// the two passes of the entropy budget, with the FLOPs they cost.
//
// FLOPs are counted per request row (padding rows and length padding are not counted), in two accountings:
//
//   - Model.FLOPs, as the graphs compute them: the parallel forward of a multi-mixer model runs both readouts
//     at every token whatever the modes (schedule.ScheduleFLOPs, dense), so every pass costs the same;
//   - Model.FLOPsGathered, the same passes in the gathered accounting (oryx.AttentionCoreFLOPs: attention query
//     and core only at the attention positions; schedule.ScheduleFLOPs, gathered), the cost that falls with the
//     budget — the frontier's axis.
//
// The entropy budget's linear pass is counted for every request that needs it (fewer than all tokens in
// attention): densely as a full forward, gathered as an all-linear one; its second pass for every request
// with attention tokens. A request with no attention token uses the linear pass's scores (no second pass);
// one with all tokens in attention needs no linear pass. In decoding, a candidate token's linear trial step
// is counted, and its attention step when it escalates.

import (
	"fmt"
	"math/rand/v2"

	"github.com/oryx-go/oryx/internal/seedrand"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// rowSpec is one request row of a batch: its real length and what its schedule reads.
type rowSpec struct {
	n        int         // tokens of the row (the model's inputs); 0 for a padding row
	modes    []oryx.Mode // explicit modes (TokenScores); nil: from the schedule
	attnFrom int         // the task's split point (Mixed; budget:F:question when question is nil)
	question []bool      // budget:F:question: the question positions, n entries (nil: from attnFrom)
	seed     uint64      // budget:F:random: the row's stream
}

// Budget returns the model's budget schedule, if it has one.
func (m *Model) Budget() (schedule.Budget, bool) {
	if m.budget == nil {
		return schedule.Budget{}, false
	}
	return *m.budget, true
}

// entropyPolicy reports whether requests without explicit modes run the entropy budget's two passes.
func (m *Model) entropyPolicy() bool {
	return m.budget != nil && m.budget.Policy == schedule.PolicyEntropy && m.model.Config.Variant.IsMultiMixer()
}

// requestSeed is the random stream of request i under budget:F:random (one stream per request, so that
// equal lengths do not share a placement).
func requestSeed(i int) uint64 { return seedrand.SplitMix64(uint64(i) ^ 0x6275646765745f72) }

// modesOf returns the modes of a row under the schedule (nil for single-mixer variants). The entropy policy
// is not handled here (it needs the linear pass: scorePadded, entropyModes).
func (m *Model) modesOf(r rowSpec) ([]oryx.Mode, error) {
	if !m.model.Config.Variant.IsMultiMixer() {
		return nil, nil
	}
	if r.modes != nil {
		return r.modes, nil
	}
	if b := m.budget; b != nil {
		q := r.question
		if q == nil && b.Policy == schedule.PolicyQuestion {
			q = make([]bool, r.n)
			for p := max(r.attnFrom, 0); p < r.n; p++ {
				q[p] = true
			}
		}
		return b.Modes(r.n, q, nil, rand.New(rand.NewPCG(r.seed, 0x6f727978)))
	}
	spec, err := m.specFor(r.attnFrom)
	if err != nil {
		return nil, err
	}
	s, err := spec.ScheduleRows([]int{r.n}, 0)
	if err != nil {
		return nil, err
	}
	return s.Row(0), nil
}

// count returns the attention tokens of an n-token row read with modes (single-mixer variants: all for the
// Transformer, none otherwise) and adds its forward to the FLOP counters.
func (m *Model) count(modes []oryx.Mode, n int) (attn int) {
	c := m.model.Config
	if !c.Variant.IsMultiMixer() {
		f := float64(n) * oryx.FLOPsPerToken(c, n, 0)
		m.FLOPs += f
		m.FLOPsGathered += f
		if c.Variant.HasAttention() {
			return n
		}
		return 0
	}
	s, err := schedule.NewSchedule([][]oryx.Mode{modes})
	if err != nil {
		panic(err) // modes come from a schedule: a programming error
	}
	m.FLOPs += schedule.ScheduleFLOPs(c, s, 0, false)
	m.FLOPsGathered += schedule.ScheduleFLOPs(c, s, 0, true)
	return len(s.AttentionPositions(0))
}

// countLinearPass adds the entropy policy's linear pass over an n-token row to the counters; extra tells
// whether another pass follows (LinearPassTokens counts the tokens read twice).
func (m *Model) countLinearPass(n int, extra bool) {
	c := m.model.Config
	m.FLOPs += float64(n) * oryx.FLOPsPerToken(c, n, 0.5) // the graph runs both readouts
	m.FLOPsGathered += float64(n) * oryx.FLOPsPerToken(c, n, 0)
	if extra {
		m.LinearPassTokens += int64(n)
	}
}

// scorePadded scores one padded batch (tok [b, t] row-major; rows[r] describes row r) at pos and tgt
// ([b, k] row-major, −1 = padding) under the schedule, and returns the scores, each row's modes and its
// count of attention tokens. The FLOP counters grow by what the rows cost.
func (m *Model) scorePadded(tok []int32, b, t int, rows []rowSpec, pos, tgt []int32, k int) ([]float64, []bool, [][]oryx.Mode, []int, error) {
	modes := make([][]oryx.Mode, b)
	attn := make([]int, b)
	md := make([]int32, b*t)
	explicit := true
	for _, r := range rows {
		explicit = explicit && (r.n == 0 || r.modes != nil)
	}
	if !m.entropyPolicy() || explicit {
		for i, r := range rows {
			if r.n == 0 {
				continue
			}
			var err error
			if modes[i], err = m.modesOf(r); err != nil {
				return nil, nil, nil, nil, err
			}
			for p, x := range modes[i] {
				md[i*t+p] = int32(x)
			}
			attn[i] = m.count(modes[i], r.n)
		}
		lp, gr, err := m.score(tok, md, b, t, pos, tgt, k)
		return lp, gr, modes, attn, err
	}

	// The entropy budget: a linear pass for the rows that keep linear tokens, a second pass with the chosen
	// modes for the rows that have attention tokens.
	f := m.budget.Fraction
	pass1, pass2 := false, false
	for _, r := range rows {
		if r.n > 0 {
			pass1 = pass1 || schedule.BudgetCount(f, r.n) < r.n
			pass2 = pass2 || schedule.BudgetCount(f, r.n) > 0
		}
	}
	var lp1 []float64
	var gr1 []bool
	var ent []float64
	if pass1 {
		var err error
		if lp1, gr1, ent, err = m.scoreEntropy(tok, b, t, pos, tgt, k); err != nil {
			return nil, nil, nil, nil, fmt.Errorf("linear pass: %w", err)
		}
	}
	for i, r := range rows {
		if r.n == 0 {
			continue
		}
		var err error
		if schedule.BudgetCount(f, r.n) == r.n {
			modes[i], err = m.budget.Modes(r.n, nil, make([]float64, r.n), nil) // all attention
		} else {
			m.countLinearPass(r.n, schedule.BudgetCount(f, r.n) > 0)
			modes[i], err = m.budget.Modes(r.n, nil, ent[i*t:i*t+r.n], nil)
		}
		if err != nil {
			return nil, nil, nil, nil, err
		}
		for p, x := range modes[i] {
			md[i*t+p] = int32(x)
		}
	}
	if !pass2 {
		return lp1, gr1, modes, attn, nil
	}
	lp, gr, err := m.score(tok, md, b, t, pos, tgt, k)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	for i, r := range rows {
		if r.n == 0 {
			continue
		}
		if schedule.BudgetCount(f, r.n) == 0 { // the linear pass is this row's answer: no second pass counted
			copy(lp[i*k:(i+1)*k], lp1[i*k:(i+1)*k])
			copy(gr[i*k:(i+1)*k], gr1[i*k:(i+1)*k])
			continue
		}
		attn[i] = m.count(modes[i], r.n)
	}
	return lp, gr, modes, attn, nil
}

// scoreEntropy is the linear pass: every token in linear mode, the scores at pos and the entropy at every
// position ([b, t]).
func (m *Model) scoreEntropy(tok []int32, b, t int, pos, tgt []int32, k int) ([]float64, []bool, []float64, error) {
	if err := m.ensureEntropyScorer(); err != nil {
		return nil, nil, nil, err
	}
	zero := make([]int32, b*t)
	if m.opts.DenseScoring { // the oracle: dense scores, entropies from the tiled scorer
		lp, gr, err := m.score(tok, zero, b, t, pos, tgt, k)
		if err != nil {
			return nil, nil, nil, err
		}
		ent, err := m.scorer.Entropies(tok, zero, b, t)
		return lp, gr, ent, err
	}
	return m.scorer.ScoreEntropy(tok, zero, b, t, pos, tgt, k)
}

// ensureEntropyScorer prepares the tiled scorer (also under DenseScoring: it computes the entropies).
func (m *Model) ensureEntropyScorer() error {
	if m.scorer != nil {
		return nil
	}
	var err error
	m.scorer, err = oryx.NewScorer(m.backend, m.ctx, m.model, int64(m.opts.ScoreMemMB)<<20)
	return err
}

// entropyModes is the entropy budget's linear pass over prompts (generation): the modes of each prompt and
// its linear entropies (nil at F = 0 or 1, where no pass runs).
func (m *Model) entropyModes(prompts [][]int32) ([][]oryx.Mode, [][]float64, error) {
	b := *m.budget
	modes := make([][]oryx.Mode, len(prompts))
	if b.Fraction == 0 || b.Fraction == 1 {
		for i, p := range prompts {
			var err error
			if modes[i], err = b.Modes(len(p), nil, make([]float64, len(p)), nil); err != nil {
				return nil, nil, err
			}
		}
		return modes, nil, nil
	}
	if err := m.ensureEntropyScorer(); err != nil {
		return nil, nil, err
	}
	t := 0
	for _, p := range prompts {
		t = max(t, len(p))
	}
	t = (t + lengthBucket - 1) / lengthBucket * lengthBucket
	tok := make([]int32, len(prompts)*t)
	for i, p := range prompts {
		copy(tok[i*t:], p)
	}
	all, err := m.scorer.Entropies(tok, make([]int32, len(tok)), len(prompts), t)
	if err != nil {
		return nil, nil, fmt.Errorf("linear pass: %w", err)
	}
	ent := make([][]float64, len(prompts))
	for i, p := range prompts {
		ent[i] = all[i*t : i*t+len(p)]
		if schedule.BudgetCount(b.Fraction, len(p)) < len(p) {
			m.countLinearPass(len(p), true) // the prefill follows
		}
		if modes[i], err = b.Modes(len(p), nil, ent[i], nil); err != nil {
			return nil, nil, err
		}
	}
	return modes, ent, nil
}

// PolicyScores is TokenScores under the model's schedule instead of explicit modes: each sequence (T+1
// tokens, all the same length) is read with the modes its schedule gives — a budget's policy placing its
// attention tokens, question[i] (T entries, or nil) marking row i's question positions for
// budget:F:question (MQAR's query keys). It returns the scores, the modes used and each row's attention
// count. Plain specs and Mixed (with no split: all linear) apply as in LogLikelihood.
func (m *Model) PolicyScores(seqs [][]int32, question [][]bool) (logp [][]float32, greedy [][]bool, modes [][]oryx.Mode, attn []int, err error) {
	return m.tokenScores(seqs, nil, question)
}
