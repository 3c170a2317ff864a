package infer

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var negInf = float32(math.Inf(-1))

func softmax64(logits []float32, temperature float64) []float64 {
	m := math.Inf(-1)
	for _, l := range logits {
		m = max(m, float64(l)/temperature)
	}
	p := make([]float64, len(logits))
	total := 0.0
	for i, l := range logits {
		p[i] = math.Exp(float64(l)/temperature - m)
		total += p[i]
	}
	for i := range p {
		p[i] /= total
	}
	return p
}

// counts draws n tokens and returns their histogram.
func counts(t *testing.T, s *Sampler, logits []float32, n int) []int {
	t.Helper()
	h := make([]int, len(logits))
	for range n {
		tok, err := s.Sample(logits)
		require.NoError(t, err)
		h[tok]++
	}
	return h
}

// chiSquare returns Σ (observed − expected)² / expected over tokens with expected mass > 0, and fails if
// a token with zero expected mass was drawn.
func chiSquare(t *testing.T, h []int, p []float64, n int) float64 {
	t.Helper()
	x := 0.0
	for i := range h {
		e := p[i] * float64(n)
		if e == 0 {
			assert.Zero(t, h[i], "token %d has zero probability", i)
			continue
		}
		d := float64(h[i]) - e
		x += d * d / e
	}
	return x
}

func TestGreedyIsArgmax(t *testing.T) {
	g := Greedy()
	tok, err := g.Sample([]float32{0.1, 3, -2, 2.9})
	require.NoError(t, err)
	assert.Equal(t, 1, tok)
	tok, err = g.Sample([]float32{1, 5, 5, 2}) // ties → lowest index
	require.NoError(t, err)
	assert.Equal(t, 1, tok)
	tok, err = g.Sample([]float32{float32(math.NaN()), negInf, -7}) // NaN behaves as -Inf
	require.NoError(t, err)
	assert.Equal(t, 2, tok)
	assert.True(t, g.IsGreedy())
	assert.Equal(t, "greedy", g.String())
}

func TestTopK1IsGreedy(t *testing.T) {
	logits := []float32{0.5, 1.5, 1.4, -1, 1.5}
	s, err := NewSampler(1.3, 1, 0, 77)
	require.NoError(t, err)
	for range 100 {
		tok, err := s.Sample(logits)
		require.NoError(t, err)
		assert.Equal(t, 1, tok)
	}
}

func TestSamplerDeterminism(t *testing.T) {
	logits := []float32{0, 1, 2, 0.5, -1, 1.5, 0.2, 0.9}
	draw := func(seed uint64) []int {
		s := &Sampler{Temperature: 1, Seed: seed}
		out := make([]int, 200)
		for i := range out {
			tok, err := s.Sample(logits)
			require.NoError(t, err)
			out[i] = tok
		}
		return out
	}
	a, b, c := draw(5), draw(5), draw(6)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, c)

	// Reset replays the stream.
	s := &Sampler{Temperature: 1, Seed: 5}
	first, _ := s.Sample(logits)
	s.Reset()
	again, _ := s.Sample(logits)
	assert.Equal(t, first, again)
	assert.Equal(t, a[0], first)
}

func TestSamplerMatchesSoftmax(t *testing.T) {
	logits := []float32{1.0, 0.2, -0.5, 2.0, 0.7}
	const n = 20000
	for _, temp := range []float64{1, 0.7, 2} {
		s := &Sampler{Temperature: temp, Seed: 123}
		h := counts(t, s, logits, n)
		x := chiSquare(t, h, softmax64(logits, temp), n)
		// 4 degrees of freedom: P(χ² > 18.47) = 0.001.
		assert.Less(t, x, 18.47, "temperature %v: histogram %v", temp, h)
	}
}

func TestTopKExcludesOthers(t *testing.T) {
	logits := []float32{0.1, 2.0, 0.3, 1.9, 1.8, -0.2}
	s := &Sampler{Temperature: 1, TopK: 3, Seed: 1}
	const n = 12000
	h := counts(t, s, logits, n)
	p := softmax64([]float32{negInf, 2.0, negInf, 1.9, 1.8, negInf}, 1)
	assert.Zero(t, h[0]+h[2]+h[5], "tokens outside the top 3: %v", h)
	assert.Less(t, chiSquare(t, h, p, n), 13.82) // 2 dof, p = 0.001

	// Exactly k survive, ties at the boundary go to the lower index.
	s = &Sampler{Temperature: 1, TopK: 2, Seed: 1}
	h = counts(t, s, []float32{1, 1, 1, 1}, 2000)
	assert.Zero(t, h[2]+h[3], "%v", h)
	assert.Positive(t, h[0])
	assert.Positive(t, h[1])
}

func TestTopPPeaked(t *testing.T) {
	logits := []float32{0, 10, 1, 0.5} // top token ≈ 0.9997
	s := &Sampler{Temperature: 1, TopP: 0.9, Seed: 3}
	h := counts(t, s, logits, 2000)
	assert.Equal(t, 2000, h[1])

	// Tiny TopP still keeps one token.
	s = &Sampler{Temperature: 1, TopP: 1e-9, Seed: 3}
	h = counts(t, s, []float32{0, 0.1, 0.2}, 500)
	assert.Equal(t, 500, h[2])
}

