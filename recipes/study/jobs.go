package study

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"sync"

	"github.com/oryx-go/oryx/recipes/train"
)

// Runs are trained and evaluated Config.Jobs at a time. On XLA CPU a tiny model's step is hundreds of small
// kernels that keep about 1.5 of 2 cores busy, and compilation is single-threaded; two runs side by side
// finish in ~0.65× the time of one after the other (docs/history.md §8.9, "The main job on two cores"). Each run is
// deterministic (its own seeds and data order), so the results do not depend on Jobs; only the log
// interleaves, each line prefixed with its run's name.

// A job is one training of the study: a run of Config.Runs with one of its Config.Seeds seeds.
type job struct {
	Run  RunSpec
	Seed int // 1..Config.Seeds
}

// MaxSeeds bounds Config.Seeds: each seed is a whole training of every run (hours at the study's budget), and
// the study lists its runs × seeds trainings (checkConfig refuses more).
const MaxSeeds = 100

// seeds is the number of seeds per run (at least 1).
func (c Config) seeds() int { return max(c.Seeds, 1) }

// jobs lists the study's trainings, run by run, each run's seeds in order.
func (c Config) jobs() []job {
	var out []job
	for _, r := range c.Runs {
		for k := 1; k <= c.seeds(); k++ {
			out = append(out, job{r, k})
		}
	}
	return out
}

// job is training i of c.jobs(), found without listing them; false out of range.
func (c Config) job(i int) (job, bool) {
	if i < 0 || i >= c.Trainings() {
		return job{}, false
	}
	return job{c.Runs[i/c.seeds()], i%c.seeds() + 1}, true
}

// trainSeed is the training seed of seed k (1-based): Train.Seed, Train.Seed+1, ...
func (c Config) trainSeed(k int) uint64 { return c.Train.Seed + uint64(k-1) }

// Size is the run's model size: "tiny", or "tiny<w>x" at width w.
func (r RunSpec) Size() string {
	if r.Width <= 1 {
		return "tiny"
	}
	return fmt.Sprintf("tiny%dx", r.Width)
}

// mainWidth is the width of the study's first run: its claims compare the runs of that width.
func (c Config) mainWidth() int {
	if len(c.Runs) == 0 {
		return 1
	}
	return c.Runs[0].width()
}

// width is the run's width multiplier (at least 1).
func (r RunSpec) width() int { return max(r.Width, 1) }

// Label names the run at its size, "<name>-<size>": its run directory with one seed, its name in logs.
func (r RunSpec) Label() string { return r.Name + "-" + r.Size() }

// label names the job: the run's label, and "-s<k>" with more than one seed (so that a one-seed study keeps
// the run directories it always had).
func (c Config) label(j job) string {
	if c.seeds() == 1 {
		return j.Run.Label()
	}
	return fmt.Sprintf("%s-s%d", j.Run.Label(), j.Seed)
}

// jobDir is the run directory of a job.
func (c Config) jobDir(j job) string { return filepath.Join(c.Out, "runs", c.label(j)) }

// relativeCost estimates a run's training time relative to the Transformer's (XLA CPU, tiny preset, the
// study's shape; the measured throughputs in docs/history.md §1.4, §2): the runs start longest first so that
// the last one to finish is a short one. A tiny2x step took 2.8–4.3× a tiny one (XLA CPU, two runs at a time, under
// load; docs/history.md §2): 3× per doubling of the width.
func relativeCost(rs RunSpec) float64 {
	return math.Pow(3, math.Log2(float64(rs.width()))) * variantCost(rs)
}

func variantCost(rs RunSpec) float64 {
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

// startOrder returns the indices of jobs, most expensive first (stable).
func startOrder(jobs []job) []int {
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return relativeCost(jobs[order[a]].Run) > relativeCost(jobs[order[b]].Run) })
	return order
}

// forEachRun calls do(ctx, i) for every index of order, at most jobs at a time (jobs ≤ 1: one after the
// other, in order). After a failure no new call starts and the context of the running calls is cancelled (a
// worker whose process died stops the study at once; the others save a checkpoint and stop, and a rerun
// resumes them); the first error (in order of occurrence) is returned once the running calls have returned.
func forEachRun(parent context.Context, order []int, jobs int, do func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	if jobs <= 1 {
		for _, i := range order {
			if err := do(ctx, i); err != nil {
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
				if err := do(ctx, i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
						cancel()
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

// Trainings is the number of trainings of c: runs × seeds (the indices TrainRun takes).
func (c Config) Trainings() int { return len(c.Runs) * c.seeds() }

// JobLabel names training i of c (its run directory), "training i" out of range.
func (c Config) JobLabel(i int) string {
	j, ok := c.job(i)
	if !ok {
		return fmt.Sprintf("training %d", i)
	}
	return c.label(j)
}
