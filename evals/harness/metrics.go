package harness

import "math"

// lm-eval's aggregations (lm_eval/api/metrics.py, docs/evals.md §2).

// Mean is lm-eval's mean: sum(arr)/len(arr) (left-to-right summation). NaN for an empty slice.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// SampleStddev is lm-eval's sample_stddev: sqrt(Σ(x-mean)²/(n-1)). NaN when n < 2.
func SampleStddev(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	mu := Mean(xs)
	s := 0.0
	for _, x := range xs {
		s += (x - mu) * (x - mu)
	}
	return math.Sqrt(s / float64(len(xs)-1))
}

// MeanStderr is lm-eval's mean_stderr, the standard error of acc, acc_norm and other mean-aggregated
// metrics: sample_stddev/sqrt(n). NaN (lm-eval's "N/A") when n < 2.
func MeanStderr(xs []float64) float64 {
	return SampleStddev(xs) / math.Sqrt(float64(len(xs)))
}

// Perplexity is lm-eval's perplexity aggregation (LAMBADA): exp(-mean(ll)) over per-document
// log-likelihoods.
func Perplexity(lls []float64) float64 { return math.Exp(-Mean(lls)) }

// WeightedPerplexity is lm-eval's weighted_perplexity (word_perplexity, byte_perplexity):
// exp(-Σll/Σweight).
func WeightedPerplexity(lls, weights []float64) float64 {
	return math.Exp(-weightedMean(lls, weights))
}

// BitsPerByte is lm-eval's bits_per_byte: -Σll/Σbytes/ln 2.
func BitsPerByte(lls, bytes []float64) float64 { return -weightedMean(lls, bytes) / math.Ln2 }

func weightedMean(a, b []float64) float64 {
	sa, sb := 0.0, 0.0
	for i := range a {
		sa += a[i]
		sb += b[i]
	}
	return sa / sb
}

// Argmax returns the index of the first maximum, as numpy.argmax does (a NaN counts as the maximum, the
// first NaN winning, as in numpy). -1 for an empty slice.
func Argmax(xs []float64) int {
	best := -1
	for i, x := range xs {
		if math.IsNaN(x) {
			return i
		}
		if best < 0 || x > xs[best] {
			best = i
		}
	}
	return best
}

// Bool01 returns 1 for true and 0 for false.
func Bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
