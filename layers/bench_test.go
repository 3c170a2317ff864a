package layers

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/oryx-go/oryx/internal/backend"
)

// Mixer-core benchmarks (no projections), float32, B = 4, H = 4, head dims 64 (SSD state 64), chunk 64:
//
//	go test ./layers -run '^$' -bench 'Mixer' -benchtime 3x
//
// Reported per op: tok/s (B·T tokens), GFLOP/s from the analytic forward model of mixers.md §8 (×3 for
// forward+backward, as the PyTorch peer figures count), and peak-MB, the peak Go heap (sampled every ms) above
// the level before the graph was compiled, warm-up run included: SimpleGo's buffers live on the Go heap and
// are pooled, so this is the working set of one step.

const (
	benchB, benchH, benchD, benchChunk = 4, 4, 64, 64
)

var benchT = []int{512, 1024, 2048}

// flopsPerTokenHead is the forward FLOP count per token per head (mixers.md §8).
func flopsPerTokenHead(mixer string, t int) float64 {
	c, d := float64(benchChunk), float64(benchD)
	switch mixer {
	case "attention":
		return 2 * float64(t) * (d + d) // dense masked QKᵀ and PV
	case "ssd", "ssd-scan":
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
		case "ssd":
			out, _ = NewSSD(q, k, v, g).Chunk(benchChunk).Done()
		case "ssd-scan":
			out, _ = NewSSD(q, k, v, g).Chunk(benchChunk).InterChunk(Scan).Done()
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
		if mixer == "ssd" || mixer == "ssd-scan" {
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
	for _, mixer := range []string{"attention", "ssd", "ssd-scan", "gdn", "gdn-scan"} {
		for _, t := range benchT {
			for _, backward := range []bool{false, true} {
				pass := "fwd"
				if backward {
					pass = "fwd+bwd"
				}
				b.Run(fmt.Sprintf("%s/T=%d/%s", mixer, t, pass), func(b *testing.B) {
					ins := benchInputs(t)
					runtime.GC() // drop buffers pooled by earlier sub-benchmarks (sync.Pool empties in two GCs)
					runtime.GC()
					peak := newPeakHeap()
					exec := MustNewExec(be, benchMixerGraph(mixer, backward))
					defer exec.Finalize()
					args := make([]any, len(ins))
					for i, x := range ins {
						args[i] = x
					}
					run := func() {
						for _, o := range exec.MustExec(args...) {
							o.FinalizeAll()
						}
					}
					run() // compile and warm the buffer pools
					b.ResetTimer()
					start := time.Now()
					for range b.N {
						run()
					}
					elapsed := time.Since(start).Seconds() / float64(b.N)
					b.StopTimer()
					tokens := float64(benchB * t)
					flops := flopsPerTokenHead(mixer, t) * tokens * benchH
					if backward {
						flops *= 3
					}
					b.ReportMetric(tokens/elapsed, "tok/s")
					b.ReportMetric(flops/elapsed/1e9, "GFLOP/s")
					b.ReportMetric(float64(peak.stop())/(1<<20), "peak-MB")
				})
			}
		}
	}
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
