package infer

// Self-speculative decoding: an Oryx model carries its own draft model. The linear readout costs the same per
// token at any context length, attention decoding grows with the cache; both read the same memory. Each
// round, per row:
//
//	draft   K tokens in linear mode, one cheap step each (all-linear steps on the state without its KV caches:
//	        the drafts' keys and values are never kept)
//	verify  the row's last token and the K drafts in one pass in the target schedule (verify.go: the cache
//	        is read once for all K+1 queries); the drafts are recomputed in their target modes, since a
//	        token's keys and values in layers above the first depend on the readout used below
//	accept  the longest prefix the target agrees with, then one token of the target's own (greedy: argmax
//	        agreement; sampling: standard speculative rejection sampling, so the output is distributed as
//	        the target's)
//	commit  the state after the last token kept (verify.go: rejected rows leave the caches exactly, the
//	        linear state and conv inputs are those after the accepted prefix)
//
// Greedy speculative decoding gives Generate's tokens and final state (tested to 1e-9 in float64).

import (
	"fmt"
	"slices"
	"time"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/internal/tensordata"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// MaxDraft bounds the number of tokens drafted per round (the verify pass holds K+1 linear states per row
// and layer).
const MaxDraft = 64

// SpeculationStats describes the rounds of Engine.GenerateSpeculative.
type SpeculationStats struct {
	// Draft is K, the most tokens drafted per row and round.
	Draft int
	// Rounds is the number of verify passes (each yields 1 to K+1 tokens per running row).
	Rounds int
	// Drafted counts the drafted tokens that were verified and Accepted those the target accepted, summed
	// over rows (drafts past a stop token that the target accepted count as accepted); AcceptanceRate is
	// Accepted / Drafted (0 when nothing was drafted).
	Drafted, Accepted int
	AcceptanceRate    float64
	// Discarded counts the tokens a round yielded after a row's stop token (accepted drafts, the target's
	// token), which are dropped with the rest of that row's round.
	Discarded int
	// DraftSeconds, VerifySeconds and CommitSeconds are the wall time of the draft steps, the verify passes
	// and the commits (graph execution and transfers); the rest of Generation.DecodeSeconds is sampling and
	// acceptance on the host (and, with AutoDraft, the plain steps).
	DraftSeconds, VerifySeconds, CommitSeconds float64
	// PlainSteps counts the plain decode steps AutoDraft ran (measuring them, or having chosen them).
	PlainSteps int
	// Choice is AutoDraft's decision in words — the draft length it chose (Draft; 0: plain decoding) and why,
	// and a later fall back to plain decoding — said once; empty for a fixed k.
	Choice string
}

// specExecs are the compiled graphs of speculative decoding, built on first use.
type specExecs struct {
	draft, commit *context.Exec
	verify        map[int]*context.Exec // by the cache rows the pass reads (readRows; 0: all), made on first use
	auto          map[int]*autoCosts    // AutoDraft's measured costs by cache bucket (readRows of the first step)
	draftIdx      []int                 // State.Flatten positions of the state without KV caches
}

func (e *Engine) speculativeExecs() (*specExecs, error) {
	if e.spec != nil {
		return e.spec, nil
	}
	m := e.model
	x := &specExecs{draftIdx: indicesWithoutCaches(m)}
	var err error
	x.draft, err = context.NewExec(e.backend, e.ctx, func(ctx *context.Context, in []*Node) []*Node {
		logits, st, _ := stepGraph(ctx, m, in[0], nil, unflattenWithout(m, in[1:]), true, 0)
		return append([]*Node{logits}, st.Flatten()...)
	})
	if err != nil {
		return nil, err
	}
	x.commit, err = context.NewExec(e.backend, e.ctx, func(ctx *context.Context, in []*Node) []*Node {
		return commitGraph(m, unflattenVerified(m, in[2:]), in[0], in[1]).Flatten()
	})
	if err != nil {
		return nil, err
	}
	x.verify, x.auto = map[int]*context.Exec{}, map[int]*autoCosts{}
	e.spec = x
	return x, nil
}

// verifyExec returns the verify graph whose attention reads the caches' first keys rows (0: all), made on
// first use.
func (e *Engine) verifyExec(x *specExecs, keys int) (*context.Exec, error) {
	if v := x.verify[keys]; v != nil {
		return v, nil
	}
	m := e.model
	v, err := context.NewExec(e.backend, e.ctx, func(ctx *context.Context, in []*Node) []*Node {
		logits, verified := verifyGraph(ctx, m, in[0], m.ModesOrNil(in[1]), in[2], m.Unflatten(in[3:]), keys)
		return append([]*Node{logits}, flattenVerified(verified)...)
	})
	if err != nil {
		return nil, err
	}
	x.verify[keys] = v
	return v, nil
}

// GenerateSpeculative is Generate with self-speculative decoding: each round drafts up to k tokens per row
// in linear mode, verifies them in one pass in the target schedule (opts.Schedule, as in Generate: by default
// attention for generated tokens), keeps the longest prefix the target agrees with plus one token of the
// target's, and rolls the state back to the last token kept. The output follows the target: with a greedy
// sampler it is Generate's output token for token (and the engine ends in the same state, up to rounding);
// with a random sampler each token is distributed as Generate's (speculative rejection sampling: a draft d
// drawn from the draft's distribution q is accepted with probability min(1, p(d)/q(d)), else the token is
// drawn from norm(max(0, p − q)); p and q are the sampler's distributions — temperature, top-k, top-p — of
// the target's and the draft's logits), though not the same tokens as Generate for a seed.
//
// Arguments are checked as in Generate (ragged prompts, stop tokens, capacity promptLen + MaxTokens − 1),
// and k must be in [1, MaxDraft], or AutoDraft: measure plain decoding and rounds of 2 and 4 drafts on the
// first tokens and go on with the fastest, plain decoding included (speculative_auto.go; with a random sampler
// by fixed costs instead of the clock, so that a seed gives the same output). It needs a multi-mixer variant (oryx-tm, oryx-tg). A row that has
// stopped is left as it is (Generate feeds it dummy tokens). Progress gets the largest number of tokens any
// row has so far, after the prefill and after each round. The result's Speculation holds the acceptance
// counts and the time split; AttentionFraction counts the tokens kept, as Generate does (drafts are extra
// linear-mode work). The engine is left after the last round's commit; LastLogits is cleared.
func (e *Engine) GenerateSpeculative(prompts [][]int32, k int, opts GenerateOptions) (*Generation, error) {
	const fn = "Engine.GenerateSpeculative"
	if err := e.checkSpeculative(fn, k, opts); err != nil {
		return nil, err
	}
	plan, err := e.planGenerate(fn, prompts, opts)
	if err != nil {
		return nil, err
	}
	x, err := e.speculativeExecs()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	gen, processed, attention := plan.newGeneration()
	r := &specRun{e: e, x: x, plan: plan, opts: opts, fn: fn, k: k, gen: gen, stats: &SpeculationStats{Draft: max(k, 0)},
		stopped: make([]bool, e.batch)}
	gen.Speculation = r.stats

	start := time.Now()
	logits, err := e.Prefill(prompts, plan.promptModes)
	if err != nil {
		return nil, fmt.Errorf("%s: prefill: %w", fn, err)
	}
	gen.PrefillSeconds = time.Since(start).Seconds()
	start = time.Now()
	e.lastLogits = nil
	if err := r.firstTokens(logits); err != nil {
		return nil, err
	}
	r.progress()
	var auto *autoChooser
	if k == AutoDraft {
		auto = newAutoChooser(x, readRows(slices.Max(e.pos)+1, e.capacity), !plan.sampler.IsGreedy())
	}
	for {
		if auto != nil {
			r.k = auto.next(r)
		}
		drafts, most, running := r.draftLengths()
		if !running {
			break
		}
		tick, drafted, accepted := time.Now(), r.stats.Drafted, r.stats.Accepted
		plain := r.k == 0 && r.canStep()
		if plain {
			err = r.plainStep()
		} else {
			err = r.round(drafts, most)
		}
		if err != nil {
			return nil, err
		}
		if auto != nil && (plain || r.k > 0) { // a round without drafts is not a plain step's cost
			auto.record(r.k, time.Since(tick), r.stats.Drafted-drafted, r.stats.Accepted-accepted)
		}
		r.progress()
	}
	gen.DecodeSeconds = time.Since(start).Seconds()
	if auto != nil && !auto.decided {
		r.stats.Choice = fmt.Sprintf("speculative auto: the generation ended while measuring (%d plain steps, %d rounds)",
			r.stats.PlainSteps, r.stats.Rounds)
	}
	r.finish(processed, attention)
	return gen, nil
}

// checkSpeculative refuses what speculative decoding cannot do: a single-readout variant, a draft length
// outside [1, MaxDraft], an entropy budget (which escalates token by token).
func (e *Engine) checkSpeculative(fn string, k int, opts GenerateOptions) error {
	if v := e.model.Config.Variant; !v.IsMultiMixer() {
		return fmt.Errorf("%s: variant %s has one readout; speculative decoding drafts with the linear readout and "+
			"verifies with attention, so it needs a multi-mixer variant (%s, %s)", fn, v, oryx.OryxTM, oryx.OryxTG)
	}
	if k != AutoDraft && (k < 1 || k > MaxDraft) {
		return fmt.Errorf("%s: the draft length k must be in [1, %d] or AutoDraft (%d), got %d", fn, MaxDraft, AutoDraft, k)
	}
	if opts.Modes != nil || opts.RowMaxTokens != nil || opts.StopAfter != nil {
		return fmt.Errorf("%s: Modes, RowMaxTokens and StopAfter are Generate's (the evaluations' decoding); "+
			"speculative decoding takes a Schedule, MaxTokens and Stop tokens", fn)
	}
	if spec, err := schedule.ParseSpec(opts.Schedule); err == nil && isEntropyBudget(spec) { // planGenerate reports a bad spec
		return fmt.Errorf("%s: schedule %q escalates tokens one by one from their linear-mode entropy; "+
			"speculative decoding verifies whole drafts in the schedule's modes: use one or the other", fn, opts.Schedule)
	}
	return nil
}

// specRun is one GenerateSpeculative call in progress: the rounds of draft, verify, accept and commit.
type specRun struct {
	e       *Engine
	x       *specExecs
	plan    *genPlan
	opts    GenerateOptions
	fn      string
	k       int
	gen     *Generation
	stats   *SpeculationStats
	stopped []bool
}

// keep appends tokens to row b (each with the mode it is fed in), up to and including a stop token, and
// returns how many it appended.
func (r *specRun) keep(b int, toks []int32) (int, error) {
	gen, lengths := r.gen, r.plan.lengths
	for i, tok := range toks {
		pos := lengths[b] + len(gen.Tokens[b])
		m, err := r.plan.decodeMode(b, pos, lengths[b])
		if err != nil {
			return i, fmt.Errorf("%s: row %d: %w", r.fn, b, err)
		}
		gen.Tokens[b] = append(gen.Tokens[b], tok)
		gen.Modes[b] = append(gen.Modes[b], m)
		if slices.Contains(r.opts.Stop, tok) {
			r.stopped[b] = true
			return i + 1, nil
		}
	}
	return len(toks), nil
}

// firstTokens samples each row's first token from the prefill's logits.
func (r *specRun) firstTokens(logits [][]float32) error {
	for b := range r.e.batch {
		tok, err := r.plan.sampler.Sample(logits[b])
		if err != nil {
			return fmt.Errorf("%s: row %d, token 0: %w", r.fn, b, err)
		}
		if _, err := r.keep(b, []int32{int32(tok)}); err != nil {
			return err
		}
	}
	return nil
}

// progress reports the largest number of tokens any row has.
func (r *specRun) progress() {
	if r.opts.Progress != nil {
		done := 0
		for _, t := range r.gen.Tokens {
			done = max(done, len(t))
		}
		r.opts.Progress(done, r.opts.MaxTokens)
	}
}

// draftLengths is how many tokens each running row drafts this round: at most what it may still generate,
// less the target's own token (-1: the row has stopped); most is the largest, running whether any row runs.
func (r *specRun) draftLengths() (drafts []int, most int, running bool) {
	drafts = make([]int, r.e.batch)
	for b := range r.e.batch {
		if r.stopped[b] || len(r.gen.Tokens[b]) >= r.opts.MaxTokens {
			drafts[b] = -1
			continue
		}
		running = true
		drafts[b] = min(r.k, r.opts.MaxTokens-len(r.gen.Tokens[b])-1)
		most = max(most, drafts[b])
	}
	return drafts, most, running
}

// round drafts in linear mode, verifies the last token and the drafts in the target's modes, accepts per
// row and commits what each row kept.
func (r *specRun) round(drafts []int, most int) error {
	e, gen, stats, fn := r.e, r.gen, r.stats, r.fn
	t := r.k + 1 // tokens per verify pass: the last token kept and up to k drafts
	last := make([]int32, e.batch)
	for b := range e.batch {
		last[b] = gen.Tokens[b][len(gen.Tokens[b])-1]
	}
	tick := time.Now()
	proposed, q, err := e.draft(r.x, r.plan.sampler, last, drafts, most)
	if err != nil {
		return fmt.Errorf("%s: draft: %w", fn, err)
	}
	stats.DraftSeconds += time.Since(tick).Seconds()

	tok, md, counts, err := r.verifyInputs(last, proposed, drafts, t)
	if err != nil {
		return err
	}
	tick = time.Now()
	open, target, err := e.verify(r.x, tok, md, counts, t)
	if err != nil {
		return fmt.Errorf("%s: verify: %w", fn, err)
	}
	stats.VerifySeconds += time.Since(tick).Seconds()
	stats.Rounds++

	accepted, err := r.accept(proposed, q, target, drafts)
	if err != nil {
		return err
	}
	tick = time.Now()
	if err := e.commit(r.x, open, accepted); err != nil {
		return fmt.Errorf("%s: commit: %w", fn, err)
	}
	stats.CommitSeconds += time.Since(tick).Seconds()
	return nil
}

// verifyInputs lays out the verify pass, t tokens per row: the last token and the drafts with the target's
// modes, and how many of them each row feeds (0: a stopped row, which stays as it is).
func (r *specRun) verifyInputs(last []int32, proposed [][]int32, drafts []int, t int) (tok, md, counts []int32, err error) {
	e := r.e
	tok, md, counts = make([]int32, e.batch*t), make([]int32, e.batch*t), make([]int32, e.batch)
	for b := range e.batch {
		if drafts[b] < 0 {
			continue // stopped: no token, the row stays as it is
		}
		counts[b] = int32(drafts[b] + 1)
		pos := e.pos[b]
		for i, tk := range append([]int32{last[b]}, proposed[b]...) {
			m, err := r.plan.decodeMode(b, pos+i, r.plan.lengths[b])
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%s: row %d: %w", r.fn, b, err)
			}
			tok[b*t+i], md[b*t+i] = tk, int32(m)
		}
	}
	return tok, md, counts, nil
}

