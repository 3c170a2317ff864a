// Package harnesstest holds test doubles for the evaluation harness: FakeModel, a harness.Model whose
// scores can be computed by hand.
package harnesstest

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
)

// FakeModel is a deterministic harness.Model for tests whose log-probabilities can be computed by hand: the
// "repeat" bigram model over an output width W (the padded vocabulary):
//
//	p(next | prev) = Stay                  if next == prev
//	               = (1-Stay) / (W-1)      otherwise
//
// so a continuation's log-likelihood is k·log(Stay) + (n-k)·log((1-Stay)/(W-1)) with k the tokens equal to
// their predecessor, and a token is greedy exactly when it repeats its predecessor. The model looks at no
// other context, so truncation does not change scores; it validates every request instead (non-empty
// context, the max-length bound, ids in range, AttentionFrom in range) and records what it was given, so
// tests can check what the harness sent.
//
// Generation is greedy under the same model (the last context token repeated) unless Generate is set, in
// which case the generated text is Generate(decoded prompt), tokenized and cut to MaxTokens tokens. Both
// stop at the tokenizer's EOS.
//
// Token accounting: an LL request runs len(Context)+len(Continuation)-1 positions, of which those at index
// >= AttentionFrom are attention; a generation runs len(Context) + generated-1 positions.
type FakeModel struct {
	Tok    tokenizers.Tokenizer
	MaxLen int     // 0: 2048
	Prefix int     // PrefixToken; set by NewFakeModel to Tok.EOS()
	Width  int     // output width W; 0: Tok.VocabSize()
	Stay   float64 // 0: 0.5
	// Generate, when set, scripts the generation: it receives the decoded (truncated) context.
	Generate func(prompt string) string

	mu      sync.Mutex
	LLSeen  []harness.LLRequest  // every LL request received, in order
	GenSeen []harness.GenRequest // every generation request received, in order
}

// NewFakeModel returns a FakeModel over tok with max length 2048, prefix token EOS, width
// tok.VocabSize() and Stay 0.5.
func NewFakeModel(tok tokenizers.Tokenizer) *FakeModel {
	return &FakeModel{Tok: tok, MaxLen: 2048, Prefix: tok.EOS(), Width: tok.VocabSize(), Stay: 0.5}
}

// Tokenizer returns Tok.
func (f *FakeModel) Tokenizer() tokenizers.Tokenizer { return f.Tok }

// MaxLength returns MaxLen (2048 when 0).
func (f *FakeModel) MaxLength() int {
	if f.MaxLen <= 0 {
		return 2048
	}
	return f.MaxLen
}

// PrefixToken returns Prefix.
func (f *FakeModel) PrefixToken() int { return f.Prefix }

func (f *FakeModel) width() int {
	if f.Width > 0 {
		return f.Width
	}
	return f.Tok.VocabSize()
}

func (f *FakeModel) stay() float64 {
	if f.Stay > 0 {
		return f.Stay
	}
	return 0.5
}

// LogProb returns log p(next | prev) of the repeat model.
func (f *FakeModel) LogProb(prev, next int) float64 {
	if next == prev {
		return math.Log(f.stay())
	}
	return math.Log((1 - f.stay()) / float64(f.width()-1))
}

func (f *FakeModel) checkIDs(ids []int) error {
	for _, id := range ids {
		if id < 0 || id >= f.width() {
			return fmt.Errorf("fake model: token id %d outside [0, %d)", id, f.width())
		}
	}
	return nil
}

// LogLikelihood scores the requests with the repeat model after validating them.
func (f *FakeModel) LogLikelihood(reqs []harness.LLRequest, progress func(int)) ([]harness.LLResult, error) {
	if f.stay() <= (1-f.stay())/float64(f.width()-1) {
		return nil, fmt.Errorf("fake model: Stay %g does not make repeating the argmax", f.stay())
	}
	f.mu.Lock()
	f.LLSeen = append(f.LLSeen, reqs...)
	f.mu.Unlock()
	out := make([]harness.LLResult, len(reqs))
	for i, r := range reqs {
		n := len(r.Context) + len(r.Continuation)
		switch {
		case len(r.Context) == 0:
			return nil, fmt.Errorf("fake model: request %d has an empty context", i)
		case n-1 > f.MaxLength():
			return nil, fmt.Errorf("fake model: request %d has %d input tokens > max length %d", i, n-1, f.MaxLength())
		case r.AttentionFrom < 0 || r.AttentionFrom > n:
			return nil, fmt.Errorf("fake model: request %d has AttentionFrom %d outside [0, %d]", i, r.AttentionFrom, n)
		}
		if err := f.checkIDs(r.Context); err != nil {
			return nil, err
		}
		if err := f.checkIDs(r.Continuation); err != nil {
			return nil, err
		}
		prev := r.Context[len(r.Context)-1]
		res := harness.LLResult{IsGreedy: true, Tokens: n - 1, AttentionTokens: max(0, n-1-r.AttentionFrom)}
		for _, t := range r.Continuation {
			res.LogLikelihood += f.LogProb(prev, t)
			res.IsGreedy = res.IsGreedy && t == prev
			prev = t
		}
		out[i] = res
		if progress != nil {
			progress(i + 1)
		}
	}
	return out, nil
}

// GenerateUntil generates greedily (or by Generate) after validating the requests.
func (f *FakeModel) GenerateUntil(reqs []harness.GenRequest, progress func(int)) ([]harness.GenResult, error) {
	f.mu.Lock()
	f.GenSeen = append(f.GenSeen, reqs...)
	f.mu.Unlock()
	out := make([]harness.GenResult, len(reqs))
	for i, r := range reqs {
		switch {
		case len(r.Context) == 0:
			return nil, fmt.Errorf("fake model: generation %d has an empty context", i)
		case len(r.Context)+r.MaxTokens > f.MaxLength():
			return nil, fmt.Errorf("fake model: generation %d: %d context tokens + %d to generate > max length %d", i, len(r.Context), r.MaxTokens, f.MaxLength())
		case r.AttentionFrom < 0 || r.AttentionFrom > len(r.Context)+r.MaxTokens:
			return nil, fmt.Errorf("fake model: generation %d has AttentionFrom %d outside [0, %d]", i, r.AttentionFrom, len(r.Context)+r.MaxTokens)
		}
		if err := f.checkIDs(r.Context); err != nil {
			return nil, err
		}
		var gen []int
		if f.Generate != nil {
			gen = f.Tok.Encode(f.Generate(f.Tok.Decode(r.Context)))
		} else {
			for range r.MaxTokens {
				gen = append(gen, r.Context[len(r.Context)-1])
			}
		}
		if len(gen) > r.MaxTokens {
			gen = gen[:r.MaxTokens]
		}
		for j, t := range gen {
			if t == f.Tok.EOS() {
				gen = gen[:j]
				break
			}
		}
		text := f.Tok.Decode(gen)
		for _, u := range r.Until {
			if u != "" && strings.Contains(text, u) {
				text = harness.CutAtStop(text, r.Until)
				break
			}
		}
		ran := len(r.Context) + max(0, len(gen)-1)
		out[i] = harness.GenResult{Text: text, Tokens: gen, TotalTokens: ran, AttentionTokens: max(0, ran-r.AttentionFrom)}
		if progress != nil {
			progress(i + 1)
		}
	}
	return out, nil
}
