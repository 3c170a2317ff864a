package oryx

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/internal/backend"
)

// Model benchmarks (BENCHMARKS.md), float32, random weights, pure-Go backend:
//
//	go test ./oryx -run '^$' -bench 'Forward' -benchtime 2x -timeout 60m
//	go test ./oryx -run '^$' -bench 'Decode' -benchtime 20x -timeout 60m

func benchForward(b *testing.B, preset string, batch, seqLen int) {
	be := backend.MustGet()
	for _, v := range Variants {
		b.Run(fmt.Sprintf("%s/%s/B=%d/T=%d", preset, v, batch, seqLen), func(b *testing.B) {
			cfg, err := Preset(preset, v)
			if err != nil {
				b.Fatal(err)
			}
			m, _ := New(cfg)
			ctx := context.New()
			exec := context.MustNewExec(be, ctx, func(ctx *context.Context, tok, md *Node) *Node {
				return m.Logits(ctx, tok, m.modesOrNil(md))
			})
			defer exec.Finalize()
			r := rand.New(rand.NewPCG(1, 2))
			tok := make([]int32, batch*seqLen)
			for i := range tok {
				tok[i] = int32(r.IntN(cfg.Vocab))
			}
			sched, _ := BlockRandom(batch, seqLen, DefaultBlockLen, DefaultAttentionProb, 1)
			args := []any{tensors.FromFlatDataAndDimensions(tok, batch, seqLen), sched.Tensor()}
			exec.MustExec(args...)[0].FinalizeAll() // compile, initialise the weights
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				exec.MustExec(args...)[0].FinalizeAll()
			}
			sec := time.Since(start).Seconds() / float64(b.N)
			b.ReportMetric(float64(batch*seqLen)/sec, "tok/s")
			b.ReportMetric(FLOPsPerToken(cfg, seqLen, 0.5)*float64(batch*seqLen)/sec/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkForward: the parallel forward (logits for every token, block-random schedule) of the tiny and
// 130m presets per variant.
func BenchmarkForward(b *testing.B) {
	benchForward(b, "tiny", 8, 256)
	benchForward(b, "130m", 1, 256)
}

// BenchmarkDecode: one decode step (batch 1) of the Oryx-TG 130m and small presets with a KV cache of the
// given size, in attention mode and in linear mode. Attention reads the whole preallocated cache under a
// valid-length mask, so its cost is that of a full cache of that size; linear mode appends to the cache (in
// place) but does not read it.
func BenchmarkDecode(b *testing.B) {
	benchDecode(b, "130m", []int{256, 1024, 4096})
	benchDecode(b, "small", []int{256, 4096, 16384})
}

func benchDecode(b *testing.B, preset string, capacities []int) {
	be := backend.MustGet()
	cfg, err := Preset(preset, OryxTG)
	if err != nil {
		b.Fatal(err)
	}
	m, _ := New(cfg)
	ctx := context.New()
	for _, capacity := range capacities {
		e, err := NewEngine(be, ctx, m, 1, capacity)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.Prefill([][]int32{{1, 2, 3, 4, 5, 6, 7, 8}}, [][]Mode{{0, 0, 0, 0, 0, 0, 0, 0}}); err != nil {
			b.Fatal(err)
		}
		for _, mode := range []Mode{Attention, Linear} {
			b.Run(fmt.Sprintf("%s-oryx-tg/context=%d/%s", preset, capacity, mode), func(b *testing.B) {
				if _, err := e.Step([]int32{9}, []Mode{mode}); err != nil { // compile
					b.Fatal(err)
				}
				b.ResetTimer()
				start := time.Now()
				for i := range b.N {
					if e.Positions()[0] >= capacity {
						b.Fatalf("cache full after %d steps", i)
					}
					if _, err := e.Step([]int32{int32(i % cfg.Vocab)}, []Mode{mode}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(time.Since(start).Seconds()*1e3/float64(b.N), "ms/token")
			})
		}
	}
}
