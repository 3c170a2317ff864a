package infer

import (
	"fmt"
	"github.com/oryx-go/oryx/internal/guard"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/oryx"
)

// BenchmarkPrefillLong: one long-prompt Engine.Prefill of an Oryx-TG preset with the evaluation's attention
// budget (DefaultScoreMemBytes) and GOGC=25 (as `evals` runs), reporting the process's peak RSS next to
// GenerationRowBytes × batch (the weights and the attention chunk are outside that estimate). The size comes
// from ORYX_PREFILL=preset:batch:tokens (default small:1:8192); run it alone, one size per process, since
// the peak is the process's:
//
//	ORYX_PREFILL=small:1:8192 go test ./oryx/infer -run '^$' -bench PrefillLong -benchtime 1x -timeout 60m
func BenchmarkPrefillLong(b *testing.B) {
	spec := os.Getenv("ORYX_PREFILL")
	if spec == "" {
		spec = "small:1:8192"
	}
	f := strings.Split(spec, ":")
	var batch, t int
	var err1, err2 error
	if len(f) == 3 {
		batch, err1 = strconv.Atoi(f[1])
		t, err2 = strconv.Atoi(f[2])
	}
	if len(f) != 3 || err1 != nil || err2 != nil || batch < 1 || t < 1 {
		b.Fatalf("ORYX_PREFILL=%q: want preset:batch:tokens, e.g. small:1:8192", spec)
	}
	cfg, err := oryx.Preset(f[0], oryx.OryxTG)
	if err != nil {
		b.Fatal(err)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	m, _ := oryx.New(cfg)
	m.AttentionMemBytes = oryx.DefaultScoreMemBytes
	capacity := t + 256
	e, err := NewEngine(backend.MustGet(), context.New(), m, batch, capacity)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Finalize()
	prompts, modes := make([][]int32, batch), make([][]oryx.Mode, batch)
	for r := range prompts {
		for j := range t - r { // rows of different lengths, as a sorted evaluation batch
			prompts[r] = append(prompts[r], int32((7*j+r)%cfg.Vocab))
			modes[r] = append(modes[r], oryx.Attention)
		}
	}
	b.Run(fmt.Sprintf("%s-oryx-tg/B=%d/T=%d", f[0], batch, t), func(b *testing.B) {
		start := time.Now()
		for range b.N {
			e.Free()
			if _, err := e.Prefill(prompts, modes); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/prefill")
		b.ReportMetric(float64(guard.PeakRSS())/(1<<20), "peak-RSS-MiB")
		b.ReportMetric(float64(int64(batch)*GenerationRowBytes(cfg, t, capacity, 4))/(1<<20), "estimate-MiB")
	})
}
