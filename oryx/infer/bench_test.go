package infer

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
//	go test ./oryx/infer -run '^$' -bench 'Decode$' -benchtime 10x -timeout 60m
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

// BenchmarkDecode: decode steps (batch 1) of an Oryx-TG preset along the paths a user takes: an engine of each
// KV-cache capacity prefilled with a prompt of each fill read in each mode — attention, linear, mixed (linear
// with its last 16 tokens in attention: attention-last:16) — then stepped in each schedule — attention, linear,
// alternating (a mixed schedule) — one after the other on the same engine (each schedule continues where the
// previous one stopped). Reported per path: wall ms/token and the process's CPU ms/token (every thread; the
// figure to compare on a machine shared with other work, where wall time follows the load), and the first
// step's ms: with the graph of its cache bucket new to the engine, the compile cost of that bucket. A step's attention
// reads the cache rows in use (readRows: powers of two from 256) and an all-linear step reads none.
//
//	ORYX_BENCH_DECODE="130m:256,16384;small:256"   presets and capacities (default small:256,16384)
//	ORYX_BENCH_FILL="84,8000"                        prompt tokens before the steps (default 84,8000; a fill
//	                                                  that leaves fewer than 64 free slots is skipped)
//	go test ./oryx/infer -run '^$' -bench 'Decode$' -benchtime 10x
func BenchmarkDecode(b *testing.B) {
	spec := os.Getenv("ORYX_BENCH_DECODE")
	if spec == "" {
		spec = "small:256,16384"
	}
	fills := benchEnvInts(b, "ORYX_BENCH_FILL", []int{84, 8000})
	for _, part := range strings.Split(spec, ";") {
		preset, list, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			b.Fatalf("ORYX_BENCH_DECODE: %q is not PRESET:CAPACITY,CAPACITY,...", part)
		}
		var capacities []int
		for _, c := range strings.Split(list, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(c))
			if err != nil || n <= 64 {
				b.Fatalf("ORYX_BENCH_DECODE: capacity %q of %q is not an integer above 64", c, part)
			}
			capacities = append(capacities, n)
		}
		benchDecode(b, preset, capacities, fills)
	}
}

// decodeSchedules are BenchmarkDecode's step schedules: the mode of the i-th step.
var decodeSchedules = []struct {
	name string
	mode func(i int) oryx.Mode
}{
	{"attention", func(int) oryx.Mode { return oryx.Attention }},
	{"linear", func(int) oryx.Mode { return oryx.Linear }},
	{"alternating", func(i int) oryx.Mode { return oryx.Mode(i % 2) }},
}

// decodePrefills are BenchmarkDecode's prompt readings: the mode of prompt token i of n.
var decodePrefills = []struct {
	name string
	mode func(i, n int) oryx.Mode
}{
	{"attention", func(int, int) oryx.Mode { return oryx.Attention }},
	{"linear", func(int, int) oryx.Mode { return oryx.Linear }},
	{"mixed", func(i, n int) oryx.Mode {
		if i >= n-16 {
			return oryx.Attention
		}
		return oryx.Linear
	}},
}

func benchDecode(b *testing.B, preset string, capacities, fills []int) {
	be := backend.MustGet()
	cfg, err := oryx.Preset(preset, oryx.OryxTG)
	if err != nil {
		b.Fatal(err)
	}
	m, _ := oryx.New(cfg)
	m.AttentionMemBytes = 256 << 20 // an 8K-token prompt read in attention mode in bounded memory
	ctx := context.New()
	r := rand.New(rand.NewPCG(5, 6))
	for _, capacity := range capacities {
		e, err := NewEngine(be, ctx, m, 1, capacity)
		if err != nil {
			b.Fatal(err)
		}
		for _, fill := range fills {
			if fill+64 > capacity {
				continue
			}
			prompt := make([]int32, fill)
			for i := range prompt {
				prompt[i] = int32(r.IntN(cfg.Vocab))
			}
			for _, pf := range decodePrefills {
				modes := make([]oryx.Mode, fill)
				for i := range modes {
					modes[i] = pf.mode(i, fill)
				}
				if _, err := e.Prefill([][]int32{prompt}, [][]oryx.Mode{modes}); err != nil {
					b.Fatal(err)
				}
				for _, sc := range decodeSchedules {
					name := fmt.Sprintf("%s-oryx-tg/slots=%d/filled=%d/prefill=%s/step=%s", preset, capacity, fill, pf.name, sc.name)
					b.Run(name, func(b *testing.B) { benchSteps(b, e, sc.mode) })
				}
			}
		}
		e.Finalize()
	}
}

