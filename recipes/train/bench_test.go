package train

import (
	"fmt"
	"github.com/oryx-go/oryx/internal/guard"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/oryx"
)

// BenchmarkTrainStep measures optimizer steps (forward, backward, AdamW) per variant: the tiny preset at the
// tiny recipe's shape (16 × 256 tokens), and with BENCH_130M=1 the 130m preset on one 512-token sequence.
// It reports tokens/s and the process's peak RSS during the sub-benchmark (VmHWM, reset before it).
//
//	go test ./recipes/train -run '^$' -bench TrainStep -benchtime 5x
func BenchmarkTrainStep(b *testing.B) {
	type shape struct {
		preset       string
		batch, seq   int
		vocabPadding bool
	}
	shapes := []shape{{"tiny", 16, 256, true}}
	if os.Getenv("BENCH_130M") == "1" {
		shapes = append(shapes, shape{"130m", 1, 512, false})
	}
	for _, sh := range shapes {
		for _, v := range oryx.Variants {
			b.Run(fmt.Sprintf("%s/%s", sh.preset, v), func(b *testing.B) {
				resetPeakRSS()
				cfg, err := oryx.Preset(sh.preset, v)
				if err != nil {
					b.Fatal(err)
				}
				if sh.vocabPadding {
					cfg.Vocab = 320
				}
				m, err := oryx.New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				tc := tinyTrain()
				tc.Batch, tc.MicroBatch, tc.SeqLen = sh.batch, sh.batch, sh.seq
				tr, err := NewTrainer(backend.MustGet(), m, context.New(), tc)
				if err != nil {
					b.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(1, 2))
				seqs := make([][]int32, sh.batch)
				for i := range seqs {
					seqs[i] = make([]int32, sh.seq+1)
					for j := range seqs[i] {
						seqs[i][j] = int32(rng.IntN(256))
					}
				}
				step := func(i int) {
					modes, _ := trainingModes(v, tc, i)
					if _, err := tr.Step(seqs, modes, 1e-3); err != nil {
						b.Fatal(err)
					}
				}
				start := time.Now()
				step(0) // compile
				first := time.Since(start)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					step(i + 1)
				}
				b.StopTimer()
				perStep := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(float64(sh.batch*sh.seq)/perStep, "tok/s")
				b.ReportMetric(first.Seconds(), "first-step-s")
				b.ReportMetric(float64(guard.PeakRSS())/(1<<20), "peak-RSS-MiB")
				b.ReportMetric(float64(oryx.CountParams(cfg).Total), "params")
			})
		}
	}
}

// resetPeakRSS resets the kernel's VmHWM for this process (Linux; ignored elsewhere).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }
