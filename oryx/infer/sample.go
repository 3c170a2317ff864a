package infer

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Sampler picks the next token from a row of logits on the host. It runs in Go rather than in the graph
// because the pure-Go backend has no sort or top-k, and one row of vocabulary-size logits per step is
// cheap to copy out.
//
// The semantics follow Hugging Face generate with do_sample: divide the logits by Temperature, keep the
// TopK largest, keep the smallest most-probable set whose cumulative probability reaches TopP (at least
// one token), renormalise and draw. Temperature 0 means greedy (argmax, ties → lowest index), as does
// TopK 1. One difference from Hugging Face: top-k keeps exactly k tokens, breaking ties at the boundary
// by lower index, where Hugging Face keeps every token tied with the k-th.
//
// Logit conventions: -Inf means "never sample"; NaN is treated as -Inf; +Inf tokens (the limit of a
// growing logit) share all the probability equally, and greedy picks the first of them. A row with no
// token left (every logit -Inf or NaN) is an error, not a silent fallback, because it means the model or
// a mask is broken.
//
// The random stream is created lazily from Seed on the first draw and advances with every sampled
// token, so one Sampler with a given Seed replays the same sequence; greedy draws consume nothing. Reset
// restarts the stream. A Sampler is not safe for concurrent use, and copies made after the first draw
// share the stream.
type Sampler struct {
	Temperature float64 // ≥ 0; 0 = greedy
	TopK        int     // ≥ 0; 0 = off
	TopP        float64 // in (0, 1]; 0 or 1 = off
	Seed        uint64  // seed of the random stream

	rng *rand.Rand
}

// Greedy returns a sampler that always picks the argmax (lowest index on ties).
func Greedy() *Sampler { return &Sampler{} }

// NewSampler returns a validated sampler.
func NewSampler(temperature float64, topK int, topP float64, seed uint64) (*Sampler, error) {
	s := &Sampler{Temperature: temperature, TopK: topK, TopP: topP, Seed: seed}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// Validate checks the parameters and names the offending field.
func (s *Sampler) Validate() error {
	var errs []error
	if math.IsNaN(s.Temperature) || math.IsInf(s.Temperature, 0) || s.Temperature < 0 {
		errs = append(errs, fmt.Errorf("sampler: Temperature must be a finite number ≥ 0 (0 = greedy), got %v", s.Temperature))
	}
	if s.TopK < 0 {
		errs = append(errs, fmt.Errorf("sampler: TopK must be ≥ 0 (0 = off), got %d", s.TopK))
	}
	if math.IsNaN(s.TopP) || s.TopP < 0 || s.TopP > 1 {
		errs = append(errs, fmt.Errorf("sampler: TopP must be in (0, 1], or 0 = off, got %v", s.TopP))
	}
	return errors.Join(errs...)
}

// IsGreedy tells whether the sampler is deterministic argmax (Temperature 0 or TopK 1).
func (s *Sampler) IsGreedy() bool { return s.Temperature == 0 || s.TopK == 1 }

// Reset restarts the random stream from Seed.
func (s *Sampler) Reset() { s.rng = nil }

// String renders the parameters for logs.
func (s *Sampler) String() string {
	if s.Temperature == 0 {
		return "greedy"
	}
	return fmt.Sprintf("temperature=%g top_k=%d top_p=%g seed=%d", s.Temperature, s.TopK, s.TopP, s.Seed)
}

// Sample returns the token drawn from one row of logits. It errors on invalid parameters, an empty row
// or a row where no token has a finite or +Inf logit.
func (s *Sampler) Sample(logits []float32) (int, error) {
	if err := s.Validate(); err != nil {
		return 0, err
	}
	return s.sampleRow(logits)
}

// SampleBatch samples each of batch rows of a flat [batch, vocab] logits buffer, row by row from the
// same stream, so the result is deterministic for a seed. The error names the first failing row.
func (s *Sampler) SampleBatch(logits []float32, batch, vocab int) ([]int, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if batch <= 0 {
		return nil, fmt.Errorf("sampler: batch must be > 0, got %d", batch)
	}
	if vocab <= 0 {
		return nil, fmt.Errorf("sampler: vocab must be > 0, got %d", vocab)
	}
	if len(logits) != batch*vocab {
		return nil, fmt.Errorf("sampler: len(logits) = %d, want batch × vocab = %d × %d = %d",
			len(logits), batch, vocab, batch*vocab)
	}
	out := make([]int, batch)
	for b := range batch {
		tok, err := s.sampleRow(logits[b*vocab : (b+1)*vocab])
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", b, err)
		}
		out[b] = tok
	}
	return out, nil
}

