package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/oryx-go/oryx/evals/evalrun"
	"github.com/oryx-go/oryx/evals/harness"
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
	wd, _ := os.Getwd()
	var o evalrun.Options
	var paths, params listFlag
	fs.StringVar(&o.Checkpoint, "checkpoint", "", "checkpoint directory (config.json + checkpoint files)")
	fs.StringVar(&o.Tasks, "tasks", "lm", "comma-separated tasks or groups (lm, recall, niah, all); unknown names list the known ones")
	fs.BoolVar(&o.Mixed, "mixed", false, "the paper's mixed setting: context in linear mode, question/answer and generated tokens in attention")
	fs.StringVar(&o.Schedule, "schedule", "", "schedule spec for every token (attention, linear, attention-last:N, ranges, ...); default attention")
	fs.StringVar(&o.Out, "out", "", "run file (default results/<model>-<schedule>.json)")
	fs.StringVar(&o.Tokenizer, "tokenizer", "", "tokenizer (default: the training run's, else bytes)")
	fs.StringVar(&o.Harness.DataRoot, "data-root", harness.FindDataRoot(wd), "root of the HF-layout parquet sets")
	fs.Var(&paths, "data-path", "per-task data override task=path (repeatable)")
	fs.Var(&params, "param", "task-family option key=value (repeatable), e.g. niah.lengths=1024,2048")
	fs.IntVar(&o.Limit, "limit", 0, "score only the first N documents of each task (0: all)")
	fs.IntVar(&o.Batch, "batch", 8, "requests per model call")
	fs.IntVar(&o.MaxLength, "max-length", 2048, "max tokens per model call (lm-eval max_length); raise it for long NIAH lengths")
	fs.IntVar(&o.ScoreMemMB, "score-mem-mb", scoreMemDefault, scoreMemUsage)
	fs.IntVar(&o.Bootstrap, "bootstrap-iters", 0, "bootstrap resamples for LAMBADA perplexity stderr (0: lm-eval's 100000, <0: off)")
	fs.StringVar(&o.LogSamples, "log-samples", "", "write one JSON line per request to this file")
	fs.StringVar(&o.ModelName, "model", "", "model name in the results (default: the checkpoint directory's name)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: go run ./evals --checkpoint DIR [--tasks LIST] [--mixed | --schedule SPEC] [flags]\n"+
			"       go run ./evals merge [--out DIR] RUN.json...\n"+
			"       go run ./evals switch --checkpoint DIR [--at N --seq-len T --data synth|PARQUET]   (mode-switch curves)\n"+
			"       go run ./evals mqar --checkpoint DIR [--pairs 4,8,16 --offset 128]              (MQAR accuracy per schedule)\n\nTasks: %s\nGroups: lm, recall, niah, all\n\nFlags:\n",
			strings.Join(harness.Tasks(), ", "))
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
	o.Harness.Params = map[string]string{}
	for _, p := range params {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return fmt.Errorf("--param %q: want key=value", p)
		}
		o.Harness.Params[k] = v
	}
	o.Log = stderr
	out, err := evalrun.Run(o)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "wrote", out)
	return nil
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
	pairs := fs.String("pairs", "4,8,16", "comma-separated numbers of key-value pairs")
	offset := fs.Int("offset", 0, "added to every MQAR id (128 for byte models trained on the study's mixture)")
	fs.StringVar(&o.Checkpoint, "checkpoint", "", "checkpoint directory")
	fs.StringVar(&o.Tokenizer, "tokenizer", "", "tokenizer (default: the training run's, else bytes)")
	fs.IntVar(&o.SeqLen, "seq-len", 256, "tokens per example")
	fs.IntVar(&o.Vocab, "vocab", 128, "MQAR vocabulary")
	fs.IntVar(&o.Examples, "examples", 128, "examples per pair count")
	fs.Uint64Var(&o.Seed, "seed", 77, "example seed (use one unseen in training)")
	fs.IntVar(&o.Batch, "batch", 16, "examples per model call")
	fs.IntVar(&o.ScoreMemMB, "score-mem-mb", scoreMemDefault, scoreMemUsage)
	fs.StringVar(&o.Out, "out", "results/mqar.json", "JSON output")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, f := range strings.Split(*pairs, ",") {
		var p int
		if _, err := fmt.Sscan(strings.TrimSpace(f), &p); err != nil || p < 1 {
			return fmt.Errorf("--pairs %q: want comma-separated positive integers", *pairs)
		}
		o.Pairs = append(o.Pairs, p)
	}
	o.Offset = int32(*offset)
	if _, err := evalrun.MQAR(o, stderr); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "wrote", o.Out)
	return nil
}

// mergeCmd is `evals merge`: leaderboard.json and leaderboard.md from run files.
func mergeCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("evals merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "results", "directory for leaderboard.json and leaderboard.md")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := evalrun.Merge(*out, fs.Args()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s/leaderboard.json and %s/leaderboard.md from %d run files\n", *out, *out, fs.NArg())
	return nil
}
