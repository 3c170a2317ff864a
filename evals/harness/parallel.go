package harness

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// ParallelFor calls f(i) for i in [0, n) on up to GOMAXPROCS goroutines and returns the error of the
// smallest i that failed (so the error does not depend on scheduling). Tasks use it to tokenize documents
// concurrently (the datasets tokenizers are safe for concurrent use); f must write only to its own index.
func ParallelFor(n int, f func(i int) error) error {
	if n == 0 {
		return nil
	}
	errs := make([]error, n)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || failed.Load() {
					return
				}
				if errs[i] = f(i); errs[i] != nil {
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