// accept verifies each running row's drafts against the target's logits and keeps the result, returning
// how many tokens each row keeps in the state.
func (r *specRun) accept(proposed [][]int32, q [][][]float64, target [][][]float32, drafts []int) ([]int32, error) {
	stats := r.stats
	accepted := make([]int32, r.e.batch)
	for b := range r.e.batch {
		if drafts[b] < 0 {
			continue
		}
		out, n, err := r.plan.sampler.verifyDrafts(proposed[b], q[b], target[b][:drafts[b]+1])
		if err != nil {
			return nil, fmt.Errorf("%s: row %d, token %d: %w", r.fn, b, len(r.gen.Tokens[b]), err)
		}
		stats.Drafted += drafts[b]
		stats.Accepted += n
		// The tokens kept in the state: the last token and every appended one but the new last.
		kept, err := r.keep(b, out)
		if err != nil {
			return nil, err
		}
		accepted[b] = int32(kept)
		stats.Discarded += len(out) - kept
	}
	return accepted, nil
}

// finish counts the generated and fed tokens (every token but each row's last was fed), the attention
// fraction and the acceptance rate.
func (r *specRun) finish(processed, attention int) {
	gen, stats := r.gen, r.stats
	for b, toks := range gen.Tokens {
		gen.GeneratedTokens += len(toks)
		for _, m := range gen.Modes[b][:len(toks)-1] { // every token but the last was fed
			processed++
			if m == oryx.Attention {
				attention++
			}
		}
	}
	gen.AttentionFraction = float64(attention) / float64(processed)
	if stats.Drafted > 0 {
		stats.AcceptanceRate = float64(stats.Accepted) / float64(stats.Drafted)
	}
}

