// Command tiny-study is the project's main job (`make demo`): it trains tiny Transformer, GDN and Oryx-TG
// models (with Oryx-TG's controls and ablation) on the same synthetic mixture and token budget on the CPU,
// evaluates them in every schedule (all-attention, all-linear, mixed), and writes study.json (a verdict per
// claim), results, leaderboard.json, report.md and plots. See recipes/study.
//
//	go run -tags xla ./recipes/tiny-study            # the full study (XLA CPU; see the README for its time)
//	go run ./recipes/tiny-study --quick              # the smoke variant (≤ 3 minutes, pure Go)
//	go run ./recipes/tiny-study --steps 400 --runs transformer,gdn,oryx-tg   # a smaller budget
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/interrupt"
	"github.com/oryx-go/oryx/recipes/recipe"
	"github.com/oryx-go/oryx/recipes/study"
)

func main() {
	quick := flag.Bool("quick", false, "smoke variant: a fraction of the budget, every artefact (numbers meaningless)")
	out := flag.String("out", "", "output directory (default runs/study or runs/study-quick)")
	runs := flag.String("runs", "", "comma-separated runs (default: all of transformer,gdn,oryx-tg,oryx-tg-p1,oryx-tg-p0,oryx-tg-complementary)")
	steps := flag.Int("steps", 0, "training steps per model, the budget knob (default: the study's; keep it a multiple of 2·eval-every)")
	flag.Parse()
	c := study.Default()
	be, err := backend.Get()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tiny-study:", err)
		os.Exit(1)
	}
	switch {
	case *quick:
		c = study.QuickConfig()
	case backend.IsPureGo(be) && *steps == 0 && *runs == "":
		c = study.PureGoConfig()
		fmt.Fprintln(os.Stderr, "tiny-study: pure-Go backend (no XLA CPU plugin): the reduced study (3 models × 200 steps); "+
			"claims (b) and (c) are not measurable at that budget. `make xla-cpu` (pip) for the full one, or set --steps/--runs.")
	}
	if *out != "" {
		c.Out = *out
	}
	if *runs != "" {
		r, err := study.SelectRuns(c.Runs, *runs)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tiny-study: --runs:", err)
			os.Exit(2)
		}
		c.Runs = r
	}
	if *steps > 0 {
		c.Train.Steps = *steps
	}
	ctx, stop := interrupt.Context(context.Background())
	defer stop()
	rep, err := study.Run(ctx, c, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tiny-study:", err)
		if interrupt.Is(err, recipe.ErrInterrupted) {
			os.Exit(interrupt.ExitCode)
		}
		os.Exit(1)
	}
	fmt.Printf("\nwrote %s/report.md, leaderboard.json, leaderboard.md, study.json, results/, *.png (%.1f min)\n\n", c.Out, rep.Seconds/60)
	for _, cl := range rep.Claims {
		fmt.Printf("- (%s) %s: %s\n    %s\n", cl.ID, strings.ToUpper(strings.ReplaceAll(cl.Verdict, "_", " ")), cl.Statement, cl.Summary)
	}
}
