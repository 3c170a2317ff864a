// Command modelpeer measures the whole Oryx-TG model on this project's backend for the side-by-side with the
// PyTorch peer (scripts/bench-model-peer.sh, `make bench-model-peer`): training tokens/s, prefill tokens/s and
// decode ms/token, each with the model FLOPs it counts, and the backend's measured float32 matmul peak. It
// writes each preset's random-weight checkpoint and its `oryx export` (model.safetensors + modeling_oryx.py),
// so that the peer (scripts/peer_model.py) runs the very same weights. One JSON object per line on stdout.
//
//	go run -tags xla ./bench/modelpeer --out DIR [--rows train:tiny:32x128,decode:small:16384] [--reps 3]
//
// Rows (KIND:PRESET:SHAPE; every model is Oryx-TG):
//   - train:PRESET:BxT — one optimizer step (forward, backward, global-norm clip, AdamW) on B sequences of T
//     tokens, block-random modes (blocks of T/4 tokens, p = 0.5); vocabulary 320 (bytes, as the recipes);
//     FLOPs: train.FLOPsPerToken (3× the forward's, both readouts).
//   - prefill:PRESET:T — Engine.Prefill of one T-token prompt in attention mode (the linear memory is written
//     too); FLOPs: oryx.FLOPsPerToken(cfg, T, 0.5) per token (both readouts, as computed).
//   - decode:PRESET:L — one attention-mode Engine.Step with L tokens in the cache (a prompt of L tokens read in
//     linear mode, then the steps; the attention reads the cache rows in use, rounded up to a power of two:
//     infer's readRows); FLOPs: oryx.FLOPsPerToken(cfg, L, 1) (projections, the attention read of L keys, the
//     LM head).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/hf"
	"github.com/oryx-go/oryx/oryx/infer"
	"github.com/oryx-go/oryx/oryx/schedule"
	_ "github.com/oryx-go/oryx/oryx/xlamalloc" // glibc's allocator set for XLA at load time (-tags xla)
	"github.com/oryx-go/oryx/recipes/recipe"
	"github.com/oryx-go/oryx/recipes/train"
)

// DefaultRows are the rows of the side-by-side: the tiny study's training shape, the small preset's, and the
// 130m preset's (a training batch that fits a 2-core machine's memory, a 2K prefill, decoding at 256 / 4K / 16K
// tokens in the cache).
const DefaultRows = "train:tiny:32x128,train:small:16x256,prefill:small:2048,prefill:small:8192," +
	"decode:small:256,decode:small:4096,decode:small:16384," +
	"train:130m:4x512,prefill:130m:2048,decode:130m:256,decode:130m:4096,decode:130m:16384"

type row struct {
	kind, preset string
	batch, n     int // train: batch × n tokens; prefill: n prompt tokens; decode: n cached tokens
}

func (r row) String() string {
	if r.kind == "train" {
		return fmt.Sprintf("%s:%s:%dx%d", r.kind, r.preset, r.batch, r.n)
	}
	return fmt.Sprintf("%s:%s:%d", r.kind, r.preset, r.n)
}