// draft runs most linear-mode steps from the current state without its KV caches, feeding last and then
// each row's drafts; row b keeps its first drafts[b] (< 0: none). It returns the drafts and, for a random
// sampler, the distribution each was drawn from. The engine's state is not modified.
func (e *Engine) draft(x *specExecs, sampler *Sampler, last []int32, drafts []int, most int) ([][]int32, [][][]float64, error) {
	proposed, q := make([][]int32, e.batch), make([][][]float64, e.batch)
	state := make([]*tensors.Tensor, len(x.draftIdx))
	for i, j := range x.draftIdx {
		state[i] = e.state[j]
	}
	owned := false // state holds the engine's tensors until the first step replaces them
	defer func() {
		if owned {
			for _, s := range state {
				s.FinalizeAll()
			}
		}
	}()
	feed := append([]int32(nil), last...)
	for j := range most {
		args := []any{tensors.FromFlatDataAndDimensions(append([]int32(nil), feed...), e.batch)}
		for _, s := range state {
			if owned {
				d, err := DonateTensorBuffer(s, e.backend, 0)
				if err != nil {
					return nil, nil, err
				}
				args = append(args, d)
			} else {
				args = append(args, s)
			}
		}
		outs, err := x.draft.Exec(args...)
		if err != nil {
			owned = false // donated
			return nil, nil, err
		}
		state, owned = outs[1:], true
		logits := e.logitsFlat(outs[0])
		v := e.model.Config.Vocab
		for b := range e.batch {
			if j >= drafts[b] {
				continue // this row's drafts are complete; it is fed its last token again, ignored
			}
			row := logits[b*v : (b+1)*v]
			var tok int
			if sampler.IsGreedy() {
				tok, err = sampler.sampleRow(row)
			} else {
				var p []float64
				if p, err = sampler.distribution(row); err == nil {
					tok = sampler.drawDense(p, 1)
					q[b] = append(q[b], p)
				}
			}
			if err != nil {
				return nil, nil, fmt.Errorf("row %d, draft %d: %w", b, j, err)
			}
			proposed[b] = append(proposed[b], int32(tok))
			feed[b] = int32(tok)
		}
	}
	return proposed, q, nil
}

