// Command tiny-study is the project's main job (`make demo`): it trains tiny Transformer, GDN and Oryx-TG
// models on the same synthetic mixture and token budget on the CPU, evaluates them in every schedule
// (all-attention, all-linear, mixed), and writes results, leaderboard.json, report.md and plots. See
// recipes/study.
//
//	go run ./recipes/tiny-study            # the full study (≤ 15 minutes on 2 cores)
//	go run ./recipes/tiny-study --quick    # the smoke variant (≤ 3 minutes)
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/oryx-go/oryx/internal/interrupt"
	"github.com/oryx-go/oryx/recipes/recipe"
	"github.com/oryx-go/oryx/recipes/study"
)

func main() {
	quick := flag.Bool("quick", false, "smoke variant: a fraction of the budget, every artefact (numbers meaningless)")
	out := flag.String("out", "", "output directory (default runs/study or runs/study-quick)")
	variants := flag.String("variants", "", "comma-separated variants (default transformer,gdn,oryx-tg)")
	steps := flag.Int("steps", 0, "training steps per model (default: the study's)")
	flag.Parse()
	c := study.Default()
	if *quick {
		c = study.QuickConfig()
	}
	if *out != "" {
		c.Out = *out
	}
	if *variants != "" {
		v, err := study.ParseVariants(*variants)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tiny-study: --variants:", err)
			os.Exit(2)
		}
		c.Variants = v
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
		h := "not measurable"
		if cl.Holds != nil {
			h = map[bool]string{true: "holds", false: "DOES NOT HOLD"}[*cl.Holds]
		}
		fmt.Printf("- %s: %s — %s\n", cl.Statement, cl.Measured, h)
	}
}
