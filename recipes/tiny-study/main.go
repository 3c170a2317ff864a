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
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/internal/interrupt"
	"github.com/oryx-go/oryx/recipes/recipe"
	"github.com/oryx-go/oryx/recipes/study"
)

func main() {
	cli.Exit("tiny-study", run(os.Args[1:], os.Stdout, os.Stderr), recipe.ErrInterrupted)
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tiny-study", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "smoke variant: a fraction of the budget, every artefact (numbers meaningless)")
	out := fs.String("out", "", "output directory (default runs/study or runs/study-quick)")
	runs := fs.String("runs", "", "comma-separated runs (default: all of transformer,gdn,oryx-tg,oryx-tg-p1,oryx-tg-p0,oryx-tg-complementary)")
	steps := fs.Int("steps", 0, "training steps per model, the budget knob (default: the study's; keep it a multiple of 2·eval-every)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: go run [-tags xla] ./recipes/tiny-study [--quick] [--out DIR] [--runs LIST] [--steps N]\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected arguments %q (flags only; see -h)", fs.Args())
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