// verify runs the verify pass on tokens and modes [B, t] (row-major) with counts [B], donating the state; it
// returns the open state for the commit and the logits per row and position.
func (e *Engine) verify(x *specExecs, tok, md, counts []int32, t int) ([]*tensors.Tensor, [][][]float32, error) {
	exec, err := e.verifyExec(x, readRows(slices.Max(e.pos)+t, e.capacity))
	if err != nil {
		return nil, nil, err
	}
	args := []any{tensors.FromFlatDataAndDimensions(tok, e.batch, t), tensors.FromFlatDataAndDimensions(md, e.batch, t),
		tensors.FromFlatDataAndDimensions(counts, e.batch)}
	if args, err = e.appendDonated(args, e.state); err != nil {
		return nil, nil, err
	}
	outs, err := exec.Exec(args...)
	e.state = nil // donated
	if err != nil {
		return nil, nil, fmt.Errorf("%w (the state was lost: Reset or Prefill before the next call)", err)
	}
	flat := e.logitsFlat(outs[0])
	v := e.model.Config.Vocab
	rows := make([][][]float32, e.batch)
	for b := range rows {
		rows[b] = make([][]float32, t)
		for i := range t {
			rows[b][i] = flat[(b*t+i)*v : (b*t+i+1)*v]
		}
	}
	return outs[1:], rows, nil
}