func TestTopPNucleus(t *testing.T) {
	// Probabilities 0.5, 0.3, 0.15, 0.05: TopP 0.7 keeps {0, 1} (0.5 < 0.7 ≤ 0.8).
	probs := []float64{0.5, 0.3, 0.15, 0.05}
	logits := make([]float32, len(probs))
	for i, p := range probs {
		logits[i] = float32(math.Log(p))
	}
	s := &Sampler{Temperature: 1, TopP: 0.7, Seed: 8}
	const n = 10000
	h := counts(t, s, logits, n)
	assert.Zero(t, h[2]+h[3])
	assert.Less(t, chiSquare(t, h, []float64{0.625, 0.375, 0, 0}, n), 10.83) // 1 dof

	// Top-k then top-p: k=3 renormalises to 0.526, 0.316, 0.158; TopP 0.8 keeps {0, 1}.
	s = &Sampler{Temperature: 1, TopK: 3, TopP: 0.8, Seed: 8}
	h = counts(t, s, logits, n)
	assert.Zero(t, h[2]+h[3])
}

func TestSmallTemperatureIsGreedy(t *testing.T) {
	logits := []float32{0.3, 1.2, 1.19, -4}
	s := &Sampler{Temperature: 1e-4, Seed: 4}
	h := counts(t, s, logits, 1000)
	assert.Equal(t, 1000, h[1])
}

func TestNonFiniteLogits(t *testing.T) {
	s := &Sampler{Temperature: 1, Seed: 2}
	nan := float32(math.NaN())
	h := counts(t, s, []float32{negInf, 0, nan, 0}, 2000)
	assert.Zero(t, h[0]+h[2])
	assert.Positive(t, h[1])
	assert.Positive(t, h[3])

	// +Inf tokens take all the mass, shared equally.
	posInf := float32(math.Inf(1))
	h = counts(t, s, []float32{5, posInf, 3, posInf}, 2000)
	assert.Zero(t, h[0]+h[2])
	assert.InDelta(t, 1000, h[1], 150)
	tok, err := Greedy().Sample([]float32{5, posInf, 3, posInf})
	require.NoError(t, err)
	assert.Equal(t, 1, tok)

	for _, sm := range []*Sampler{s, Greedy()} {
		_, err := sm.Sample([]float32{negInf, nan, negInf})
		assert.ErrorContains(t, err, "no token has a finite logit")
		_, err = sm.Sample(nil)
		assert.ErrorContains(t, err, "empty")
	}
}

func TestSampleBatch(t *testing.T) {
	logits := []float32{
		0, 5, 1,
		9, 0, 0,
		0, 0, 2,
	}
	got, err := Greedy().SampleBatch(logits, 3, 3)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 0, 2}, got)

	// Same stream as sampling the rows one by one.
	a := &Sampler{Temperature: 1, Seed: 9}
	b := &Sampler{Temperature: 1, Seed: 9}
	for range 20 {
		batch, err := a.SampleBatch(logits, 3, 3)
		require.NoError(t, err)
		for r := range 3 {
			tok, err := b.Sample(logits[r*3 : r*3+3])
			require.NoError(t, err)
			assert.Equal(t, tok, batch[r])
		}
	}

	_, err = Greedy().SampleBatch(logits, 2, 3)
	assert.ErrorContains(t, err, "len(logits) = 9")
	_, err = Greedy().SampleBatch(logits, 0, 3)
	assert.ErrorContains(t, err, "batch")
	_, err = Greedy().SampleBatch(logits, 3, 0)
	assert.ErrorContains(t, err, "vocab")
	_, err = Greedy().SampleBatch([]float32{0, 1, negInf, negInf}, 2, 2)
	assert.ErrorContains(t, err, "row 1")
}

func TestSamplerValidate(t *testing.T) {
	cases := []struct {
		s    Sampler
		want string
	}{
		{Sampler{Temperature: -1}, "Temperature"},
		{Sampler{Temperature: math.NaN()}, "Temperature"},
		{Sampler{Temperature: math.Inf(1)}, "Temperature"},
		{Sampler{Temperature: 1, TopK: -1}, "TopK"},
		{Sampler{Temperature: 1, TopP: -0.1}, "TopP"},
		{Sampler{Temperature: 1, TopP: 1.1}, "TopP"},
		{Sampler{Temperature: 1, TopP: math.NaN()}, "TopP"},
	}
	for _, c := range cases {
		err := c.s.Validate()
		assert.ErrorContains(t, err, c.want, "%+v", c.s)
		_, err = c.s.Sample([]float32{0, 1})
		assert.ErrorContains(t, err, c.want)
		_, err = NewSampler(c.s.Temperature, c.s.TopK, c.s.TopP, 0)
		assert.ErrorContains(t, err, c.want)
	}
	s, err := NewSampler(0.8, 40, 0.95, 1)
	require.NoError(t, err)
	assert.Equal(t, "temperature=0.8 top_k=40 top_p=0.95 seed=1", s.String())
	assert.NoError(t, (&Sampler{Temperature: 1, TopP: 1}).Validate())
}
