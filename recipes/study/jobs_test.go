package study

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestForEachRun: every index once, never more than jobs at a time, one after the other in order at jobs 1,
// and after a failure no new run starts and the error comes back.
func TestForEachRun(t *testing.T) {
	order := []int{3, 0, 4, 1, 2}
	for _, jobs := range []int{0, 1, 2, 3, 8} {
		var (
			mu           sync.Mutex
			seen         []int
			running, top atomic.Int32
		)
		err := forEachRun(context.Background(), order, jobs, func(_ context.Context, i int) error {
			n := running.Add(1)
			for {
				m := top.Load()
				if n <= m || top.CompareAndSwap(m, n) {
					break
				}
			}
			time.Sleep(5 * time.Millisecond)
			mu.Lock()
			seen = append(seen, i)
			mu.Unlock()
			running.Add(-1)
			return nil
		})
		require.NoError(t, err)
		require.ElementsMatch(t, order, seen, "jobs %d", jobs)
		want := int32(min(max(jobs, 1), len(order)))
		require.Equal(t, want, top.Load(), "jobs %d: most runs at once", jobs)
		if jobs <= 1 {
			require.Equal(t, order, seen)
		}
	}
	for _, jobs := range []int{1, 2} {
		var started atomic.Int32
		boom := errors.New("boom")
		err := forEachRun(context.Background(), order, jobs, func(_ context.Context, i int) error {
			started.Add(1)
			if i == 0 { // the second to start
				return boom
			}
			time.Sleep(20 * time.Millisecond)
			return nil
		})
		require.ErrorIs(t, err, boom)
		require.Less(t, started.Load(), int32(len(order)), "jobs %d: runs after the failure did not start", jobs)
	}
}

// TestDeadWorkerStopsTheOthers: when one run fails (a worker process killed with -9), the run training beside
// it is stopped at once through its context, and the failure is returned promptly with its run's error; it
// used to be reported only when the other run finished (152 s later in the campaign).
func TestDeadWorkerStopsTheOthers(t *testing.T) {
	dead := errors.New("training oryx-tg-tiny (worker process): signal: killed")
	start := time.Now()
	err := forEachRun(context.Background(), []int{0, 1}, 2, func(ctx context.Context, i int) error {
		if i == 0 {
			time.Sleep(10 * time.Millisecond)
			return dead
		}
		select { // the long run: stops only when told to
		case <-ctx.Done():
			return fmt.Errorf("interrupted: %w", ctx.Err())
		case <-time.After(time.Minute):
			return nil
		}
	})
	require.ErrorIs(t, err, dead)
	require.Less(t, time.Since(start), 20*time.Second, "the failure is reported without waiting for the other run")
}

// TestStartOrder: the Oryx-TG main run first, the Transformer last, ties in the study's order; with
// seeds a run's seeds in order; study-scale's wider runs before the tiny ones.
func TestStartOrder(t *testing.T) {
	c := Default()
	var names []string
	jobs := c.jobs()
	for _, i := range startOrder(jobs) {
		names = append(names, c.label(jobs[i]))
	}
	require.Equal(t, []string{"oryx-tg-tiny2x", "gdn-tiny2x", "transformer-tiny2x"}, names)

	c.Runs, c.Seeds = c.Runs[:2], 2
	jobs, names = c.jobs(), nil
	for _, i := range startOrder(jobs) {
		names = append(names, c.label(jobs[i]))
	}
	require.Equal(t, []string{"gdn-tiny2x-s1", "gdn-tiny2x-s2", "transformer-tiny2x-s1", "transformer-tiny2x-s2"}, names)

	c = DecomposeConfig(false)
	jobs, names = c.jobs(), nil
	for _, i := range startOrder(jobs) {
		names = append(names, c.label(jobs[i]))
	}
	require.Equal(t, "oryx-tg-complementary-tiny2x-s1", names[0], "the complementary run (2× the mixer FLOPs) first")
	require.Equal(t, "transformer-tiny2x-s3", names[len(names)-1])

	c = ScaleConfig()
	jobs, names = c.jobs(), nil
	for _, i := range startOrder(jobs)[:3] {
		names = append(names, c.label(jobs[i]))
	}
	require.Equal(t, []string{"oryx-tg-tiny2x-s1", "oryx-tg-tiny2x-s2", "oryx-tg-tiny2x-s3"}, names)
}