// candidate is a token still in the running, with its scaled logit and later its probability.
type candidate struct {
	idx   int
	logit float64
	prob  float64
}

func (s *Sampler) sampleRow(logits []float32) (int, error) {
	cands, total, err := s.candidates(logits)
	if err != nil {
		return 0, err
	}
	if s.IsGreedy() {
		return cands[0].idx, nil
	}
	u := s.random().Float64() * total
	for _, c := range cands {
		if u < c.prob {
			return c.idx, nil
		}
		u -= c.prob
	}
	return cands[len(cands)-1].idx, nil // rounding: u landed on the upper edge
}

// random is the sampler's stream, created from Seed on first use.
func (s *Sampler) random() *rand.Rand {
	if s.rng == nil {
		s.rng = rand.New(rand.NewPCG(s.Seed, 0x6f7279782d73616d)) // "oryx-sam"
	}
	return s.rng
}

// candidates returns the tokens the sampler can draw from a row with their unnormalised probabilities and
// the sum of these: the argmax alone (probability 1) when greedy, else the survivors of temperature, top-k
// and top-p (sorted by decreasing logit when top-k or top-p cut, in index order otherwise).
func (s *Sampler) candidates(logits []float32) ([]candidate, float64, error) {
	if len(logits) == 0 {
		return nil, 0, errors.New("sampler: empty logits row")
	}
	// Candidates: finite logits, or only the +Inf ones when any exist (their limit takes all the mass).
	cands := make([]candidate, 0, len(logits))
	hasPosInf := false
	for i, l := range logits {
		if math.IsInf(float64(l), 1) {
			if !hasPosInf {
				hasPosInf = true
				cands = cands[:0]
			}
			cands = append(cands, candidate{idx: i})
			continue
		}
		if hasPosInf || math.IsNaN(float64(l)) || math.IsInf(float64(l), -1) {
			continue
		}
		cands = append(cands, candidate{idx: i, logit: float64(l)})
	}
	if len(cands) == 0 {
		return nil, 0, fmt.Errorf("sampler: no token has a finite logit (all %d are -Inf or NaN)", len(logits))
	}

	// Greedy: first maximum, no random draw.
	if s.IsGreedy() {
		best := cands[0]
		for _, c := range cands[1:] {
			if c.logit > best.logit {
				best = c
			}
		}
		best.prob = 1
		return []candidate{best}, 1, nil
	}

	for i := range cands {
		cands[i].logit /= s.Temperature
	}
	topP := s.TopP > 0 && s.TopP < 1
	if s.TopK > 0 && s.TopK < len(cands) || topP {
		// Descending by logit, ties by lower index; cands are in index order so a stable sort suffices.
		slices.SortStableFunc(cands, func(a, b candidate) int { return cmp.Compare(b.logit, a.logit) })
		if s.TopK > 0 && s.TopK < len(cands) {
			cands = cands[:s.TopK]
		}
	}

	// Softmax over the survivors, subtracting the max for stability.
	maxLogit := math.Inf(-1)
	for _, c := range cands {
		maxLogit = max(maxLogit, c.logit)
	}
	total := 0.0
	for i := range cands {
		cands[i].prob = math.Exp(cands[i].logit - maxLogit)
		total += cands[i].prob
	}

	if topP {
		// Sorted descending: keep tokens while the mass before them is < TopP (the first always stays).
		cum := 0.0
		keep := 0
		for keep < len(cands) && cum < s.TopP*total {
			cum += cands[keep].prob
			keep++
		}
		cands = cands[:keep]
		total = cum
	}
	return cands, total, nil
}

// distribution is the sampler's distribution over a row's tokens, dense and normalised: what Sample draws
// from (a one-hot at the argmax when greedy).
func (s *Sampler) distribution(logits []float32) ([]float64, error) {
	cands, total, err := s.candidates(logits)
	if err != nil {
		return nil, err
	}
	p := make([]float64, len(logits))
	for _, c := range cands {
		p[c.idx] = c.prob / total
	}
	return p, nil
}

// drawDense draws an index from weights w (≥ 0, summing to total > 0) with one uniform draw of the stream.
func (s *Sampler) drawDense(w []float64, total float64) int {
	u := s.random().Float64() * total
	last := 0
	for i, x := range w {
		if x <= 0 {
			continue
		}
		if u < x {
			return i
		}
		u -= x
		last = i
	}
	return last // rounding: u landed on the upper edge
}
