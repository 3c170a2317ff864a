package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strings"

	"github.com/oryx-go/oryx/evals/evalrun"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/internal/interrupt"
	"github.com/oryx-go/oryx/oryx"
)

func main() {
	// The pure-Go backend returns freed intermediates to per-size buffer pools that survive one GC cycle, so
	// with Go's default GOGC=100 a long-context forward (chunked attention and scoring: many large buffers
	// of varying sizes) runs at 2–4× its working set. GOGC=25 keeps it near the working set at no measured
	// cost in speed (BENCHMARKS.md, "Scoring in bounded memory"). An explicit GOGC wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(25)
	}
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "evals:", err)
		if interrupt.Is(err) {
			os.Exit(interrupt.ExitCode)
		}
		os.Exit(1)
	}
}

type listFlag []string

// The scoring memory flag, shared by the subcommands that score tokens.
const (
	scoreMemDefault = int(oryx.DefaultScoreMemBytes >> 20)
	scoreMemUsage   = "MiB for one chunk of the vocabulary projection and log-softmax when scoring (positions and vocabulary are chunked to fit; never [batch, T, vocab] logits)"
)

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "switch":
			return switchCmd(args[1:], stdout, stderr)
		case "mqar":
			return mqarCmd(args[1:], stdout, stderr)
		case "merge":
			return mergeCmd(args[1:], stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("evals", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o evalrun.Options
	var paths, params listFlag
	var dataRoot string
	fs.StringVar(&o.Checkpoint, "checkpoint", "", "checkpoint directory (config.json + checkpoint files)")
	fs.StringVar(&o.Tasks, "tasks", "lm", "comma-separated tasks or groups (lm, recall, niah, all); unknown names list the known ones")
	fs.BoolVar(&o.Mixed, "mixed", false, "the paper's mixed setting: context in linear mode, question/answer and generated tokens in attention")
	fs.StringVar(&o.Schedule, "schedule", "", "schedule spec for every token (attention, linear, attention-last:N, ranges, ...); default attention")
	fs.StringVar(&o.Out, "out", "", "results file, lm-eval layout (default results/<model>-<schedule>.json; results/ is git-ignored); rerunning with the same file skips its finished tasks")
	fs.BoolVar(&o.Force, "force", false, "rerun the tasks --out already holds (and overwrite a file of another run)")
	fs.StringVar(&o.Tokenizer, "tokenizer", "", "tokenizer (default: the training run's, else bytes)")
	fs.StringVar(&dataRoot, "data-root", "", "root of the HF-layout parquet sets (default: $"+harness.DataRootEnv+", else shared/data/hf found walking up from the working directory)")
	fs.Var(&paths, "data-path", "per-task data override task=path (repeatable)")
	fs.Var(&params, "param", "task-family option key=value (repeatable), e.g. niah.lengths=1024,2048 or niah.depths=0,50,100; unknown keys list the known ones")
	fs.IntVar(&o.Limit, "limit", 0, "score only the first N documents of each task (0: all); the run is marked partial")
	fs.IntVar(&o.Batch, "batch", 8, "requests per model call")
	fs.IntVar(&o.LMMaxLength, "lm-max-length", evalrun.DefaultLMMaxLength, "max_length of the LM tasks (lm-eval's; wikitext windows, truncation)")
	fs.IntVar(&o.MaxLength, "max-length", 8192, "max tokens per model call of the NIAH and recall tasks (recall is also capped at JRT's 2048)")
	fs.IntVar(&o.ScoreMemMB, "score-mem-mb", scoreMemDefault, scoreMemUsage)
	fs.IntVar(&o.GenMemMB, "gen-mem-mb", oryxlm.DefaultGenMemMB, "MiB for one generation batch (NIAH, recall): its rows' KV caches at the batch's capacity plus the prefill's activations; the batch is cut below --batch to fit, down to 1 row (the chosen batch is logged)")
	fs.IntVar(&o.Bootstrap, "bootstrap-iters", 0, "bootstrap resamples for LAMBADA perplexity stderr (0: lm-eval's 100000, <0: off)")
	fs.BoolVar(&o.LogSamples, "log-samples", false, "write samples_<task>_<timestamp>.jsonl (lm-eval's per-document records) next to --out")
	fs.StringVar(&o.ModelName, "model", "", "model name in the results (default: the checkpoint directory's name)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: go run ./evals --checkpoint DIR [--tasks LIST] [--mixed | --schedule SPEC] [flags]\n"+
			"       go run ./evals merge [--out DIR] [--include-partial] RUN.json...\n"+
			"       go run ./evals switch --checkpoint DIR [--at N --seq-len T --data synth|PARQUET]   (mode-switch curves)\n"+
			"       go run ./evals mqar --checkpoint DIR [--pairs 4,8,16 --offset 128] (default: the run's)  (MQAR accuracy per schedule)\n\nTasks: %s\nGroups: lm, recall, niah, all\nParams:\n  %s\n\nFlags:\n",
			strings.Join(harness.Tasks(), ", "), strings.Join(harness.Params(), "\n  "))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	if o.Harness.Paths, err = harness.ParsePathOverrides(paths); err != nil {
		return fmt.Errorf("--data-path: %w", err)
	}
	if o.Harness.Params, err = harness.ParseParams(params); err != nil {
		return fmt.Errorf("--param: %w", err)
	}
	if err := checkSizes(sizeFlag{"--batch", o.Batch, 1, guard.MaxBatch}, sizeFlag{"--max-length", o.MaxLength, 1, guard.MaxSeqLen},
		sizeFlag{"--gen-mem-mb", o.GenMemMB, 1, math.MaxInt32},
		sizeFlag{"--limit", o.Limit, 0, math.MaxInt}); err != nil {
		return err
	}
	wd, _ := os.Getwd()
	o.Harness.DataRoot, o.DataRootSource = harness.ResolveDataRoot(dataRoot, wd)
	o.Log, o.Stdout = stderr, stdout
	ctx, stop := interrupt.Context(context.Background())
	defer stop()
	out, err := evalrun.Run(ctx, o)
	if out != "" {
		fmt.Fprintln(stdout, "wrote", out)
	}
	return err
}

// switchCmd is `evals switch`: per-position loss curves around a mode switch.
func switchCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("evals switch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o evalrun.SwitchOptions
	fs.StringVar(&o.Checkpoint, "checkpoint", "", "checkpoint directory")
	fs.StringVar(&o.Tokenizer, "tokenizer", "", "tokenizer (default: the training run's, else bytes)")
	fs.StringVar(&o.Data, "data", "synth", "held-out text: synth, or parquet files (--column)")
	fs.StringVar(&o.Column, "column", "text", "text column of parquet data")
	fs.IntVar(&o.SeqLen, "seq-len", 256, "tokens per sequence")
	fs.IntVar(&o.At, "at", 128, "position of the switch (first token read in the new mode)")
	fs.IntVar(&o.Sequences, "sequences", 64, "sequences averaged")
	fs.IntVar(&o.Batch, "batch", 8, "sequences per model call")
	fs.IntVar(&o.ScoreMemMB, "score-mem-mb", scoreMemDefault, scoreMemUsage)
	fs.StringVar(&o.Out, "out", "results/switch", "output directory (switch.json, switch.png)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := checkSizes(sizeFlag{"--seq-len", o.SeqLen, 2, guard.MaxSeqLen}, sizeFlag{"--at", o.At, 1, o.SeqLen - 1},
		sizeFlag{"--sequences", o.Sequences, 1, guard.MaxBatch}, sizeFlag{"--batch", o.Batch, 1, guard.MaxBatch}); err != nil {
		return err
	}
	if err := checkTokens("--sequences × --seq-len", o.Sequences, o.SeqLen); err != nil {
		return err
	}
	if _, err := evalrun.Switch(o, stderr); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s/switch.json and %s/switch.png\n", o.Out, o.Out)
	return nil
}

// mqarCmd is `evals mqar`: MQAR accuracy per schedule and number of pairs.
func mqarCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("evals mqar", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o evalrun.MQAROptions
	pairs := fs.String("pairs", "", "comma-separated numbers of key-value pairs (default: 4,8,16 up to the run's mixture pairs)")
	offset := fs.Int("offset", -1, "added to every MQAR id (default: the run's, 128 for the study's mixture, else 0)")
	fs.StringVar(&o.Checkpoint, "checkpoint", "", "checkpoint directory")
	fs.StringVar(&o.Tokenizer, "tokenizer", "", "tokenizer (default: the training run's, else bytes)")
	fs.IntVar(&o.SeqLen, "seq-len", 0, "tokens per example (default: the run's seq_len, else 256)")
	fs.IntVar(&o.Vocab, "vocab", 0, "MQAR vocabulary (default 128)")
	fs.IntVar(&o.Examples, "examples", 128, "examples per pair count")
	fs.Uint64Var(&o.Seed, "seed", 77, "example seed (use one unseen in training)")
	fs.IntVar(&o.Batch, "batch", 16, "examples per model call")
	fs.IntVar(&o.ScoreMemMB, "score-mem-mb", scoreMemDefault, scoreMemUsage)
	fs.StringVar(&o.Out, "out", "results/mqar.json", "JSON output")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, f := range strings.Split(*pairs, ",") {
		if *pairs == "" {
			break
		}
		var p int
		if _, err := fmt.Sscan(strings.TrimSpace(f), &p); err != nil || p < 1 {
			return fmt.Errorf("--pairs %q: want comma-separated positive integers", *pairs)
		}
		o.Pairs = append(o.Pairs, p)
	}
	if o.Checkpoint == "" {
		return fmt.Errorf("--checkpoint is required")
	}
	if *offset < -1 || *offset > guard.MaxVocab {
		return fmt.Errorf("--offset must be in [0, %d] (or -1: the run's), got %d", guard.MaxVocab, *offset)
	}
	o.Offset = int32(*offset)
	// The unset sizes come from the checkpoint's run.json (also input): fill them first, then bound them all.
	o = o.Resolve(stderr)
	if err := checkSizes(sizeFlag{"--examples", o.Examples, 1, guard.MaxBatch}, sizeFlag{"--seq-len", o.SeqLen, 2, guard.MaxSeqLen},
		sizeFlag{"--vocab", o.Vocab, 2, guard.MaxVocab}, sizeFlag{"--batch", o.Batch, 1, guard.MaxBatch}); err != nil {
		return err
	}
	if err := checkTokens("--examples × --seq-len", o.Examples, o.SeqLen); err != nil {
		return err
	}
	if _, err := evalrun.MQAR(o, stderr); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "wrote", o.Out)
	return nil
}

