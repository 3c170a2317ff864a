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
	"github.com/oryx-go/oryx/oryx"
	_ "github.com/oryx-go/oryx/oryx/xlamalloc" // glibc's allocator set for XLA at load time (-tags xla)
	"github.com/oryx-go/oryx/recipes/train"
)

// Main is the whole command of a recipe directory (recipes/<name>/main.go): it parses the flags, prints the
// plan with --plan, refuses runs that cannot fit the machine or whose --out is another command's output
// (unless --force), and trains or resumes (a
// finished run is left as it is unless --retrain). A usage error exits 2, an interrupted run 130 (its
// checkpoint saved), any other failure 1 (internal/cli).
func Main(name string) {
	oryx.SetupCommand() // the backend line on standard error, the compilation cache (docs/library.md)
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
	fs, f := newFlags(name, rec, &tc, stderr)
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected arguments %q (flags only; see -h)", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if err := f.applyBudget(rec, &tc, set); err != nil {
		return err
	}
	if *f.printConfig {
		return printConfig(rec, tc, f, stdout)
	}
	be, err := oryx.Backend()
	if err != nil {
		return err
	}
	tc.Precision = rec.Train.Precision
	switch {
	case *f.precision != "":
		tc.Precision = *f.precision
	case *f.plan && *f.hardware != "cpu-here":
		// Planning for a GPU: the recipe's own precision, whatever this machine's backend is.
	case backend.IsPureGo(be):
		tc.Precision = "f32" // the pure-Go backend has no fast bf16 kernels (docs/gomlx.md §5)
	}
	hw, err := LookupHardware(*f.hardware)
	if err != nil {
		return cli.Usage(err)
	}
	if !(*f.mfu > 0 && *f.mfu <= 1) {
		return cli.Usagef("--mfu %v: must be in (0, 1]", *f.mfu)
	}
	if *f.devices < 1 { // the config's 0 means "the default, 1"; a flag of 0 or less is a mistake
		return cli.Usagef("--devices %d: must be ≥ 1", *f.devices)
	}
	tc.Devices = *f.devices
	// The run's training config, resolved here once (a bad flag is a usage error): the plan is made with it
	// and Train takes it as checked.
	run := train.Run{Name: name, Train: tc}
	if err := run.Check(); err != nil {
		return cli.Usagef("flags: %w", err)
	}
	if *f.devices > be.NumDevices() && !(*f.plan && hw.Name != "cpu-here") {
		return fmt.Errorf("--devices %d: the backend %s has %d device(s); data-parallel training needs XLA with that many "+
			"GPUs (GOMLX_BACKEND=xla:/abs/path/plugin.so, built with -tags xla)", *f.devices, be.Name(), be.NumDevices())
	}

	vocab := 0
	if *f.tokenizer != "" {
		tok, err := tokenizers.Load(*f.tokenizer)
		if err != nil {
			return fmt.Errorf("--tokenizer: %w", err)
		}
		vocab = tok.VocabSize()
	}
	cfg, err := rec.ModelConfig(vocab)
	if err != nil {
		return err
	}
	p := MakePlan(name, cfg, run.Train, be, *f.devices)
	if *f.plan {
		return printPlan(p, name, hw, *f.devices, *f.mfu, stdout, stderr)
	}
	if !p.Fits && !*f.force {
		return errors.New(p.Advice)
	}
	if *f.data == "" || *f.tokenizer == "" {
		return cli.Usagef("%s needs --data (a pre-tokenized directory from `oryx tokenize`, or parquet files with a "+
			"%q column) and --tokenizer (e.g. the GPT-NeoX-20B tokenizer.json)", name, *f.column)
	}
	run.Model, run.Tokenizer, run.Out, run.Log, run.Retrain, run.Force = cfg, *f.tokenizer, *f.out, stderr, *f.retrain, *f.force
	run.Data = datasets.DataSpec{Spec: *f.data, Column: *f.column}
	run.ValData = datasets.DataSpec{Spec: *f.valData, Column: *f.column}
	sum, err := train.Train(run)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(sum)
}

// mainFlags are the recipe command's flags that are not TrainConfig fields.
type mainFlags struct {
	out, data, valData, column, tokenizer, hardware, precision *string
	tokens                                                     *int64
	plan, printConfig, force, retrain                          *bool
	mfu                                                        *float64
	devices                                                    *int
}

