package recipe

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/recipes/train"
)

// Main is the whole command of a recipe directory (recipes/<name>/main.go): it parses the flags, prints the
// plan with --plan, refuses runs that cannot fit the machine (unless --force), and trains or resumes (a
// finished run is left as it is unless --retrain). A usage error exits 2, an interrupted run 130 (its
// checkpoint saved), any other failure 1 (internal/cli).
func Main(name string) {
	cli.Exit(name, MainArgs(name, os.Args[1:], os.Stdout, os.Stderr), train.ErrInterrupted)
}

func hardwareNames() string {
	var n []string
	for _, h := range Hardwares {
		n = append(n, h.Name)
	}
	return strings.Join(n, ", ")
}

// MainArgs is Main with explicit arguments and outputs (for tests and for the main job).
func MainArgs(name string, args []string, stdout, stderr io.Writer) error {
	rec, err := Lookup(name)
	if err != nil {
		return err
	}
	tc := rec.Train
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		out  = fs.String("out", filepath.Join("runs", name), "run directory (checkpoints, metrics, plots); an existing run there is resumed")
		data = fs.String("data", rec.Data, "training corpus: synth[:SEED] (the synthetic language) | mix:synth=W,mqar=W,needle=W (the tiny study's mixture) | "+
			"DIR (pre-tokenized by `oryx tokenize`: DIR/manifest.json) | parquet FILE, DIR or 'GLOB' (text column --column)")
		valData   = fs.String("val-data", "", "validation corpus (same forms; default: held-out synth, else the start of --data)")
		column    = fs.String("column", "text", "text column of parquet corpora")
		tokenizer = fs.String("tokenizer", rec.Tokenizer, "tokenizer: bytes | path/to/tokenizer.json | path/to/tokenizer.model")
		tokens    = fs.Int64("tokens", 0, "token budget; sets --steps to tokens/(batch·seq-len) (default: the recipe's)")
		plan      = fs.Bool("plan", false, "print the run's plan (a summary line on stderr, then JSON on stdout: parameters, FLOPs, tokens, memory, time, fits) and exit")
		hardware  = fs.String("hardware", "cpu-here", "with --plan: the target to size the run for: "+hardwareNames()+" (memory, peak bf16 TFLOP/s and sources: README, recipes/recipe/hardware.go)")
		mfu       = fs.Float64("mfu", DefaultMFU, "with --plan --hardware GPU: the fraction of the peak bf16 rate assumed reached")
		force     = fs.Bool("force", false, "train even when the plan says the run does not fit this machine")
		retrain   = fs.Bool("retrain", false, "a finished run in --out is trained again from scratch (its checkpoints, metrics and summary are replaced); without it, rerunning a finished run changes nothing")
		devices   = fs.Int("devices", 1, "data-parallel devices (XLA with several GPUs; the pure-Go backend has 1)")
		precision = fs.String("precision", "", "f32 | bf16 (bf16 compute, f32 master weights); default: the recipe's on XLA, f32 on the pure-Go backend")
	)
	fs.IntVar(&tc.Steps, "steps", tc.Steps, "optimizer steps")
	fs.IntVar(&tc.Batch, "batch", tc.Batch, "sequences per optimizer step (global batch)")
	fs.IntVar(&tc.MicroBatch, "micro-batch", tc.MicroBatch, "sequences per forward/backward (gradient accumulation over batch/micro-batch)")
	fs.IntVar(&tc.SeqLen, "seq-len", tc.SeqLen, "tokens per sequence")
	fs.Float64Var(&tc.LR, "lr", tc.LR, "peak learning rate")
	fs.StringVar(&tc.LRSchedule, "lr-schedule", tc.LRSchedule, "learning rate after warm-up: cosine | constant (recall probes: constant)")
	fs.Float64Var(&tc.MinLRRatio, "min-lr-ratio", tc.MinLRRatio, "final learning rate as a fraction of the peak (cosine)")
	fs.IntVar(&tc.WarmupSteps, "warmup", tc.WarmupSteps, "linear warm-up steps")
	fs.Float64Var(&tc.WeightDecay, "weight-decay", tc.WeightDecay, "AdamW decoupled weight decay")
	fs.Float64Var(&tc.ClipNorm, "clip", tc.ClipNorm, "global gradient-norm clip (0: none)")
	fs.IntVar(&tc.BlockLen, "block-len", tc.BlockLen, "mixed-mode training: tokens per mode block")
	fs.Float64Var(&tc.AttentionProb, "attn-prob", tc.AttentionProb, "mixed-mode training: probability that a block is in attention mode")
	fs.StringVar(&tc.ModeTraining, "mode-training", tc.ModeTraining, "multi-mixer variants: mixed (each token in its block's mode) | "+
		"complementary (ablation: every token trains both readouts, 2x FLOPs)")
	fs.Uint64Var(&tc.Seed, "seed", tc.Seed, "seed of the weights, data order and mode schedules")
	fs.IntVar(&tc.CheckpointEvery, "checkpoint-every", tc.CheckpointEvery, "steps between checkpoints")
	fs.IntVar(&tc.EvalEvery, "eval-every", tc.EvalEvery, "steps between validations")
	fs.IntVar(&tc.EvalBatches, "eval-batches", tc.EvalBatches, "validation micro-batches per mode")
	fs.IntVar(&tc.LogEvery, "log-every", tc.LogEvery, "steps between metrics lines")
	fs.IntVar(&tc.MaxBadSteps, "max-bad-steps", tc.MaxBadSteps, "non-finite steps in a row that stop the run")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: go run ./recipes/%s [flags]\n\n%s: %s %s, %s.\n\nFlags:\n", name, name, rec.Preset, rec.Variant, rec.Note)
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected arguments %q (flags only; see -h)", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	budget := int64(rec.Train.Steps) * rec.Train.TokensPerStep()
	if set["tokens"] {
		if *tokens <= 0 {
			return cli.Usagef("--tokens must be > 0, got %d", *tokens)
		}
		budget = *tokens
	}
	if !set["steps"] && (set["tokens"] || set["batch"] || set["seq-len"]) {
		tc.Steps = int(budget / max(tc.TokensPerStep(), 1))
		if set["tokens"] && tc.Steps < 1 {
			return cli.Usagef("--tokens %d is less than one step (batch %d × seq-len %d = %d tokens)", *tokens,
				tc.Batch, tc.SeqLen, tc.TokensPerStep())
		}
	}
	if set["batch"] && !set["micro-batch"] && tc.MicroBatch > tc.Batch {
		tc.MicroBatch = tc.Batch
	}
	be, err := backend.Get()
	if err != nil {
		return err
	}
	tc.Precision = rec.Train.Precision
	switch {
	case *precision != "":
		tc.Precision = *precision
	case *plan && *hardware != "cpu-here":
		// Planning for a GPU: the recipe's own precision, whatever this machine's backend is.
	case backend.IsPureGo(be):
		tc.Precision = "f32" // the pure-Go backend has no fast bf16 kernels (docs/gomlx.md §5)
	}
	hw, err := LookupHardware(*hardware)
	if err != nil {
		return cli.Usage(err)
	}
	if !(*mfu > 0 && *mfu <= 1) {
		return cli.Usagef("--mfu %v: must be in (0, 1]", *mfu)
	}
	tc.Devices = *devices
	if err := tc.WithDefaults().Validate(); err != nil {
		return cli.Usagef("flags: %w", err)
	}
	if *devices > be.NumDevices() && !(*plan && hw.Name != "cpu-here") {
		return fmt.Errorf("--devices %d: the backend %s has %d device(s); data-parallel training needs XLA with that many "+
			"GPUs (GOMLX_BACKEND=xla:/abs/path/plugin.so, built with -tags xla)", *devices, be.Name(), be.NumDevices())
	}

	vocab := 0
	if *tokenizer != "" {
		tok, err := tokenizers.Load(*tokenizer)
		if err != nil {
			return fmt.Errorf("--tokenizer: %w", err)
		}
		vocab = tok.VocabSize()
	}
	cfg, err := rec.ModelConfig(vocab)
	if err != nil {
		return err
	}
	p := MakePlan(name, cfg, tc, be, *devices)
	if *plan {
		hp := planHardware(p, hw, *devices, *mfu)
		p.Hardware = &hp
		if hw.Name != "cpu-here" { // the plan is for that target, not this machine
			p.Fits, p.EstimatedHours, p.Advice = hp.Fits, hp.TotalHours, ""
			if !hp.Fits {
				p.Advice = fmt.Sprintf("%s needs %s per device, more than %.0f%% of the %s's %s: use more devices (--devices), "+
					"a smaller --micro-batch (activations), or a larger target", name, humanize.IBytes(uint64(hp.MemoryPerDevice)),
					100*memoryMargin, hw.Name, humanize.IBytes(uint64(hw.MemoryBytes)))
			}
		}
		fmt.Fprintln(stderr, p.Summary())
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	if !p.Fits && !*force {
		return errors.New(p.Advice)
	}
	if *data == "" || *tokenizer == "" {
		return cli.Usagef("%s needs --data (a pre-tokenized directory from `oryx tokenize`, or parquet files with a "+
			"%q column) and --tokenizer (e.g. the GPT-NeoX-20B tokenizer.json)", name, *column)
	}
	sum, err := train.Train(train.Run{
		Name: name, Model: cfg, Train: tc, Data: datasets.DataSpec{Spec: *data, Column: *column},
		ValData: datasets.DataSpec{Spec: *valData, Column: *column}, Tokenizer: *tokenizer, Out: *out, Log: stderr,
		Retrain: *retrain,
	})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(sum)
}
