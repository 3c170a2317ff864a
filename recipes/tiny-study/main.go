// Command tiny-study is the project's main job (`make demo`): it trains tiny Transformer, GDN and Oryx-TG
// models (with Oryx-TG's controls and ablation) on the same synthetic mixture and token budget on the CPU,
// evaluates them in every schedule (all-attention, all-linear, mixed), measures Oryx-TG's attention-budget
// frontier on MQAR, and writes study.json (a verdict per claim), results, leaderboard.json, report.md, plots and
// frontier/. See recipes/study.
//
//	go run -tags xla ./recipes/tiny-study            # the full study (XLA CPU; see the README for its time)
//	go run ./recipes/tiny-study --quick              # the smoke variant (≤ 3 minutes, pure Go)
//	go run ./recipes/tiny-study --steps 400 --runs transformer,gdn,oryx-tg   # a smaller budget
//
// A usage error exits 2, an interrupted study 130 (the finished runs stay; rerun to continue), any other
// failure 1.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gomlx/gomlx/backends"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/internal/interrupt"
	"github.com/oryx-go/oryx/recipes/study"
	"github.com/oryx-go/oryx/recipes/train"
)

func main() {
	cli.Exit("tiny-study", run(os.Args[1:], os.Stdout, os.Stderr), train.ErrInterrupted)
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tiny-study", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "smoke variant: a fraction of the budget, every artefact (numbers meaningless)")
	out := fs.String("out", "", "output directory (default runs/study or runs/study-quick)")
	runs := fs.String("runs", "", "comma-separated runs (default: all of transformer,gdn,oryx-tg,oryx-tg-p1,oryx-tg-p0,oryx-tg-complementary)")
	trainRun := fs.Int("train-run", -1, "internal: train run N of --config's study and exit (the study's worker processes)")
	configFile := fs.String("config", "", "internal: with --train-run, the study configuration (JSON)")
	jobs := fs.Int("jobs", 0, "runs trained and evaluated at once (0: 2 on XLA with ≥ 2 cores, else 1); results do not depend on it")
	steps := fs.Int("steps", 0, "training steps per model, the budget knob (default: the study's; keep it a multiple of 2·eval-every)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: go run [-tags xla] ./recipes/tiny-study [--quick] [--out DIR] [--runs LIST] [--steps N] [--jobs N]\n\nFlags:\n")
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
	if set["train-run"] {
		if *trainRun < 0 {
			return cli.Usagef("--train-run must be ≥ 0, got %d", *trainRun)
		}
		return trainWorker(*configFile, *trainRun, stderr)
	}
	if set["config"] {
		return cli.Usagef("--config is read only with --train-run (internal: the study's worker processes)")
	}
	if *jobs < 0 {
		return cli.Usagef("--jobs must be ≥ 0 (0: automatic), got %d", *jobs)
	}
	if *steps < 0 {
		return cli.Usagef("--steps must be ≥ 0 (0: the study's), got %d", *steps)
	}
	c := study.Default()
	var selected []study.RunSpec
	if *runs != "" {
		r, err := study.SelectRuns(c.Runs, *runs)
		if err != nil {
			return cli.Usagef("--runs: %w", err)
		}
		selected = r
	}
	be, err := backend.Get()
	if err != nil {
		return err
	}
	switch {
	case *quick:
		c = study.QuickConfig()
	case backend.IsPureGo(be) && *steps == 0 && *runs == "":
		c = study.PureGoConfig()
		fmt.Fprintln(stderr, "tiny-study: pure-Go backend (no XLA CPU plugin): the reduced study (3 models × 200 steps); "+
			"claims (b) and (c) are not measurable at that budget. `make xla-cpu` (pip) for the full one, or set --steps/--runs.")
	}
	if backend.IsPureGo(be) && !*quick {
		// Pure Go scores ~8× slower than XLA CPU: the frontier's examples as in the pure-Go budget.
		c.FrontierExamples = min(c.FrontierExamples, study.PureGoConfig().FrontierExamples)
	}
	if *out != "" {
		c.Out = *out
	}
	if selected != nil {
		c.Runs = selected
	}
	if *steps > 0 {
		c.Train.Steps = *steps
	}
	c.Jobs = *jobs
	if c.Jobs == 0 {
		c.Jobs = defaultJobs(be)
	}
	c.TrainWorker = trainInChild
	ctx, stop := interrupt.Context(context.Background())
	defer stop()
	rep, err := study.Run(ctx, c, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nwrote %s/report.md, leaderboard.json, leaderboard.md, study.json, results/, *.png (%.1f min)\n\n", c.Out, rep.Seconds/60)
	for _, cl := range rep.Claims {
		fmt.Fprintf(stdout, "- (%s) %s: %s\n    %s\n", cl.ID, strings.ToUpper(strings.ReplaceAll(cl.Verdict, "_", " ")), cl.Statement, cl.Summary)
	}
	return nil
}

// defaultJobs: two runs at once on XLA CPU with at least two cores (each keeps ~1.5 cores busy: two side by
// side take ~0.65× the time; recipes/study/jobs.go), one on pure Go, whose kernels already use every core.
func defaultJobs(be backends.Backend) int {
	if backend.IsPureGo(be) || runtime.NumCPU() < 2 {
		return 1
	}
	return 2
}

// trainInChild trains run i of c in a child process (this command with --train-run), its output into log:
// XLA CPU runs in one process share a PJRT client and trained no faster side by side than one after the other,
// in two processes 1.5× faster (recipes/study/jobs.go). Cancelling ctx sends the child SIGINT: it saves a
// checkpoint and stops, as a run interrupted in the foreground.
func trainInChild(ctx context.Context, c study.Config, i int, log io.Writer) error {
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return err
	}
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	cfgFile := filepath.Join(c.Out, fmt.Sprintf(".worker-%s.json", c.Runs[i].Name))
	if err := os.WriteFile(cfgFile, data, 0o644); err != nil {
		return err
	}
	defer os.Remove(cfgFile)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, self, "--train-run", strconv.Itoa(i), "--config", cfgFile)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 2 * time.Minute // time to save the checkpoint
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("training %s (worker process): %w", c.Runs[i].Name+"-tiny", train.ErrInterrupted)
		}
		return fmt.Errorf("training %s (worker process %s --train-run %d): %w", c.Runs[i].Name+"-tiny", filepath.Base(self), i, err)
	}
	return nil
}

// trainWorker is the child side of trainInChild: train run i of the study configuration in file.
func trainWorker(file string, i int, stderr io.Writer) error {
	if file == "" {
		return cli.Usagef("--train-run needs --config FILE")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var c study.Config
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("--config %s: %w", file, err)
	}
	if i >= len(c.Runs) {
		return cli.Usagef("--train-run %d: the study in %s has %d runs", i, file, len(c.Runs))
	}
	_, err = study.TrainRun(c, i, stderr)
	return err
}
