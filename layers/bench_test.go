package layers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/oryx-go/oryx/internal/backend"
)

// Mixer-core benchmarks (no projections), float32, B = 4, H = 4, head dims 64 (SSD state 64), chunk 64:
//
//	go test ./layers -run '^$' -bench 'Mixer' -benchtime 3x
//
// Reported per op (scripts/bench-mixers.sh runs them on pure Go and XLA CPU next to the PyTorch peer):
//   - tok/s (B·T tokens) and GFLOP/s (analytic forward model of docs/mixers.md §8, ×3 for forward+backward, as the
//     PyTorch peer figures count) from the fastest steady-state run, compile and first run excluded (ns/op is
//     the framework's mean of the timed runs);
//   - cpu-ms: the least process CPU time (all threads) one steady run took: on a loaded machine a steadier
//     figure of the work than wall time (2 cores: wall ≥ cpu-ms / 2);
//   - compile-ms: building the graph and compiling it (Exec.PreCompile); first-ms: the first execution after;
//   - peak-MB: the peak Go heap (sampled every ms) above the level before compiling, first run included
//     (SimpleGo's buffers live on the Go heap and are pooled, so this is the working set of one step);
//   - rss-MB: the peak resident set above the level before compiling, over compile and every run (Linux
//     VmHWM, reset through /proc/self/clear_refs): XLA's buffers are outside the Go heap. Run one
//     sub-benchmark per process for a clean figure (the script does), since freed memory may stay resident.

const (
	benchB, benchH, benchD, benchChunk = 4, 4, 64, 64
)

// benchT are the sequence lengths; ORYX_BENCH_T="4096,8192" replaces them.
var benchT = envInts("ORYX_BENCH_T", []int{512, 1024, 2048})

// envInts parses a comma-separated list of positive integers from the environment variable name, def if unset.
func envInts(name string, def []int) []int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			panic(fmt.Sprintf("%s=%q: %q is not a positive integer", name, v, f))
		}
		out = append(out, n)
	}
	return out
}

// flopsPerTokenHead is the forward FLOP count per token per head (docs/mixers.md §8).
func flopsPerTokenHead(mixer string, t int) float64 {
	c, d := float64(benchChunk), float64(benchD)
	switch mixer {
	case "attention":
		return 2 * float64(t) * (d + d) // dense masked QKᵀ and PV
	case "ssd", "ssd-loop", "ssd-scan", "ssd-dense":
		return 2*c*(d+d) + 4*d*d
	case "gdn", "gdn-scan":
		return 6*c*d + 4*c*d + 6*d*d + 2.0/3.0*c*c
	}
	panic(mixer)
}

func benchMixerGraph(mixer string, backward bool) func(x []*Node) []*Node {
	return func(x []*Node) []*Node {
		q, k, v, g, beta := x[0], x[1], x[2], x[3], x[4]
		var out *Node
		switch mixer {
		case "attention":
			out = CausalAttention(q, k, v, DefaultScale(benchD))
		case "ssd": // the default: Auto (dense on XLA up to maxDenseChunks chunks, the loop on pure Go)
			out, _ = NewSSD(q, k, v, g).Chunk(benchChunk).Done()
		case "ssd-loop":
			out, _ = NewSSD(q, k, v, g).Chunk(benchChunk).InterChunk(Loop).Done()
		case "ssd-scan":
			out, _ = NewSSD(q, k, v, g).Chunk(benchChunk).InterChunk(Scan).Done()
		case "ssd-dense":
			out, _ = NewSSD(q, k, v, g).Chunk(benchChunk).InterChunk(Dense).Done()
		case "gdn":
			out, _ = NewGatedDeltaRule(q, k, v, g, beta).Chunk(benchChunk).Done()
		case "gdn-scan":
			out, _ = NewGatedDeltaRule(q, k, v, g, beta).Chunk(benchChunk).InterChunk(Scan).Done()
		}
		if !backward {
			return []*Node{out}
		}
		loss := ReduceAllSum(Mul(out, x[5]))
		if mixer == "attention" {
			return Gradient(loss, q, k, v)
		}
		if strings.HasPrefix(mixer, "ssd") {
			return Gradient(loss, q, k, v, g)
		}
		return Gradient(loss, q, k, v, g, beta)
	}
}

