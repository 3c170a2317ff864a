package infer

// Speculative decoding that never loses: with AutoDraft, GenerateSpeculative measures, on the tokens it
// generates anyway, what a plain decode step costs and what a round of K = 2 (and, when it can still pay, K = 4)
// drafts costs — draft steps, the verify pass, the commit; the fastest of a few, so that a compile on first use
// or a busy moment does not count — estimates each one's tokens per second from the acceptance rate seen so far,
// and goes on with the fastest, plain decoding included, saying which once (SpeculationStats.Choice). Every 16
// rounds it checks again with the latest costs and acceptance and falls back to plain decoding for good when
// that has become faster (acceptance can fall as the text goes on). The costs it measured are kept per cache
// bucket (readRows: what a step reads) for the engine's later calls, which then decide at once: only an
// engine's first call at a context size pays for the measurement (a few rounds).
//
// With a random sampler the tokens depend on the draft lengths used (rejection sampling draws differently
// from a plain step), so a choice made by the clock would make the output of a seed vary from run to run.
// There AutoDraft times nothing: every call runs the whole probe (3 plain steps, 2 rounds of K = 2, 2 of
// K = 4; none skipped, nothing kept from the engine's earlier calls) and chooses, and checks again, by the
// same tokens-per-cost rule with fixed costs in plain steps — a round of K drafts costs 1 + K/2 (the verify
// pass about a step, a linear draft step half of one: autoDraftShare) — and the acceptance counted on this
// call's tokens. The choice is then a function of the seed, the prompts and the model: the same seed gives
// the same output. The costs are a model, not a measurement: where a verify pass costs far more than a step
// (XLA CPU, docs/inference.md) it may choose speculation that does not pay; --speculative 0 or K decides there.
//
// Speculation pays only where a verify pass of K+1 tokens costs well under K+1 plain steps — it reads the KV
// cache once for all queries — and the drafts are accepted: whether it does depends on the backend, the context
// and the model's agreement with itself, hence the measurement.

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/oryx-go/oryx/oryx"
)

// AutoDraft, as GenerateSpeculative's k, chooses between plain decoding and K = 2 or 4 drafts per round by
// measuring them (speculative_auto.go).
const AutoDraft = -1

const (
	autoSteps   = 3  // plain steps timed before the first choice
	autoRounds  = 2  // rounds of each K timed before the first choice
	autoRecheck = 16 // rounds between checks of the choice
)

// autoDrafts are the draft lengths AutoDraft considers.
var autoDrafts = []int{2, 4}

// autoDraftShare is the cost of a linear draft step in plain steps that AutoDraft assumes with a random
// sampler (untimed; a round of k drafts: 1 + k·autoDraftShare plain steps).
const autoDraftShare = 0.5

// autoCosts are the fastest durations seen of a plain step (key 0) and of a round of k drafts, at one cache
// bucket, with the drafts and acceptances counted there: an engine's memory across GenerateSpeculative calls.
type autoCosts struct {
	fastest           map[int]time.Duration
	drafted, accepted int
}

// autoChooser is AutoDraft's state within one GenerateSpeculative call.
type autoChooser struct {
	plan    []int // the probe: the k of each next unit of decoding (0: a plain step)
	costs   *autoCosts
	decided bool
	since   int // rounds since the last check
	plain   bool
	// untimed: a random sampler's choice, made from fixed costs and this call's acceptance (reproducible
	// for a seed), not from the clock.
	untimed bool
}

// newAutoChooser starts AutoDraft on engine x's costs at the cache bucket of the first decode step, probing
// what they lack; untimed (a random sampler) probes everything on costs of its own, neither read from nor
// kept in x.
func newAutoChooser(x *specExecs, bucket int, untimed bool) *autoChooser {
	c := x.auto[bucket]
	if untimed {
		c = &autoCosts{fastest: map[int]time.Duration{}}
	} else if c == nil {
		c = &autoCosts{fastest: map[int]time.Duration{}}
		x.auto[bucket] = c
	}
	a := &autoChooser{costs: c, untimed: untimed}
	if _, ok := c.fastest[0]; !ok {
		a.plan = slices.Repeat([]int{0}, autoSteps)
	}
	for _, k := range autoDrafts {
		if _, ok := c.fastest[k]; !ok {
			a.plan = append(a.plan, slices.Repeat([]int{k}, autoRounds)...)
		}
	}
	return a
}

// next is the k of the next unit: the probe's, then the choice's.
func (a *autoChooser) next(r *specRun) int {
	if len(a.plan) > 0 && a.plan[0] == 4 && a.hopeless(r, 4) {
		a.plan = nil // K = 4 cannot pay even if every draft were accepted: skip its rounds
	}
	if len(a.plan) > 0 {
		k := a.plan[0]
		a.plan = a.plan[1:]
		return k
	}
	if !a.decided {
		a.decided = true
		r.k = a.choose(r, false)
		return r.k
	}
	if r.k > 0 && !a.plain {
		if a.since++; a.since >= autoRecheck {
			a.since = 0
			r.k = a.choose(r, true)
		}
	}
	return r.k
}