// benchSteps times b.N steps of e in the modes of schedule, after two untimed ones (compiling the graphs of
// both modes of an alternating schedule), and reports wall and CPU milliseconds per token.
func benchSteps(b *testing.B, e *Engine, schedule func(i int) oryx.Mode) {
	step := func(i int) {
		if e.Positions()[0] >= e.Capacity() {
			b.Fatalf("the cache is full after %d steps", i)
		}
		if _, err := e.Step([]int32{int32(i % 97)}, []oryx.Mode{schedule(i)}); err != nil {
			b.Fatal(err)
		}
	}
	first := time.Now()
	step(0) // compiles the step graph of the schedule's first mode when it is new to the engine
	b.ReportMetric(time.Since(first).Seconds()*1e3, "first-step-ms")
	step(1)
	b.ResetTimer()
	cpu0, start := processCPU(), time.Now()
	for i := range b.N {
		step(i)
	}
	b.ReportMetric(time.Since(start).Seconds()*1e3/float64(b.N), "ms/token")
	b.ReportMetric((processCPU()-cpu0).Seconds()*1e3/float64(b.N), "cpu-ms/token")
}

// processCPU is the CPU time the process has used (user and system, every thread).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSpeculative: greedy decoding (batch 1) of an Oryx model at KV-cache capacities 512 → 16,384, plain
// attention-mode Generate against GenerateSpeculative with K = 2, 4 and 8 drafts per round and with AutoDraft
// (--speculative auto: its tokens/s, the K it chose — 0 for plain decoding — and its reason, printed): generated
// tokens/s (decode only, prefill excluded), the acceptance rate, and per round the milliseconds of the draft
// steps, the verify pass and the commit. One iteration generates ORYX_BENCH_TOKENS tokens (default 64).
//
//   - Weights: ORYX_BENCH_CHECKPOINT=DIR (a checkpoint of an Oryx variant, e.g. a trained run directory),
//     else the small Oryx-TG preset with random weights, whose acceptance rate says nothing (random
//     readouts rarely agree) and whose timings still hold.
//   - Prompt: the bytes of ORYX_BENCH_PROMPT_FILE as token ids (the byte tokenizer's ids for plain text),
//     repeated to length, else random tokens. Its length is 64 tokens, so that the benchmark does not pay a
//     16K-token prefill per context; attention reads the cache rows in use (readRows), so at this fill a
//     context's cost is that of a few hundred cached tokens whatever the capacity.
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
	var choices []string
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
		b.Run(fmt.Sprintf("%s/context=%d/spec-auto", name, capacity), func(b *testing.B) {
			if _, err := e.GenerateSpeculative([][]int32{prompt}, AutoDraft, opts); err != nil { // compile
				b.Fatal(err)
			}
			sec, generated, choice := 0.0, 0, ""
			var k int
			b.ResetTimer()
			for range b.N {
				g, err := e.GenerateSpeculative([][]int32{prompt}, AutoDraft, opts)
				if err != nil {
					b.Fatal(err)
				}
				sec, generated = sec+g.DecodeSeconds, generated+g.GeneratedTokens-1
				k, choice = g.Speculation.Draft, g.Speculation.Choice
			}
			b.ReportMetric(float64(generated)/sec, "tok/s")
			b.ReportMetric(sec*1e3/float64(generated), "ms/token")
			b.ReportMetric(float64(k), "chosen-K")
			choices = append(choices, fmt.Sprintf("context=%d: %s", capacity, choice))
		})
	}
	for _, c := range choices { // auto's decisions in words, after the benchmark lines (not inside one)
		fmt.Println(c)
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