// sizeFlag is an integer flag and its allowed range.
type sizeFlag struct {
	name     string
	v        int
	min, max int
}

// checkSizes refuses integer flags outside their range (internal/guard's bounds), naming the flag.
func checkSizes(flags ...sizeFlag) error {
	for _, f := range flags {
		if f.v < f.min || f.v > f.max {
			return fmt.Errorf("%s must be in [%d, %d], got %d", f.name, f.min, f.max, f.v)
		}
	}
	return nil
}

// checkTokens refuses a count of examples × tokens whose token buffers (int32 ids, with the model's
// per-token outputs, ~16 bytes a token) would not fit this machine's memory.
func checkTokens(what string, n, seqLen int) error {
	b, ok := guard.MulAll(int64(n), int64(seqLen), 16)
	if !ok {
		b = -1
	}
	if err := guard.CheckMemory(fmt.Sprintf("%s = %d × %d tokens", what, n, seqLen), b); err != nil {
		return err
	}
	return nil
}

// mergeCmd is `evals merge`: leaderboard.json and leaderboard.md from run files.
func mergeCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("evals merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "results", "directory for leaderboard.json and leaderboard.md")
	partial := fs.Bool("include-partial", false, "include the averages of partial (--limit) runs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	l, err := evalrun.Merge(*out, fs.Args(), *partial)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s/leaderboard.json and %s/leaderboard.md: %d runs from %d files (%d of merge's own outputs skipped)\n",
		*out, *out, len(l.Runs), fs.NArg()-len(l.Skipped), len(l.Skipped))
	return nil
}