// record keeps the duration of a unit of k (and the drafts of a round), the fastest seen of each k.
func (a *autoChooser) record(k int, d time.Duration, drafted, accepted int) {
	if f, ok := a.costs.fastest[k]; !ok || d < f {
		a.costs.fastest[k] = d
	}
	a.costs.drafted += drafted
	a.costs.accepted += accepted
}

// seconds is the fastest duration of k's units in seconds (+Inf with none); untimed, the fixed cost of a
// unit of k in plain steps (1 for a plain step, 1 + k·autoDraftShare for a round) once k has been probed.
func (a *autoChooser) seconds(k int) float64 {
	f, ok := a.costs.fastest[k]
	switch {
	case !ok:
		return math.Inf(1)
	case a.untimed:
		return 1 + float64(k)*autoDraftShare
	}
	return f.Seconds()
}

// hopeless reports whether rounds of k ≥ 2 drafts lose to plain steps even with every draft accepted: a round
// of k drafts costs at least one of 2 and yields at most k+1 tokens.
func (a *autoChooser) hopeless(r *specRun, k int) bool {
	round2, step := a.seconds(2), a.seconds(0)
	if math.IsInf(round2, 1) || math.IsInf(step, 1) {
		return false
	}
	return round2 >= float64(k+1)*step
}

// acceptance is the fraction of drafts accepted at this bucket so far (0 with none).
func (a *autoChooser) acceptance() float64 {
	if a.costs.drafted == 0 {
		return 0
	}
	return float64(a.costs.accepted) / float64(a.costs.drafted)
}

// choose picks the k with the most tokens per second — a plain step yields one token; a round of k drafts
// yields 1 + a + … + a^k with the acceptance rate a — and records the choice in words; check marks a later
// check, which only ever falls back to plain decoding.
func (a *autoChooser) choose(r *specRun, check bool) int {
	acc, step := a.acceptance(), a.seconds(0)
	best, bestRate := 0, 1/step
	var parts []string
	for _, k := range autoDrafts {
		round := a.seconds(k)
		if math.IsInf(round, 1) {
			continue
		}
		tokens := 0.0
		for i := 0; i <= k; i++ {
			tokens += math.Pow(acc, float64(i))
		}
		if rate := tokens / round; rate > bestRate {
			best, bestRate = k, rate
		}
		parts = append(parts, fmt.Sprintf("K=%d: a round costs %.2f steps for %.2f tokens", k, round/step, tokens))
	}
	s := r.stats
	msg := fmt.Sprintf("(a plain step %.2f ms; %s; acceptance %.2f)", step*1e3, strings.Join(parts, "; "), acc)
	if a.untimed {
		msg = fmt.Sprintf("(sampling: not timed, so that the seed gives the same output; assumed costs: %s; acceptance %.2f)",
			strings.Join(parts, "; "), acc)
	}
	switch {
	case !check && best == 0:
		s.Choice = "speculative auto: plain decoding " + msg
	case !check:
		s.Choice = fmt.Sprintf("speculative auto: K=%d %s", best, msg)
	case best == 0:
		s.Choice += fmt.Sprintf("; after %d rounds plain decoding became faster, used from there on %s", s.Rounds, msg)
	default:
		return r.k // a check keeps the choice unless plain decoding has become faster
	}
	a.plain = best == 0
	s.Draft = best
	return best
}

// plainStep feeds every row's last token with Step and samples each row's next token. Used only when every
// row runs (canStep); otherwise a round without drafts does the same and leaves the other rows as they are.
func (r *specRun) plainStep() error {
	e, gen := r.e, r.gen
	tokens, modes := make([]int32, e.batch), make([]oryx.Mode, e.batch)
	for b := range e.batch {
		toks := gen.Tokens[b]
		tokens[b], modes[b] = toks[len(toks)-1], gen.Modes[b][len(toks)-1]
	}
	logits, err := e.Step(tokens, modes)
	if err != nil {
		return fmt.Errorf("%s: plain step: %w", r.fn, err)
	}
	e.lastLogits = nil
	r.stats.PlainSteps++
	for b := range e.batch {
		tok, err := r.plan.sampler.Sample(logits[b])
		if err != nil {
			return fmt.Errorf("%s: row %d, token %d: %w", r.fn, b, len(gen.Tokens[b]), err)
		}
		if _, err := r.keep(b, []int32{int32(tok)}); err != nil {
			return err
		}
	}
	return nil
}

// canStep reports whether a plain Step may feed every row: none has stopped or reached MaxTokens (Generate
// feeds such rows dummy tokens, which here, with rows that drifted apart in rounds, could overrun a cache).
func (r *specRun) canStep() bool {
	for b, t := range r.gen.Tokens {
		if r.stopped[b] || len(t) >= r.opts.MaxTokens {
			return false
		}
	}
	return true
}