func benchInputs(t int) []*tensors.Tensor {
	r := rand.New(rand.NewPCG(1, 2))
	vec := func(scale float32) *tensors.Tensor {
		x := make([]float32, benchB*t*benchH*benchD)
		for i := range x {
			x[i] = float32(r.NormFloat64()) * scale
		}
		return tensors.FromFlatDataAndDimensions(x, benchB, t, benchH, benchD)
	}
	sca := func(lo, hi float32) *tensors.Tensor {
		x := make([]float32, benchB*t*benchH)
		for i := range x {
			x[i] = lo + (hi-lo)*r.Float32()
		}
		return tensors.FromFlatDataAndDimensions(x, benchB, t, benchH)
	}
	return []*tensors.Tensor{vec(0.125), vec(0.125), vec(1), sca(-0.1, -0.001), sca(0.1, 0.9), vec(1)}
}

func BenchmarkMixer(b *testing.B) {
	be := backend.MustGet()
	// The framework calls each sub-benchmark twice (b.N = 1, then b.N from -benchtime): the compiled graph and
	// its measurements are kept across both calls, so a graph is compiled once per process.
	runs := map[string]*mixerRun{}
	defer func() {
		for _, r := range runs {
			r.exec.Finalize()
		}
	}()
	for _, mixer := range []string{"attention", "ssd", "ssd-loop", "ssd-scan", "ssd-dense", "gdn", "gdn-scan"} {
		for _, t := range benchT {
			for _, backward := range []bool{false, true} {
				pass := "fwd"
				if backward {
					pass = "fwd+bwd"
				}
				name := fmt.Sprintf("%s/T=%d/%s", mixer, t, pass)
				b.Run(name, func(b *testing.B) {
					r := runs[name]
					if r == nil {
						r = newMixerRun(b, be, mixer, t, backward)
						runs[name] = r
					}
					b.ResetTimer()
					for range b.N {
						r.step()
					}
					b.StopTimer()
					if r.peakRSS >= 0 {
						r.peakRSS = max(r.peakRSS, peakRSSAbove(r.rssBase))
					}
					tokens := float64(benchB * t)
					flops := flopsPerTokenHead(mixer, t) * tokens * benchH
					if backward {
						flops *= 3
					}
					b.ReportMetric(tokens/r.best, "tok/s")
					b.ReportMetric(flops/r.best/1e9, "GFLOP/s")
					if r.bestCPU > 0 {
						b.ReportMetric(r.bestCPU*1e3, "cpu-ms")
					}
					b.ReportMetric(r.compile*1e3, "compile-ms")
					b.ReportMetric(r.first*1e3, "first-ms")
					b.ReportMetric(float64(r.peakHeap)/(1<<20), "peak-MB")
					if r.peakRSS >= 0 {
						b.ReportMetric(float64(r.peakRSS)/(1<<20), "rss-MB")
					}
				})
			}
		}
	}
}

// mixerRun is one compiled mixer graph with its inputs and what was measured on it so far.
type mixerRun struct {
	exec           *Exec
	args           []any
	compile, first float64 // seconds: PreCompile (graph building + backend compile), then the first execution
	best           float64 // seconds: the fastest steady-state execution so far
	bestCPU        float64 // seconds of process CPU time (all threads) of the cheapest steady-state execution
	peakHeap       uint64  // bytes of Go heap above the level before compiling (pure Go's buffers live there)
	rssBase        uint64  // resident bytes before compiling
	peakRSS        int64   // resident bytes above rssBase at the peak (XLA's buffers are outside the Go heap); -1 unknown
}

