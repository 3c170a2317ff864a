package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/oryx-go/oryx/evals/evalrun"
	"github.com/oryx-go/oryx/evals/frontier/measure"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/probes"
	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/internal/interrupt"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
	_ "github.com/oryx-go/oryx/oryx/xlamalloc" // glibc's allocator set for XLA at load time (-tags xla)
)

func main() {
	oryx.SetupCommand() // the backend line on standard error, the compilation cache (docs/library.md)
	// The pure-Go backend returns freed intermediates to per-size buffer pools that survive one GC cycle, so
	// with Go's default GOGC=100 a long-context forward (attention in query blocks and tiled scoring: many large buffers
	// of varying sizes) runs at 2–4× its working set. GOGC=25 keeps it near the working set at no measured
	// cost in speed (docs/history.md §8.5). An explicit GOGC wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(25)
	}
	// Usage errors exit 2, an interrupted run 130, other failures 1 (internal/cli).
	cli.Exit("evals", run(os.Args[1:], os.Stdout, os.Stderr))
}

// maxBootstrapIters bounds --bootstrap-iters: every resample's statistic is kept (8 bytes each, 128 MiB here)
// and each resample draws every document again; lm-eval's default is 100,000.
const maxBootstrapIters = 1 << 24

type listFlag []string

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
		case "frontier":
			return frontierCmd(args[1:], stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("evals", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o evalrun.Options
	var ef evalFlags
	ef.register(fs, evalFlagUse{checkpoint: "checkpoint directory (config.json + checkpoint files)", batch: 8,
		batchHelp: "requests per model call", harness: true,
		limit: "score only the first N documents of each task (0: all); the run is marked partial"})
	fs.StringVar(&o.Tasks, "tasks", "lm", "comma-separated tasks or groups (lm, recall, niah, all); unknown names list the known ones")
	fs.BoolVar(&o.Mixed, "mixed", false, "the paper's mixed setting: context in linear mode, question/answer and generated tokens in attention")
	fs.StringVar(&o.Schedule, "schedule", "", "schedule spec for every token (attention, linear, attention-last:N, ranges, budget:F:POLICY with POLICY last|question|random|entropy, ...); default attention")
	fs.StringVar(&o.Out, "out", "", "results file, lm-eval 0.4.13's layout (default results/<model>-<schedule>.json; results/ is git-ignored), also written as <dir of --out>/<model>/results_<date>.json where lm-eval's tools look; rerunning with the same file skips its finished tasks")
	fs.BoolVar(&o.Force, "force", false, "rerun the tasks --out already holds (and overwrite a file of another run or kind, or write into another command's output directory)")
	fs.IntVar(&o.Bootstrap, "bootstrap-iters", 0, "bootstrap resamples for LAMBADA perplexity stderr (0: lm-eval's 100000, <0: off)")
	fs.BoolVar(&o.LogSamples, "log-samples", false, "write samples_<task>_<date>.jsonl (lm-eval's per-document records, its on-disk layout and hashes) into <dir of --out>/<model>/, beside results_<date>.json")
	fs.StringVar(&o.ModelName, "model", "", "model name in the results (default: the checkpoint directory's name); file and folder names take it as lm-eval does (\"/\" and other path characters become \"__\"); \"..\", control characters and invalid UTF-8 are refused")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: go run ./evals --checkpoint DIR [--tasks LIST] [--mixed | --schedule SPEC] [flags]\n"+
			"       go run ./evals merge [--out DIR] [--include-partial] RESULTS.json...\n"+
			"       go run ./evals switch --checkpoint DIR [--at N --seq-len T --data synth|PARQUET]   (mode-switch curves)\n"+
			"       go run ./evals mqar --checkpoint DIR [--pairs 4,8,16 --offset 128] (default: the run's)  (MQAR accuracy per schedule)\n"+
			"       go run ./evals frontier --checkpoint DIR [--tasks mqar,needle,niah_single_1,lambada_openai,piqa] [--budgets 0,0.02,...,1] [--policies last,question,random,entropy]  (accuracy vs FLOPs per attention budget)\n\nTasks: %s\nGroups: lm, recall, niah, all\nParams:\n  %s\n\nFlags:\n",
			strings.Join(harness.Tasks(), ", "), strings.Join(harness.Params(), "\n  "))
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected arguments %q", fs.Args())
	}
	var err error
	if o.Harness, o.DataRootSource, err = ef.check(); err != nil {
		return err
	}
	if o.Bootstrap > maxBootstrapIters {
		return cli.Usagef("--bootstrap-iters must be ≤ %d (0: lm-eval's %d, < 0: off), got %d", maxBootstrapIters,
			harness.DefaultBootstrapIters, o.Bootstrap)
	}
	o.Checkpoint, o.Tokenizer, o.Batch, o.ScoreMemMB = ef.Checkpoint, ef.Tokenizer, ef.Batch, ef.ScoreMemMB
	o.Limit, o.MaxLength, o.LMMaxLength, o.GenMemMB = ef.Limit, ef.MaxLength, ef.LMMaxLength, ef.GenMemMB
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
	var o probes.SwitchOptions
	var ef evalFlags
	ef.register(fs, evalFlagUse{batch: 8, batchHelp: "sequences per model call"})
	fs.StringVar(&o.Data, "data", "synth", "held-out text: synth, or parquet files (--column)")
	fs.StringVar(&o.Column, "column", "text", "text column of parquet data")
	fs.IntVar(&o.SeqLen, "seq-len", 256, "tokens per sequence")
	fs.IntVar(&o.At, "at", 128, "position of the switch (first token read in the new mode)")
	fs.IntVar(&o.Sequences, "sequences", 64, "sequences averaged")
	fs.StringVar(&o.Out, "out", "results/switch", "output directory (switch.json, switch.png)")
	fs.BoolVar(&o.Force, "force", false, "write into --out even when it holds another command's output")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cli.Usagef("switch: unexpected arguments %q", fs.Args())
	case ef.Checkpoint == "":
		return cli.Usagef("switch: --checkpoint is required")
	}
	if _, _, err := ef.check(); err != nil {
		return err
	}
	o.Checkpoint, o.Tokenizer, o.Batch, o.ScoreMemMB = ef.Checkpoint, ef.Tokenizer, ef.Batch, ef.ScoreMemMB
	if err := checkSizes(sizeFlag{"--seq-len", o.SeqLen, 2, guard.MaxSeqLen}, sizeFlag{"--at", o.At, 1, o.SeqLen - 1},
		sizeFlag{"--sequences", o.Sequences, 1, guard.MaxBatch}); err != nil {
		return cli.Usage(err)
	}
	if err := checkTokens("--sequences × --seq-len", o.Sequences, o.SeqLen); err != nil {
		return err
	}
	if _, err := probes.Switch(o, stderr); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s/switch.json and %s/switch.png\n", o.Out, o.Out)
	return nil
}

