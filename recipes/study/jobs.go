package study

import (
	"bytes"
	"io"
	"sort"
	"sync"

	"github.com/oryx-go/oryx/recipes/train"
)

// Runs are trained and evaluated Config.Jobs at a time. On XLA CPU a tiny model's step is hundreds of small
// kernels that keep about 1.5 of 2 cores busy, and compilation is single-threaded; two runs side by side
// finish in ~0.65× the time of one after the other (BENCHMARKS.md, "The main job on two cores"). Each run is
// deterministic (its own seeds and data order), so the results do not depend on Jobs; only the log
// interleaves, each line prefixed with its run's name.

// relativeCost estimates a run's training time relative to the Transformer's (XLA CPU, tiny preset, the
// study's shape; the measured throughputs in the README): the runs start longest first so that the last
// one to finish is a short one.
func relativeCost(rs RunSpec) float64 {
	switch {
	case !rs.Variant.IsMultiMixer() && rs.Variant.HasAttention():
		return 1
	case !rs.Variant.IsMultiMixer():
		return 2
	case rs.ModeTraining == train.ModeTrainingComplementary:
		return 4.2
	case rs.AttentionProb == 1: // one readout (the trainer's uniform mode training): a Transformer step and the shared paths
		return 1.3
	case rs.AttentionProb == 0:
		return 2.1
	}
	return 2.5
}

// startOrder returns the indices of runs, most expensive first (stable).
func startOrder(runs []RunSpec) []int {
	order := make([]int, len(runs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return relativeCost(runs[order[a]]) > relativeCost(runs[order[b]]) })
	return order
}

// forEachRun calls do(i) for every index of order, at most jobs at a time (jobs ≤ 1: one after the other, in
// order). After a failure no new call starts; the first error (in order of occurrence) is returned once the
// running calls have returned.
func forEachRun(order []int, jobs int, do func(i int) error) error {
	if jobs <= 1 {
		for _, i := range order {
			if err := do(i); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		mu       sync.Mutex
		next     int
		firstErr error
		wg       sync.WaitGroup
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr != nil || next == len(order) {
			return 0, false
		}
		next++
		return order[next-1], true
	}
	for range min(jobs, len(order)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := take()
				if !ok {
					return
				}
				if err := do(i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// lineWriters hands out writers that prefix every line with a label and write whole lines to one shared
// writer, so that runs logging at once do not interleave within a line.
type lineWriters struct {
	mu  sync.Mutex
	out io.Writer
}

// prefixed returns a writer for one run; Flush writes a last unterminated line.
func (l *lineWriters) prefixed(label string) *prefixWriter {
	return &prefixWriter{shared: l, prefix: []byte(label)}
}

type prefixWriter struct {
	shared  *lineWriters
	prefix  []byte
	pending []byte
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	w.pending = append(w.pending, p...)
	for {
		nl := bytes.IndexByte(w.pending, '\n')
		if nl < 0 {
			return len(p), nil
		}
		if err := w.emit(w.pending[:nl+1]); err != nil {
			return 0, err
		}
		w.pending = w.pending[nl+1:]
	}
}

// Flush writes what is left of an unterminated line.
func (w *prefixWriter) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	err := w.emit(append(w.pending, '\n'))
	w.pending = nil
	return err
}

func (w *prefixWriter) emit(line []byte) error {
	w.shared.mu.Lock()
	defer w.shared.mu.Unlock()
	if len(bytes.TrimSpace(line)) == 0 { // blank separator lines stay blank
		_, err := w.shared.out.Write([]byte("\n"))
		return err
	}
	_, err := w.shared.out.Write(append(append([]byte(nil), w.prefix...), line...))
	return err
}
