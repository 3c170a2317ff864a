package infer

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// Model benchmarks (BENCHMARKS.md), float32, random weights, pure-Go backend:
//
//	go test ./oryx/infer -run '^$' -bench 'Forward' -benchtime 2x -timeout 60m
//	go test ./oryx/infer -run '^$' -bench 'Decode' -benchtime 20x -timeout 60m
//	go test ./oryx/infer -run '^$' -bench 'Speculative' -benchtime 2x -timeout 180m    (make bench-speculative)

func benchForward(b *testing.B, preset string, batch, seqLen int) {
	be := backend.MustGet()
	for _, v := range oryx.Variants {
		b.Run(fmt.Sprintf("%s/%s/B=%d/T=%d", preset, v, batch, seqLen), func(b *testing.B) {
			cfg, err := oryx.Preset(preset, v)
			if err != nil {
				b.Fatal(err)
			}
			m, _ := oryx.New(cfg)
			ctx := context.New()
			exec := context.MustNewExec(be, ctx, func(ctx *context.Context, tok, md *Node) *Node {
				return m.Logits(ctx, tok, m.ModesOrNil(md))
			})
			defer exec.Finalize()
			r := rand.New(rand.NewPCG(1, 2))
			tok := make([]int32, batch*seqLen)
			for i := range tok {
				tok[i] = int32(r.IntN(cfg.Vocab))
			}
			sched, _ := schedule.BlockRandom(batch, seqLen, schedule.DefaultBlockLen, schedule.DefaultAttentionProb, 1)
			args := []any{tensors.FromFlatDataAndDimensions(tok, batch, seqLen), sched.Tensor()}
			exec.MustExec(args...)[0].FinalizeAll() // compile, initialise the weights
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				exec.MustExec(args...)[0].FinalizeAll()
			}
			sec := time.Since(start).Seconds() / float64(b.N)
			b.ReportMetric(float64(batch*seqLen)/sec, "tok/s")
			b.ReportMetric(oryx.FLOPsPerToken(cfg, seqLen, 0.5)*float64(batch*seqLen)/sec/1e9, "GFLOP/s")
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
//
// ORYX_BENCH_DECODE="130m:256,16384;small:256" replaces the default presets and KV-cache capacities
// (130m: 256, 1024, 4096; small: 256, 4096, 16384).
func BenchmarkDecode(b *testing.B) {
	spec := os.Getenv("ORYX_BENCH_DECODE")
	if spec == "" {
		spec = "130m:256,1024,4096;small:256,4096,16384"
	}
	for _, part := range strings.Split(spec, ";") {
		preset, list, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			b.Fatalf("ORYX_BENCH_DECODE: %q is not PRESET:CAPACITY,CAPACITY,...", part)
		}
		var capacities []int
		for _, c := range strings.Split(list, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(c))
			if err != nil || n <= 8 {
				b.Fatalf("ORYX_BENCH_DECODE: capacity %q of %q is not an integer above 8", c, part)
			}
			capacities = append(capacities, n)
		}
		benchDecode(b, preset, capacities)
	}
}

func benchDecode(b *testing.B, preset string, capacities []int) {
	be := backend.MustGet()
	cfg, err := oryx.Preset(preset, oryx.OryxTG)
	if err != nil {
		b.Fatal(err)
	}
	m, _ := oryx.New(cfg)
	ctx := context.New()
	for _, capacity := range capacities {
		e, err := NewEngine(be, ctx, m, 1, capacity)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.Prefill([][]int32{{1, 2, 3, 4, 5, 6, 7, 8}}, [][]oryx.Mode{{0, 0, 0, 0, 0, 0, 0, 0}}); err != nil {
			b.Fatal(err)
		}
		for _, mode := range []oryx.Mode{oryx.Attention, oryx.Linear} {
			b.Run(fmt.Sprintf("%s-oryx-tg/context=%d/%s", preset, capacity, mode), func(b *testing.B) {
				if _, err := e.Step([]int32{9}, []oryx.Mode{mode}); err != nil { // compile
					b.Fatal(err)
				}
				b.ResetTimer()
				start := time.Now()
				for i := range b.N {
					if e.Positions()[0] >= capacity {
						b.Fatalf("cache full after %d steps", i)
					}
					if _, err := e.Step([]int32{int32(i % cfg.Vocab)}, []oryx.Mode{mode}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(time.Since(start).Seconds()*1e3/float64(b.N), "ms/token")
			})
		}
	}
}

// BenchmarkSpeculative: greedy decoding (batch 1) of an Oryx model at KV-cache capacities 512 → 16,384, plain
// attention-mode Generate against GenerateSpeculative with K = 2, 4 and 8 drafts per round: generated
// tokens/s (decode only, prefill excluded), the acceptance rate, and per round the milliseconds of the draft
// steps, the verify pass and the commit. One iteration generates ORYX_BENCH_TOKENS tokens (default 64).
//
//   - Weights: ORYX_BENCH_CHECKPOINT=DIR (a checkpoint of an Oryx variant, e.g. a trained run directory),
//     else the small Oryx-TG preset with random weights, whose acceptance rate says nothing (random
//     readouts rarely agree) and whose timings still hold.
//   - Prompt: the bytes of ORYX_BENCH_PROMPT_FILE as token ids (the byte tokenizer's ids for plain text),
//     repeated to length, else random tokens. Its length is 64 tokens, so that the benchmark does not pay a
//     16K-token prefill per context: attention reads the whole preallocated cache under a valid-length mask,
//     so a step's cost is that of a full cache of that capacity whatever the prompt (as in BenchmarkDecode).
//     ORYX_BENCH_FILL=1 fills the context instead (prompt = capacity − tokens; slow on pure Go), which is
//     what the acceptance rate of a trained model at long context needs.
//   - ORYX_BENCH_CONTEXTS="512,2048" picks the capacities (default 512,1024,2048,4096,8192,16384),
//     ORYX_BENCH_K="4" the draft lengths.
func BenchmarkSpeculative(b *testing.B) {
	be := backend.MustGet()
	var m *oryx.Model
	ctx := context.New()
	name := "small-oryx-tg-random"
	if dir := os.Getenv("ORYX_BENCH_CHECKPOINT"); dir != "" {
		var err error
		if m, ctx, err = oryx.LoadCheckpoint(dir, nil); err != nil {
			b.Fatal(err)
		}
		name = string(m.Config.Variant) + "-" + filepath.Base(filepath.Clean(dir))
	} else {
		cfg, err := oryx.Preset("small", oryx.OryxTG)
		if err != nil {
			b.Fatal(err)
		}
		m, _ = oryx.New(cfg)
	}
	m.AttentionMemBytes = 256 << 20 // a filled 16K-token prefill in bounded memory
	tokens := benchEnvInts(b, "ORYX_BENCH_TOKENS", []int{64})[0]
	contexts := benchEnvInts(b, "ORYX_BENCH_CONTEXTS", []int{512, 1024, 2048, 4096, 8192, 16384})
	ks := benchEnvInts(b, "ORYX_BENCH_K", []int{2, 4, 8})
	var text []byte
	if f := os.Getenv("ORYX_BENCH_PROMPT_FILE"); f != "" {
		var err error
		if text, err = os.ReadFile(f); err != nil || len(text) == 0 {
			b.Fatalf("ORYX_BENCH_PROMPT_FILE: %v (%d bytes)", err, len(text))
		}
	}
	for _, capacity := range contexts {
		n := 64
		if os.Getenv("ORYX_BENCH_FILL") == "1" {
			n = capacity - tokens
		}
		if n < 1 || n+tokens-1 > capacity {
			b.Fatalf("context %d cannot hold a %d-token prompt and %d generated tokens", capacity, n, tokens)
		}
		prompt := make([]int32, n)
		r := rand.New(rand.NewPCG(3, 4))
		for i := range prompt {
			if text != nil {
				prompt[i] = int32(text[i%len(text)]) % int32(m.Config.Vocab)
			} else {
				prompt[i] = int32(r.IntN(m.Config.Vocab))
			}
		}
		e, err := NewEngine(be, ctx, m, 1, capacity)
		if err != nil {
			b.Fatal(err)
		}
		opts := GenerateOptions{MaxTokens: tokens}
		b.Run(fmt.Sprintf("%s/context=%d/plain", name, capacity), func(b *testing.B) {
			if _, err := e.Generate([][]int32{prompt}, opts); err != nil { // compile
				b.Fatal(err)
			}
			sec, generated := 0.0, 0
			b.ResetTimer()
			for range b.N {
				g, err := e.Generate([][]int32{prompt}, opts)
				if err != nil {
					b.Fatal(err)
				}
				sec, generated = sec+g.DecodeSeconds, generated+g.GeneratedTokens-1 // the first token is the prefill's
			}
			b.ReportMetric(float64(generated)/sec, "tok/s")
			b.ReportMetric(sec*1e3/float64(generated), "ms/token")
		})
		for _, k := range ks {
			b.Run(fmt.Sprintf("%s/context=%d/spec-K=%d", name, capacity, k), func(b *testing.B) {
				if _, err := e.GenerateSpeculative([][]int32{prompt}, k, opts); err != nil { // compile
					b.Fatal(err)
				}
				var sec, draft, verify, commit float64
				var generated, rounds, drafted, accepted int
				b.ResetTimer()
				for range b.N {
					g, err := e.GenerateSpeculative([][]int32{prompt}, k, opts)
					if err != nil {
						b.Fatal(err)
					}
					s := g.Speculation
					sec, generated = sec+g.DecodeSeconds, generated+g.GeneratedTokens-1
					draft, verify, commit = draft+s.DraftSeconds, verify+s.VerifySeconds, commit+s.CommitSeconds
					rounds, drafted, accepted = rounds+s.Rounds, drafted+s.Drafted, accepted+s.Accepted
				}
				b.ReportMetric(float64(generated)/sec, "tok/s")
				b.ReportMetric(sec*1e3/float64(generated), "ms/token")
				b.ReportMetric(float64(accepted)/float64(max(drafted, 1)), "accept")
				b.ReportMetric(float64(generated)/float64(rounds), "tok/round")
				b.ReportMetric(draft*1e3/float64(rounds), "draft-ms/round")
				b.ReportMetric(verify*1e3/float64(rounds), "verify-ms/round")
				b.ReportMetric(commit*1e3/float64(rounds), "commit-ms/round")
			})
		}
	}
}

// benchEnvInts reads a comma-separated list of positive integers from the environment (def when unset).
func benchEnvInts(b *testing.B, name string, def []int) []int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("%s: %q is not a positive integer", name, f)
		}
		out = append(out, n)
	}
	return out
}