// TestJobs: the jobs of a study, their seeds and run directories (a one-seed study keeps the directory
// names it always had).
func TestJobs(t *testing.T) {
	c := Default()
	require.Len(t, c.jobs(), 3)
	require.Equal(t, "runs/study/runs/oryx-tg-tiny2x", c.jobDir(c.jobs()[2]))
	require.Equal(t, uint64(1), c.trainSeed(1))
	c.Seeds = 3
	jobs := c.jobs()
	require.Len(t, jobs, 9)
	require.Equal(t, job{c.Runs[0], 3}, jobs[2])
	require.Equal(t, "runs/study/runs/transformer-tiny2x-s3", c.jobDir(jobs[2]))
	d := DecomposeConfig(false)
	require.Len(t, d.jobs(), 18, "6 models × 3 seeds")
	require.Equal(t, uint64(2), d.trainSeed(1), "seeds 2-4: not the demo's seed 1")
	require.Equal(t, uint64(3), c.trainSeed(3))
	s := ScaleConfig()
	require.Len(t, s.jobs(), 18, "3 models × 2 widths × 3 seeds")
	require.Equal(t, "gdn-tiny2x-s2", s.label(s.jobs()[13]))

	// --widths 1: the tiny width alone (the one-seed spread), with the run directories of the full study.
	s.Runs, _ = SelectWidths(s.Runs, "1")
	require.Len(t, s.jobs(), 9)
	for _, j := range s.jobs() {
		require.Contains(t, s.label(j), "-tiny-s")
	}
	_, err := SelectWidths(ScaleRuns(), "1,4")
	require.EqualError(t, err, `width "4": want some of 1,2`)
}

// TestSeedsBounded: a study of more than MaxSeeds seeds is refused before anything is
// trained, and a training of a study is found without listing the study's runs × seeds trainings (before:
// 2,000,000,000 seeds built the whole list and ran out of memory).
func TestSeedsBounded(t *testing.T) {
	c := Default()
	c.Seeds = 3
	for i, j := range c.jobs() {
		got, ok := c.job(i)
		require.True(t, ok)
		require.Equal(t, j, got, "training %d", i)
	}
	_, ok := c.job(c.Trainings())
	require.False(t, ok)

	c.Seeds = MaxSeeds + 1
	require.ErrorContains(t, checkConfig(c), fmt.Sprintf("seeds %d must be in [1, %d]", MaxSeeds+1, MaxSeeds))
	c.Seeds = 2_000_000_000
	last := c.Trainings() - 1
	require.Equal(t, "oryx-tg-tiny2x-s2000000000", c.JobLabel(last))
	r, err := trainingRun(c, last, io.Discard)
	require.NoError(t, err)
	require.Equal(t, uint64(2_000_000_000), r.Train.Seed)
}

// TestPrefixWriter: lines from concurrent writers come out whole, each with its writer's label, blank lines
// blank, an unterminated last line on Flush.
func TestPrefixWriter(t *testing.T) {
	var out bytes.Buffer
	lw := &lineWriters{out: &out}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pw := lw.prefixed(fmt.Sprintf("w%d ", w))
			for i := range 50 {
				fmt.Fprintf(pw, "line %d ", i) // a line in two writes
				fmt.Fprintf(pw, "of w%d\n", w)
			}
			fmt.Fprint(pw, "\n")
			fmt.Fprintf(pw, "tail of w%d", w)
			require.NoError(t, pw.Flush())
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 4*52)
	counts := map[string]int{}
	for _, l := range lines {
		if l == "" {
			counts["blank"]++
			continue
		}
		var w, i int
		if _, err := fmt.Sscanf(l, "w%d line %d of w", &w, &i); err == nil {
			require.True(t, strings.HasSuffix(l, fmt.Sprintf("of w%d", w)), "whole line: %q", l)
			counts[fmt.Sprint(w)]++
			continue
		}
		var a, b int
		_, err := fmt.Sscanf(l, "w%d tail of w%d", &a, &b)
		require.NoError(t, err, "line %q", l)
		require.Equal(t, a, b, "line %q", l)
		counts["tail"]++
	}
	require.Equal(t, map[string]int{"0": 50, "1": 50, "2": 50, "3": 50, "blank": 4, "tail": 4}, counts)
}

// TestConfigJSONRoundTrip: a training worker process reads the study's configuration back from JSON exactly
// (every config the command builds), the worker hook aside.
func TestConfigJSONRoundTrip(t *testing.T) {
	for _, c := range []Config{Default(), PureGoConfig(), QuickConfig(), ScaleConfig(), QuickScaleConfig(), AttributionConfig(),
		QuickAttributionConfig()} {
		c.Jobs = 2
		data, err := json.Marshal(c)
		require.NoError(t, err)
		c.TrainWorker = func(context.Context, Config, int, io.Writer) error { return nil }
		var back Config
		require.NoError(t, json.Unmarshal(data, &back))
		c.TrainWorker = nil
		require.Equal(t, c, back)
	}
}
