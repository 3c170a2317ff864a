package harness

import (
	"math"
	"runtime"
	"sync"

	"github.com/oryx-go/oryx/internal/pyrand"
)

// DefaultBootstrapIters is lm-eval's default bootstrap_iters (simple_evaluate).
const DefaultBootstrapIters = 100000

// BootstrapStderr is lm-eval's bootstrap_stderr(f, xs, iters), used for the metrics whose aggregation is
// "bootstrappable" (of the tasks here: LAMBADA's perplexity): iters//chunk resamples in chunks of
// chunk = min(1000, iters); chunk i draws with random.Random(i), each resample being
// rnd.choices(xs, k=len(xs)); the result is the sample standard deviation of f over all resamples.
//
// The draws are those of CPython (internal/pyrand), so the result equals lm-eval's up to floating-point
// summation order (Python ≥ 3.12 sums floats with compensation; lm-eval 0.4.2 ran on older Pythons that
// sum left to right, as here). Chunks run in parallel; the result does not depend on the number of
// goroutines. NaN when iters < 2 or xs is empty.
func BootstrapStderr(f func([]float64) float64, xs []float64, iters int) float64 {
	if iters < 1 || len(xs) == 0 {
		return math.NaN()
	}
	chunk := min(1000, iters)
	nChunks := iters / chunk
	res := make([]float64, nChunks*chunk)
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), nChunks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sample := make([]float64, len(xs))
			var rnd pyrand.Rand
			for c := range next {
				rnd.Seed(uint64(c))
				for k := range chunk {
					for j := range sample {
						sample[j] = xs[rnd.ChoicesIndex(len(xs))]
					}
					res[c*chunk+k] = f(sample)
				}
			}
		}()
	}
	for c := range nChunks {
		next <- c
	}
	close(next)
	wg.Wait()
	return SampleStddev(res)
}