func parseRows(spec string) ([]row, error) {
	var rows []row
	for _, f := range strings.Split(spec, ",") {
		parts := strings.Split(strings.TrimSpace(f), ":")
		if len(parts) != 3 {
			return nil, fmt.Errorf("--rows: %q is not KIND:PRESET:SHAPE", f)
		}
		r := row{kind: parts[0], preset: parts[1], batch: 1}
		var err error
		switch r.kind {
		case "train":
			b, t, ok := strings.Cut(parts[2], "x")
			if !ok {
				return nil, fmt.Errorf("--rows: %q: a training shape is BxT", f)
			}
			if r.batch, err = strconv.Atoi(b); err == nil {
				r.n, err = strconv.Atoi(t)
			}
		case "prefill", "decode":
			r.n, err = strconv.Atoi(parts[2])
		default:
			return nil, fmt.Errorf("--rows: %q: kind must be train, prefill or decode", f)
		}
		if err != nil || r.batch <= 0 || r.n <= 0 {
			return nil, fmt.Errorf("--rows: %q: bad shape", f)
		}
		if _, err := oryx.Preset(r.preset, oryx.OryxTG); err != nil {
			return nil, fmt.Errorf("--rows: %q: %w", f, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// modelConfig is the Oryx-TG preset with the byte vocabulary padded to 320, as the recipes train it.
func modelConfig(preset string) oryx.Config {
	cfg, err := oryx.Preset(preset, oryx.OryxTG)
	if err != nil {
		panic(err) // checked by parseRows
	}
	cfg.Vocab = 320
	return cfg
}

func main() {
	oryx.SetupCommand()
	fs := flag.NewFlagSet("modelpeer", flag.ContinueOnError)
	out := fs.String("out", "", "directory for the checkpoints and exports (required)")
	rowsSpec := fs.String("rows", DefaultRows, "rows to measure, KIND:PRESET:SHAPE separated by commas")
	reps := fs.Int("reps", 3, "timed repetitions per row after a compiling one (the fastest is reported)")
	decodeSteps := fs.Int("decode-steps", 8, "decode steps per timed repetition")
	cli.Exit("modelpeer", func() error {
		if err := cli.Parse(fs, os.Args[1:]); err != nil {
			return err
		}
		if *out == "" {
			return cli.Usagef("--out is required")
		}
		if *reps < 1 || *decodeSteps < 1 {
			return cli.Usagef("--reps and --decode-steps must be ≥ 1")
		}
		rows, err := parseRows(*rowsSpec)
		if err != nil {
			return cli.Usage(err)
		}
		return run(*out, rows, *reps, *decodeSteps)
	}())
}

func emit(v map[string]any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(data))
}

func run(out string, rows []row, reps, decodeSteps int) error {
	be, err := oryx.Backend()
	if err != nil {
		return err
	}
	name := "pure Go"
	if !backend.IsPureGo(be) {
		name = fmt.Sprintf("%s on %s", be.Name(), be.DeviceDescription(0))
	}
	emit(map[string]any{"impl": "oryx", "backend": name, "peak_gflops": recipe.ProbeMatmul(be)})

	presets := map[string]bool{}
	for _, r := range rows {
		presets[r.preset] = true
	}
	names := make([]string, 0, len(presets))
	for p := range presets {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		ckpt, export := filepath.Join(out, p, "checkpoint"), filepath.Join(out, p, "export")
		if _, err := os.Stat(filepath.Join(export, "model.safetensors")); err == nil {
			continue // written by an earlier run: the peer reads the same weights again
		}
		if err := oryx.InitCheckpoint(ckpt, modelConfig(p), 1); err != nil {
			return err
		}
		if err := hf.Export(ckpt, export); err != nil {
			return err
		}
	}
	for _, r := range rows {
		cfg := modelConfig(r.preset)
		m, ctx, err := oryx.LoadCheckpoint(filepath.Join(out, r.preset, "checkpoint"), &cfg)
		if err != nil {
			return err
		}
		res := map[string]any{"impl": "oryx", "backend": name, "row": r.String(), "params": oryx.CountParams(cfg).Total}
		switch r.kind {
		case "train":
			sec, err := trainStep(be, m, r, reps)
			if err != nil {
				return fmt.Errorf("%s: %w", r, err)
			}
			tc := trainConfig(r)
			res["tok_s"] = float64(r.batch*r.n) / sec
			res["flops_per_token"] = train.FLOPsPerToken(cfg, tc)
		case "prefill":
			sec, err := prefill(be, ctx, m, r, reps)
			if err != nil {
				return fmt.Errorf("%s: %w", r, err)
			}
			res["tok_s"] = float64(r.n) / sec
			res["flops_per_token"] = oryx.FLOPsPerToken(cfg, r.n, 0.5)
		case "decode":
			sec, err := decode(be, ctx, m, r, reps, decodeSteps)
			if err != nil {
				return fmt.Errorf("%s: %w", r, err)
			}
			res["ms_per_token"] = sec * 1e3
			res["tok_s"] = 1 / sec
			res["flops_per_token"] = oryx.FLOPsPerToken(cfg, r.n, 1)
		}
		emit(res)
	}
	return nil
}

func trainConfig(r row) train.TrainConfig {
	return train.TrainConfig{SeqLen: r.n, Batch: r.batch, MicroBatch: r.batch, Steps: 1000, LR: 1e-3, MinLRRatio: 0.1,
		WarmupSteps: 1, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.1, ClipNorm: 1, Precision: "f32",
		BlockLen: max(r.n/4, 1), AttentionProb: 0.5, Seed: 1}
}

// trainStep returns the fastest of reps optimizer steps (seconds), after a compiling one.
func trainStep(be backends.Backend, m *oryx.Model, r row, reps int) (float64, error) {
	tc := trainConfig(r)
	tr, err := train.NewTrainer(be, m, context.New(), tc) // random weights: the step's cost does not depend on them
	if err != nil {
		return 0, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	seqs := make([][]int32, r.batch)
	for i := range seqs {
		seqs[i] = make([]int32, r.n+1)
		for j := range seqs[i] {
			seqs[i][j] = int32(rng.IntN(256))
		}
	}
	best := 0.0
	for i := range reps + 1 {
		s, err := schedule.BlockRandom(r.batch, r.n, tc.BlockLen, tc.AttentionProb, uint64(i+1))
		if err != nil {
			return 0, err
		}
		start := time.Now()
		modes := make([][]oryx.Mode, r.batch)
		for b := range modes {
			modes[b] = s.Row(b)
		}
		if _, err := tr.Step(seqs, modes, 1e-3); err != nil {
			return 0, err
		}
		if sec := time.Since(start).Seconds(); i > 0 && (best == 0 || sec < best) {
			best = sec
		}
	}
	return best, nil
}

// prefill returns the fastest of reps prefills (seconds) of one r.n-token prompt in attention mode, after a
// compiling one.
func prefill(be backends.Backend, ctx *context.Context, m *oryx.Model, r row, reps int) (float64, error) {
	e, err := infer.NewEngine(be, ctx, m, 1, r.n)
	if err != nil {
		return 0, err
	}
	rng := rand.New(rand.NewPCG(3, 4))
	prompt, modes := make([]int32, r.n), make([]oryx.Mode, r.n)
	for i := range prompt {
		prompt[i], modes[i] = int32(rng.IntN(256)), oryx.Attention
	}
	best := 0.0
	for i := range reps + 1 {
		start := time.Now()
		if _, err := e.Prefill([][]int32{prompt}, [][]oryx.Mode{modes}); err != nil {
			return 0, err
		}
		if sec := time.Since(start).Seconds(); i > 0 && (best == 0 || sec < best) {
			best = sec
		}
	}
	return best, nil
}

// decode returns the fastest per-token time (seconds) of reps runs of steps attention-mode decode steps after
// a prompt of r.n tokens (read in linear mode: the cache is filled either way), after a compiling step.
func decode(be backends.Backend, ctx *context.Context, m *oryx.Model, r row, reps, steps int) (float64, error) {
	e, err := infer.NewEngine(be, ctx, m, 1, r.n+(reps+1)*steps)
	if err != nil {
		return 0, err
	}
	rng := rand.New(rand.NewPCG(5, 6))
	prompt, modes := make([]int32, r.n), make([]oryx.Mode, r.n)
	for i := range prompt {
		prompt[i], modes[i] = int32(rng.IntN(256)), oryx.Linear
	}
	if _, err := e.Prefill([][]int32{prompt}, [][]oryx.Mode{modes}); err != nil {
		return 0, err
	}
	best := 0.0
	for i := range reps + 1 {
		n := steps
		if i == 0 {
			n = 1 // compiles the step
		}
		start := time.Now()
		for j := range n {
			if _, err := e.Step([]int32{int32(j % 256)}, []oryx.Mode{oryx.Attention}); err != nil {
				return 0, err
			}
		}
		if sec := time.Since(start).Seconds() / float64(n); i > 0 && (best == 0 || sec < best) {
			best = sec
		}
	}
	return best, nil
}