// mqarCmd is `evals mqar`: MQAR accuracy per schedule and number of pairs.
func mqarCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("evals mqar", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o probes.MQAROptions
	pairs := fs.String("pairs", "", "comma-separated numbers of key-value pairs (default: 4,8,16 up to the run's mixture pairs)")
	offset := fs.Int("offset", -1, "added to every MQAR id (default: the run's, 128 for the study's mixture, else 0)")
	var ef evalFlags
	ef.register(fs, evalFlagUse{batch: 16, batchHelp: "examples per model call"})
	fs.IntVar(&o.SeqLen, "seq-len", 0, "tokens per example (default: the run's seq_len, else 256)")
	fs.IntVar(&o.Vocab, "vocab", 0, "MQAR vocabulary (default 128)")
	fs.IntVar(&o.Examples, "examples", 128, "examples per pair count")
	fs.Uint64Var(&o.Seed, "seed", 77, "example seed (use one unseen in training)")
	fs.StringVar(&o.Out, "out", "results/mqar.json", "JSON output")
	fs.BoolVar(&o.Force, "force", false, "overwrite --out even when it is not an MQAR results file (or lies in another command's output)")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("mqar: unexpected arguments %q", fs.Args())
	}
	var err error
	if o.Pairs, err = parseInts("--pairs", *pairs, 1, guard.MaxSeqLen); err != nil {
		return cli.Usage(err)
	}
	if ef.Checkpoint == "" {
		return cli.Usagef("--checkpoint is required")
	}
	if _, _, err := ef.check(); err != nil {
		return err
	}
	o.Checkpoint, o.Tokenizer, o.Batch, o.ScoreMemMB = ef.Checkpoint, ef.Tokenizer, ef.Batch, ef.ScoreMemMB
	if *offset < -1 || *offset > guard.MaxVocab {
		return cli.Usagef("--offset must be in [0, %d] (or -1: the run's), got %d", guard.MaxVocab, *offset)
	}
	o.Offset = int32(*offset)
	// The sizes given are bounded as flags (usage errors); the unset ones come from the checkpoint's run.json
	// (also input): fill them, then bound them all (a bad run.json is not a usage error).
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var given []sizeFlag
	for _, f := range []sizeFlag{{"--examples", o.Examples, 1, guard.MaxBatch}, {"--seq-len", o.SeqLen, 2, guard.MaxSeqLen},
		{"--vocab", o.Vocab, 2, guard.MaxVocab}, {"--batch", o.Batch, 1, guard.MaxBatch}} {
		if set[f.name[2:]] {
			given = append(given, f)
		}
	}
	if err := checkSizes(given...); err != nil {
		return cli.Usage(err)
	}
	o = o.Resolve(stderr)
	if err := checkSizes(sizeFlag{"--examples", o.Examples, 1, guard.MaxBatch}, sizeFlag{"--seq-len", o.SeqLen, 2, guard.MaxSeqLen},
		sizeFlag{"--vocab", o.Vocab, 2, guard.MaxVocab}, sizeFlag{"--batch", o.Batch, 1, guard.MaxBatch}); err != nil {
		return err
	}
	if err := checkTokens("--examples × --seq-len", o.Examples, o.SeqLen); err != nil {
		return err
	}
	if _, err := probes.MQAR(o, stderr); err != nil {
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

// checkSizes refuses integer flags outside their range (internal/guard's bounds), naming the flag. The
// callers mark the error as a usage error where every value came from the command line.
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

// mergeCmd is `evals merge`: leaderboard.json and leaderboard.md from results files.
func mergeCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("evals merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "results", "directory for leaderboard.json and leaderboard.md")
	partial := fs.Bool("include-partial", false, "include the averages of partial (--limit) runs")
	force := fs.Bool("force", false, "write into --out even when it is another command's output, or over files there that are not a leaderboard")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cli.Usagef("merge: no results files given (evals merge [--out DIR] RESULTS.json...)")
	}
	l, err := evalrun.Merge(*out, fs.Args(), *partial, *force)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s/leaderboard.json and %s/leaderboard.md: %d runs from %d files (%d of merge's own outputs skipped)\n",
		*out, *out, len(l.Runs), fs.NArg()-len(l.Skipped), len(l.Skipped))
	return nil
}