// commit replaces the state by the one after the first accepted[b] tokens of each row's verified tokens.
func (e *Engine) commit(x *specExecs, open []*tensors.Tensor, accepted []int32) error {
	pos := make([]int32, e.batch)
	for b, p := range e.pos {
		pos[b] = int32(p)
	}
	args := []any{tensors.FromFlatDataAndDimensions(pos, e.batch), tensors.FromFlatDataAndDimensions(accepted, e.batch)}
	args, err := e.appendDonated(args, open)
	if err != nil {
		return err
	}
	outs, err := x.commit.Exec(args...)
	if err != nil {
		return fmt.Errorf("%w (the state was lost: Reset or Prefill before the next call)", err)
	}
	e.setState(outs)
	return nil
}

// logitsFlat copies logits of any float dtype to a float32 host slice and frees the tensor.
func (e *Engine) logitsFlat(t *tensors.Tensor) []float32 {
	defer t.FinalizeAll()
	flat := tensordata.Float64s(t)
	out := make([]float32, len(flat))
	for i, x := range flat {
		out[i] = float32(x)
	}
	return out
}

// verifyDrafts decides one row's round. drafts[i] was drawn from the draft distribution q[i] (q is unused
// when the sampler is greedy); target[i] are the target's logits after the row's last token and drafts[:i],
// i = 0..len(drafts). It returns the tokens the round yields — the accepted drafts, then one token of the
// target's: the correction after a rejection, or the bonus token after the last draft — and the number of
// drafts accepted. Greedy: a draft is accepted when it is the target's argmax (no random draw). Otherwise
// speculative rejection sampling: accept d with probability min(1, p(d)/q(d)), else draw from
// norm(max(0, p − q)); the tokens are then distributed as the sampler's draws from the target.
func (s *Sampler) verifyDrafts(drafts []int32, q [][]float64, target [][]float32) ([]int32, int, error) {
	out := make([]int32, 0, len(drafts)+1)
	for i, d := range drafts {
		if s.IsGreedy() {
			y, err := s.sampleRow(target[i])
			if err != nil {
				return nil, 0, err
			}
			if int32(y) != d {
				return append(out, int32(y)), i, nil
			}
			out = append(out, d)
			continue
		}
		p, err := s.distribution(target[i])
		if err != nil {
			return nil, 0, err
		}
		if u := s.random().Float64(); u*q[i][d] < p[d] { // u < p(d)/q(d)
			out = append(out, d)
			continue
		}
		residual, total := make([]float64, len(p)), 0.0
		for j := range p {
			if r := p[j] - q[i][j]; r > 0 {
				residual[j], total = r, total+r
			}
		}
		if total <= 0 { // p == q up to rounding: a rejection then has probability ~0; draw from p
			residual, total = p, 1
		}
		return append(out, int32(s.drawDense(residual, total))), i, nil
	}
	y, err := s.sampleRow(target[len(drafts)])
	if err != nil {
		return nil, 0, err
	}
	return append(out, int32(y)), len(drafts), nil
}
