package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/oryx-go/oryx/evals/evalrun"
	"github.com/oryx-go/oryx/evals/harness"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "evals:", err)
		os.Exit(1)
	}
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "merge" {
		fs := flag.NewFlagSet("evals merge", flag.ContinueOnError)
		fs.SetOutput(stderr)
		out := fs.String("out", "results", "directory for leaderboard.json and leaderboard.md")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if err := evalrun.Merge(*out, fs.Args()); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s/leaderboard.json and %s/leaderboard.md from %d run files\n", *out, *out, fs.NArg())
		return nil
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
	fs.IntVar(&o.Bootstrap, "bootstrap-iters", 0, "bootstrap resamples for LAMBADA perplexity stderr (0: lm-eval's 100000, <0: off)")
	fs.StringVar(&o.LogSamples, "log-samples", "", "write one JSON line per request to this file")
	fs.StringVar(&o.ModelName, "model", "", "model name in the results (default: the checkpoint directory's name)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: go run ./evals --checkpoint DIR [--tasks LIST] [--mixed | --schedule SPEC] [flags]\n"+
			"       go run ./evals merge [--out DIR] RUN.json...\n\nTasks: %s\nGroups: lm, recall, niah, all\n\nFlags:\n",
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