// frontierCmd is `evals frontier`: accuracy against FLOPs for attention budgets and placement policies.
func frontierCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("evals frontier", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o measure.Options
	var ef evalFlags
	ef.register(fs, evalFlagUse{checkpoint: "checkpoint directory of a multi-mixer model (oryx-tg, oryx-tm)", batch: 8,
		batchHelp: "requests per model call", harness: true,
		limit: "documents per harness task, MQAR examples per pair count, needle samples (0: each task's default)"})
	tasks := fs.String("tasks", "mqar,needle,niah_single_1,lambada_openai,piqa", "comma-separated: mqar, needle (the mini needle), harness tasks or groups (niah_single_1, lambada_openai, piqa, lm, ...)")
	budgets := fs.String("budgets", "0,0.02,0.05,0.1,0.2,0.5,1", "comma-separated attention fractions F in [0, 1]")
	policies := fs.String("policies", "last,question,random,entropy", "comma-separated budget policies (oryx/schedule/budget.go): last, question, random, entropy")
	pairs := fs.String("pairs", "", "MQAR: comma-separated numbers of key-value pairs (default: 4,8,16 up to the run's mixture pairs)")
	offset := fs.Int("offset", -1, "MQAR: added to every id (default: the run's, 128 for the study's mixture, else 0)")
	needleLengths := fs.String("needle-lengths", "", "mini needle prompt lengths in tokens (default: the run's seq_len - 6, else 122)")
	needleDepths := fs.String("needle-depths", "0,0.25,0.5,0.75,1", "mini needle depths in [0, 1]")
	fs.StringVar(&o.Out, "out", "", "output directory: frontier.json, frontier.png, frontier_fraction.png (default results/frontier-<model>); a rerun continues")
	fs.BoolVar(&o.Force, "force", false, "recompute the points --out already holds (and write into a directory of another command's output)")
	fs.IntVar(&o.MQAR.SeqLen, "seq-len", 0, "MQAR tokens per example (default: the run's seq_len, else 256)")
	fs.IntVar(&o.MQAR.Vocab, "vocab", 0, "MQAR vocabulary (default 128)")
	fs.IntVar(&o.MQAR.Examples, "examples", 128, "MQAR examples per pair count (--limit caps it)")
	fs.IntVar(&o.NeedleSamples, "needle-samples", 12, "mini needle samples per (length, depth) (--limit caps the total)")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("frontier: unexpected arguments %q", fs.Args())
	}
	if ef.Checkpoint == "" {
		return cli.Usagef("--checkpoint is required")
	}
	var err error
	if o.Harness, o.DataRootSource, err = ef.check(); err != nil {
		return err
	}
	o.Checkpoint, o.Tokenizer, o.Batch, o.ScoreMemMB = ef.Checkpoint, ef.Tokenizer, ef.Batch, ef.ScoreMemMB
	o.Limit, o.MaxLength, o.LMMaxLength, o.GenMemMB = ef.Limit, ef.MaxLength, ef.LMMaxLength, ef.GenMemMB
	for _, t := range strings.Split(*tasks, ",") {
		if t = strings.TrimSpace(t); t != "" {
			o.Tasks = append(o.Tasks, t)
		}
	}
	if o.Budgets, err = parseFloats("--budgets", *budgets, 0, 1); err != nil {
		return cli.Usage(err)
	}
	for _, p := range strings.Split(*policies, ",") {
		pol := schedule.Policy(strings.ToLower(strings.TrimSpace(p)))
		if !slices.Contains(schedule.Policies, pol) {
			return cli.Usagef("--policies: unknown policy %q (want last, question, random or entropy)", p)
		}
		o.Policies = append(o.Policies, pol)
	}
	if o.MQAR.Pairs, err = parseInts("--pairs", *pairs, 1, guard.MaxSeqLen); err != nil {
		return cli.Usage(err)
	}
	if o.NeedleLengths, err = parseInts("--needle-lengths", *needleLengths, 16, guard.MaxSeqLen); err != nil {
		return cli.Usage(err)
	}
	if o.NeedleDepths, err = parseFloats("--needle-depths", *needleDepths, 0, 1); err != nil {
		return cli.Usage(err)
	}
	if *offset < -1 || *offset > guard.MaxVocab {
		return cli.Usagef("--offset must be in [0, %d] (or -1: the run's), got %d", guard.MaxVocab, *offset)
	}
	o.MQAR.Offset = int32(*offset)
	if err := checkSizes(sizeFlag{"--examples", o.MQAR.Examples, 1, guard.MaxBatch}, sizeFlag{"--needle-samples", o.NeedleSamples, 1, guard.MaxBatch},
		sizeFlag{"--seq-len", o.MQAR.SeqLen, 0, guard.MaxSeqLen}, sizeFlag{"--vocab", o.MQAR.Vocab, 0, guard.MaxVocab}); err != nil {
		return cli.Usage(err)
	}
	if o.Out == "" {
		o.Out = filepath.Join("results", "frontier-"+filepath.Base(filepath.Clean(o.Checkpoint)))
	}
	o.Log = stderr
	if _, err := measure.Run(o); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s/frontier.json, %s/frontier.png and %s/frontier_fraction.png\n", o.Out, o.Out, o.Out)
	return nil
}

// parseFloats parses a comma-separated list of numbers in [lo, hi] ("" = none).
func parseFloats(name, s string, lo, hi float64) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		x, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(x) || x < lo || x > hi {
			return nil, fmt.Errorf("%s %q: want comma-separated numbers in [%g, %g]", name, s, lo, hi)
		}
		out = append(out, x)
	}
	return out, nil
}

// parseInts parses a comma-separated list of integers in [lo, hi] ("" = none).
func parseInts(name, s string, lo, hi int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		x, err := strconv.Atoi(f)
		if err != nil || x < lo || x > hi {
			return nil, fmt.Errorf("%s %q: want comma-separated integers in [%d, %d]", name, s, lo, hi)
		}
		out = append(out, x)
	}
	return out, nil
}