// newMixerRun compiles the graph (timed apart from execution, as every command's start-up pays it once),
// runs it once (timed: first executions also allocate the buffer pools and, on XLA, warm its thread pool) and
// records the peak memory of both.
func newMixerRun(b *testing.B, be backends.Backend, mixer string, t int, backward bool) *mixerRun {
	ins := benchInputs(t)
	runtime.GC() // drop buffers pooled by earlier sub-benchmarks (sync.Pool empties in two GCs)
	runtime.GC()
	r := &mixerRun{best: math.Inf(1), bestCPU: math.Inf(1), rssBase: residentBytes(), peakRSS: -1}
	canPeak := resetPeakRSS()
	heap := newPeakHeap()
	r.exec = MustNewExec(be, benchMixerGraph(mixer, backward))
	r.args = make([]any, len(ins))
	for i, x := range ins {
		r.args[i] = x
	}
	start := time.Now()
	if err := r.exec.PreCompile(r.args...); err != nil {
		b.Fatalf("compiling %s T=%d: %v", mixer, t, err)
	}
	r.compile = time.Since(start).Seconds()
	start = time.Now()
	r.run()
	r.first = time.Since(start).Seconds()
	r.peakHeap = heap.stop()
	if canPeak {
		r.peakRSS = peakRSSAbove(r.rssBase)
	}
	return r
}

func (r *mixerRun) run() {
	for _, o := range r.exec.MustExec(r.args...) {
		o.FinalizeAll()
	}
}

// step runs the graph once and keeps the fastest time: on a shared machine the minimum is the figure least
// disturbed by other processes.
func (r *mixerRun) step() {
	start, cpu := time.Now(), processCPUTime()
	r.run()
	r.best = min(r.best, time.Since(start).Seconds())
	r.bestCPU = min(r.bestCPU, (processCPUTime() - cpu).Seconds())
}

// residentBytes is the process's resident set (VmRSS), 0 where /proc is unavailable.
func residentBytes() uint64 { return procStatusKB("VmRSS") << 10 }

// resetPeakRSS resets the kernel's resident high-water mark (VmHWM) to the current RSS (Linux ≥ 4.0);
// false where that is not possible, and then no peak is reported.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSSAbove returns VmHWM − base in bytes (at least 0), or -1 when /proc is unavailable.
func peakRSSAbove(base uint64) int64 {
	hwm := procStatusKB("VmHWM") << 10
	if hwm == 0 {
		return -1
	}
	return max(int64(hwm)-int64(base), 0)
}

// procStatusKB reads one "Field: N kB" line of /proc/self/status; 0 when absent.
func procStatusKB(field string) uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			var kb uint64
			if _, err := fmt.Sscan(rest, &kb); err == nil {
				return kb
			}
		}
	}
	return 0
}

// peakHeap samples the Go heap every millisecond and reports its peak above the starting level.
type peakHeap struct {
	base, peak uint64
	done       chan struct{}
	wg         sync.WaitGroup
}

func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func newPeakHeap() *peakHeap {
	p := &peakHeap{base: heapBytes(), done: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-tick.C:
				p.peak = max(p.peak, heapBytes())
			}
		}
	}()
	return p
}

func (p *peakHeap) stop() uint64 {
	close(p.done)
	p.wg.Wait()
	if p.peak < p.base {
		return 0
	}
	return p.peak - p.base
}

