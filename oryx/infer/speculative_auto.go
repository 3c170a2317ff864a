package infer

// Speculative decoding that never loses: with AutoDraft, GenerateSpeculative measures, on the tokens it
// generates anyway, what a plain decode step costs and what a round of K = 2 and K = 4 drafts costs (draft
// steps, the verify pass, the commit; graphs compiled on first use are outvoted by the median of three), and
// from the acceptance rate seen so far estimates the tokens per second of each; it goes on with the fastest,
// plain decoding included, and says which once (SpeculationStats.Choice). Every 16 rounds it checks again with
// the latest costs and acceptance, and falls back to plain decoding for good when that has become faster
// (acceptance can fall as the text goes on). Speculation pays only where a verify pass of K+1 tokens costs
// well under K+1 plain steps — it reads the KV cache once for all queries — and the drafts are accepted:
// whether it does depends on the backend, the context (the cache rows a step reads) and the model's
// agreement with itself, hence the measurement.

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
	autoSamples = 3  // timed plain steps and rounds of each K before the first choice
	autoRecheck = 16 // rounds between checks of the choice
)

// autoDrafts are the draft lengths AutoDraft considers.
var autoDrafts = []int{2, 4}

// autoChooser is AutoDraft's state within one GenerateSpeculative call.
type autoChooser struct {
	plan    []int           // the probe: the k of each next unit of decoding (0: a plain step)
	seconds map[int][]int64 // nanoseconds of each plain step (0) and round (k)
	decided bool
	since   int // rounds since the last check
	plain   bool
}

func newAutoChooser() *autoChooser {
	a := &autoChooser{seconds: map[int][]int64{}}
	for _, k := range append([]int{0}, autoDrafts...) {
		for range autoSamples {
			a.plan = append(a.plan, k)
		}
	}
	return a
}

// next is the k of the next unit: the probe's, then the choice's.
func (a *autoChooser) next(r *specRun) int {
	if len(a.plan) > 0 {
		k := a.plan[0]
		a.plan = a.plan[1:]
		return k
	}
	if !a.decided {
		a.decided = true
		r.k = a.choose(r, "")
		return r.k
	}
	if r.k > 0 && !a.plain {
		if a.since++; a.since >= autoRecheck {
			a.since = 0
			if k := a.choose(r, "check"); k == 0 {
				r.k = 0
			}
		}
	}
	return r.k
}

// record keeps the duration of a unit of k.
func (a *autoChooser) record(k int, d time.Duration) {
	s := append(a.seconds[k], int64(d))
	if len(s) > 2*autoSamples { // the latest ones: costs change with the context
		s = s[len(s)-2*autoSamples:]
	}
	a.seconds[k] = s
}

// median is the median duration of k's units in seconds (+Inf with none).
func (a *autoChooser) median(k int) float64 {
	s := slices.Clone(a.seconds[k])
	if len(s) == 0 {
		return math.Inf(1)
	}
	slices.Sort(s)
	return float64(s[len(s)/2]) / 1e9
}

// choose picks the k with the most tokens per second — a plain step yields one token; a round of k drafts
// yields 1 + a + … + a^k with the acceptance rate a seen so far — and records the choice in words.
func (a *autoChooser) choose(r *specRun, why string) int {
	s := r.stats
	acc := 0.0
	if s.Drafted > 0 {
		acc = float64(s.Accepted) / float64(s.Drafted)
	}
	step := a.median(0)
	best, bestRate := 0, 1/step
	var parts []string
	for _, k := range autoDrafts {
		tokens := 0.0
		for i := 0; i <= k; i++ {
			tokens += math.Pow(acc, float64(i))
		}
		round := a.median(k)
		if rate := tokens / round; rate > bestRate {
			best, bestRate = k, rate
		}
		parts = append(parts, fmt.Sprintf("K=%d: a round costs %.2f steps for %.2f tokens", k, round/step, tokens))
	}
	choice := "plain decoding"
	if best > 0 {
		choice = fmt.Sprintf("K=%d", best)
	} else {
		a.plain = true
	}
	msg := fmt.Sprintf("speculative auto: %s (a plain step %.2f ms; %s; acceptance %.2f)", choice, step*1e3,
		strings.Join(parts, "; "), acc)
	switch {
	case why == "":
		s.Choice = msg
	case best == 0:
		s.Choice += fmt.Sprintf("; after %d rounds plain decoding became faster, used from there on (%s)", s.Rounds, msg)
	}
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