// newFlags defines the recipe command's flags: the run's (mainFlags) and tc's fields, defaulting to the
// recipe's.
func newFlags(name string, rec Recipe, tc *train.TrainConfig, stderr io.Writer) (*flag.FlagSet, *mainFlags) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &mainFlags{
		out: fs.String("out", filepath.Join("runs", name), "run directory (checkpoints, metrics, plots); an existing run there is resumed"),
		data: fs.String("data", rec.Data, "training corpus: synth[:SEED] (the synthetic language) | mix:synth=W,mqar=W,needle=W,text:PATH=W (the tiny study's mixture) | "+
			"text:PATH or parquet:PATTERN[#COLUMN] (real text; the last 10 % held out for validation) | "+
			"DIR (pre-tokenized by `oryx tokenize`: DIR/manifest.json) | parquet FILE, DIR or 'GLOB' (text column --column)"),
		valData:   fs.String("val-data", "", "validation corpus (same forms; default: the held-out part of real text in --data, else held-out synth, else the start of --data)"),
		column:    fs.String("column", "text", "text column of parquet corpora"),
		tokenizer: fs.String("tokenizer", rec.Tokenizer, "tokenizer: bytes | path/to/tokenizer.json | path/to/tokenizer.model"),
		tokens:    fs.Int64("tokens", 0, "token budget; sets --steps to tokens/(batch·seq-len) (default: the recipe's)"),
		plan:      fs.Bool("plan", false, "print the run's plan (a summary line on stderr, then JSON on stdout: parameters, FLOPs, tokens, memory, time, fits) and exit"),
		printConfig: fs.Bool("print-config", false, "print the recipe's complete settings as JSON (model, data, optimizer, schedule, budget, run), "+
			"with the other flags given applied, and exit; --precision aside, the recipe's precision (the pure-Go backend trains in f32)"),
		hardware:  fs.String("hardware", "cpu-here", "with --plan: the target to size the run for: "+hardwareNames()+" (memory, peak bf16 TFLOP/s and sources: docs/training.md, recipes/recipe/hardware.go)"),
		mfu:       fs.Float64("mfu", DefaultMFU, "with --plan --hardware GPU: the fraction of the peak bf16 rate assumed reached"),
		force:     fs.Bool("force", false, "train even when the plan says the run does not fit this machine, or when --out holds another command's output (an export, a corpus, ...)"),
		retrain:   fs.Bool("retrain", false, "a finished run in --out is trained again from scratch (its checkpoints, metrics and summary are replaced); without it, rerunning a finished run changes nothing"),
		devices:   fs.Int("devices", 1, "data-parallel devices (XLA with several GPUs; the pure-Go backend has 1)"),
		precision: fs.String("precision", "", "f32 | bf16 (bf16 compute, f32 master weights); default: the recipe's on XLA, f32 on the pure-Go backend"),
	}
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
	fs.IntVar(&tc.BlockLen, "block-len", tc.BlockLen, "block-random training: tokens per mode block")
	fs.Float64Var(&tc.AttentionProb, "attn-prob", tc.AttentionProb, "block-random training: probability that a block is in attention mode")
	fs.StringVar(&tc.ModeTraining, "mode-training", tc.ModeTraining, "multi-mixer variants: block-random (each token in its block's mode) | "+
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
	return fs, f
}

// applyBudget turns --tokens (and --batch or --seq-len without --steps) into tc's steps, keeping the
// recipe's token budget unless --tokens changes it, and caps the micro-batch at a smaller --batch.
func (f *mainFlags) applyBudget(rec Recipe, tc *train.TrainConfig, set map[string]bool) error {
	budget := int64(rec.Train.Steps) * rec.Train.TokensPerStep()
	if set["tokens"] {
		if *f.tokens <= 0 {
			return cli.Usagef("--tokens must be > 0, got %d", *f.tokens)
		}
		budget = *f.tokens
	}
	if !set["steps"] && (set["tokens"] || set["batch"] || set["seq-len"]) {
		tc.Steps = int(budget / max(tc.TokensPerStep(), 1))
		if set["tokens"] && tc.Steps < 1 {
			return cli.Usagef("--tokens %d is less than one step (batch %d × seq-len %d = %d tokens)", *f.tokens,
				tc.Batch, tc.SeqLen, tc.TokensPerStep())
		}
	}
	if set["batch"] && !set["micro-batch"] && tc.MicroBatch > tc.Batch {
		tc.MicroBatch = tc.Batch
	}
	return nil
}

// printPlan prints the plan of run name sized for hw (a summary line on stderr, then the JSON on stdout);
// for a target other than this machine, whether it fits and the advice are the target's.
func printPlan(p Plan, name string, hw Hardware, devices int, mfu float64, stdout, stderr io.Writer) error {
	hp := planHardware(p, hw, devices, mfu)
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

// printConfig prints the recipe's complete settings (Settings) with the flags applied: tc is the recipe's
// training config after --steps, --tokens and the other training flags; --precision and --devices apply as a
// run would take them, except that the precision is the recipe's unless --precision says otherwise (a run on the
// pure-Go backend trains in f32).
func printConfig(rec Recipe, tc train.TrainConfig, f *mainFlags, stdout io.Writer) error {
	if *f.precision != "" {
		tc.Precision = *f.precision
	}
	if *f.devices < 1 {
		return cli.Usagef("--devices %d: must be ≥ 1", *f.devices)
	}
	tc.Devices = *f.devices
	tc, err := tc.Resolve()
	if err != nil {
		return cli.Usagef("flags: %w", err)
	}
	s, err := MakeSettings(rec, tc, DataSettings{Train: *f.data, Val: *f.valData, Column: *f.column, Tokenizer: *f.tokenizer})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}