// BenchmarkBatchedMatmul measures the backend's matmul ceiling on the shape that dominates the chunked mixers:
// [B·H·N, 64, 64] × [B·H·N, 64, 64] (here N = 32 chunks: T = 2048), float32, forward only.
//
//	go test ./layers -run '^$' -bench BatchedMatmul -benchtime 5x
func BenchmarkBatchedMatmul(b *testing.B) {
	be := backend.MustGet()
	const batch, n = benchB * benchH * 32, 64
	r := rand.New(rand.NewPCG(3, 4))
	mk := func() *tensors.Tensor {
		x := make([]float32, batch*n*n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		return tensors.FromFlatDataAndDimensions(x, batch, n, n)
	}
	for _, eq := range []string{"bij,bkj->bik", "bij,bjk->bik"} {
		b.Run(eq, func(b *testing.B) {
			exec := MustNewExec(be, func(x, y *Node) *Node { return Einsum(eq, x, y) })
			defer exec.Finalize()
			x, y := mk(), mk()
			exec.MustExec(x, y)[0].FinalizeAll()
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				exec.MustExec(x, y)[0].FinalizeAll()
			}
			elapsed := time.Since(start).Seconds() / float64(b.N)
			b.ReportMetric(2*batch*n*n*n/elapsed/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkAttentionCached: the cached attention read of T new tokens at once (AttentionCached, the verify
// pass of speculative decoding) in both of its forms — "batched" (the cache read once for all T queries) and
// "per-query" (T matrix-vector reads, XLA's choice for T ≤ perQueryMaxT; the table at cachedAttentionPerQuery)
// — against one token (AttentionStep), float32, batch 1, a cache of L = 8,192 or 16,384 tokens, the small preset's heads (H = 4, K = 16, V = 32) or
// with ORYX_BENCH_HEADS=130m the 130m preset's (H = 6, K = 64, V = 128). best-ms is the least wall time of
// one run; cpu-ms the least process CPU time (steadier than wall time on a loaded machine):
//
//	go test ./layers -run '^$' -bench 'AttentionCached' -benchtime 30x
//	GOMLX_BACKEND=xla:PLUGIN go test -tags xla ./layers -run '^$' -bench 'AttentionCached' -benchtime 30x
func BenchmarkAttentionCached(b *testing.B) {
	h, dk, dv := 4, 16, 32
	switch heads := os.Getenv("ORYX_BENCH_HEADS"); heads {
	case "", "small":
	case "130m":
		h, dk, dv = 6, 64, 128
	default:
		b.Fatalf("ORYX_BENCH_HEADS=%q: want small or 130m", heads)
	}
	be := backend.MustGet()
	forms := []struct {
		name string
		read func(q, kCache, vCache, length *Node, scale float64) *Node
	}{{"batched", cachedAttentionBatched}, {"per-query", cachedAttentionPerQuery}}
	for _, l := range []int{8192, 16384} {
		kc := tensors.FromShape(shapes.Make(dtypes.Float32, 1, h, l, dk))
		vc := tensors.FromShape(shapes.Make(dtypes.Float32, 1, h, l, dv))
		run := func(name string, exec *Exec, q *tensors.Tensor) {
			b.Run(name, func(b *testing.B) {
				exec.MustExec(q, kc, vc)[0].FinalizeAll() // compile
				b.ResetTimer()
				best, bestCPU := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
				for range b.N {
					cpu, start := processCPUTime(), time.Now()
					exec.MustExec(q, kc, vc)[0].FinalizeAll()
					best, bestCPU = min(best, time.Since(start)), min(bestCPU, processCPUTime()-cpu)
				}
				b.ReportMetric(best.Seconds()*1e3, "best-ms")
				b.ReportMetric(bestCPU.Seconds()*1e3, "cpu-ms")
			})
		}
		run(fmt.Sprintf("L=%d/step", l), MustNewExec(be, func(q, kc, vc *Node) *Node {
			return AttentionStep(q, kc, vc, Const(q.Graph(), []int32{int32(l / 2)}), DefaultScale(dk))
		}), tensors.FromShape(shapes.Make(dtypes.Float32, 1, h, dk)))
		for _, t := range []int{2, 3, 5, 9} {
			q := tensors.FromShape(shapes.Make(dtypes.Float32, 1, t, h, dk))
			for _, form := range forms {
				run(fmt.Sprintf("L=%d/T=%d/%s", l, t, form.name), MustNewExec(be, func(q, kc, vc *Node) *Node {
					length := AddScalar(Iota(q.Graph(), shapes.Make(dtypes.Int32, 1, t), 1), l/2)
					return form.read(q, kc, vc, length, DefaultScale(dk))
				}), q)
			}
		}
	}
}
