// Command tiny-study is the project's main job (`make demo`): it trains tiny Transformer, GDN and Oryx-TG
// models (with Oryx-TG's controls and ablation) on the same synthetic mixture and token budget on the CPU,
// evaluates them in every schedule (all-attention, all-linear, mixed), measures Oryx-TG's attention-budget
// frontier on MQAR, and writes study.json (a verdict per claim), results, leaderboard.json, report.md, plots and
// frontier/. See recipes/study.
//
//	go run -tags xla ./recipes/tiny-study            # the full study (XLA CPU; its time: the README)
//	go run ./recipes/tiny-study --quick              # the smoke variant (≤ 3 minutes, pure Go)
//	go run ./recipes/tiny-study --steps 400 --runs transformer,gdn,oryx-tg   # a smaller budget
//	go run -tags xla ./recipes/tiny-study --seeds 3  # every run with 3 seeds: the claims with their spread
//	go run -tags xla ./recipes/tiny-study --scale        # make study-scale: the gaps against width and tokens
//	go run -tags xla ./recipes/tiny-study --attribution  # make study-attribution: single-change Oryx-TG runs
//	go run -tags xla ./recipes/tiny-study --decompose    # make study-decompose: claim (a)'s gap split, 3 seeds
//	go run -tags xla ./recipes/tiny-study --decompose --lr-decay  # make study-decompose-lr: the same, LR decayed
//	go run -tags xla ./recipes/tiny-study --decide --budget-time 3h  # make study-decide: seeds added until decided
//	go run -tags xla ./recipes/tiny-study --trend --english  # make study-trend: (a)'s gaps against tokens on English
//	go run -tags xla ./recipes/tiny-study --trend            # make study-trend-synth: the same on the synthetic mixture
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

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/internal/interrupt"
	"github.com/oryx-go/oryx/internal/safefile"
	"github.com/oryx-go/oryx/oryx"
	_ "github.com/oryx-go/oryx/oryx/xlamalloc" // glibc's allocator set for XLA at load time (-tags xla)
	"github.com/oryx-go/oryx/recipes/study"
	"github.com/oryx-go/oryx/recipes/train"
)

func main() {
	oryx.SetupCommand() // the backend line on standard error, the compilation cache (docs/library.md)
	cli.Exit("tiny-study", run(os.Args[1:], os.Stdout, os.Stderr), train.ErrInterrupted)
}

func run(args []string, stdout, stderr io.Writer) error {
	f, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if f.set["train-run"] {
		if f.trainRun < 0 {
			return cli.Usagef("--train-run must be ≥ 0, got %d", f.trainRun)
		}
		return trainWorker(f.configFile, f.trainRun, stderr)
	}
	if err := f.check(); err != nil {
		return err
	}
	c, selected, be, err := f.chooseConfig(stderr)
	if err != nil {
		return err
	}
	f.apply(&c, selected, be)
	c.TrainWorker = trainInChild
	c.Force = f.force
	ctx, stop := interrupt.Context(context.Background())
	defer stop()
	rep, err := study.Run(ctx, c, stderr)
	if err != nil {
		return err
	}
	printOutcome(stdout, c.Out, rep)
	return nil
}

// flags are the command line's settings; set names the flags given.
type flags struct {
	quick, scale, attribution, force       bool
	decompose, lrDecay, decide             bool
	trend, english                         bool
	dataDir                                string
	budgetSeeds                            int
	budgetTime                             time.Duration
	out, runs, configFile, widths          string
	trainRun, jobs, steps, seeds, curveExs int
	set                                    map[string]bool
}

// parseFlags parses the command line; arguments other than flags are a usage error.
func parseFlags(args []string, stderr io.Writer) (*flags, error) {
	f := &flags{set: map[string]bool{}}
	fs := flag.NewFlagSet("tiny-study", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&f.quick, "quick", false, "smoke variant: a fraction of the budget, every artefact (numbers meaningless)")
	fs.StringVar(&f.out, "out", "", "output directory (default runs/study or runs/study-quick)")
	fs.StringVar(&f.runs, "runs", "", "comma-separated runs (default: all of the study's: transformer,gdn,oryx-tg; the decomposition adds oryx-tg-p1,oryx-tg-p0)")
	fs.IntVar(&f.trainRun, "train-run", -1, "internal: train run N of --config's study and exit (the study's worker processes)")
	fs.StringVar(&f.configFile, "config", "", "internal: with --train-run, the study configuration (JSON)")
	fs.IntVar(&f.jobs, "jobs", 0, "runs trained and evaluated at once (0: 2 on XLA with ≥ 2 cores, else 1); results do not depend on it")
	fs.IntVar(&f.steps, "steps", 0, "training steps per model, the budget knob (default: the study's; keep it a multiple of 2·eval-every)")
	fs.IntVar(&f.seeds, "seeds", 0, "train every run with N seeds (data order and initial weights; run directories <run>-s<k>); "+
		"the claims use the mean ± SE over seeds (default: the study's: 1, or 3 with --scale)")
	fs.BoolVar(&f.scale, "scale", false, "study-scale: transformer, gdn, oryx-tg × 2 widths × 3 seeds at 1.5× the budget (--steps: another); "+
		"the claims' gaps against width and tokens (runs/study-scale)")
	fs.StringVar(&f.widths, "widths", "", "with --scale: the widths to train, comma-separated (1: tiny, 2: tiny2x; default both); "+
		"--widths 1 measures the one-seed spread the study's claims record in a third of the time")
	fs.BoolVar(&f.attribution, "attribution", false, "the recall-gap attribution: single-change oryx-tg runs at the study's budget "+
		"(runs/study-attribution)")
	fs.BoolVar(&f.decompose, "decompose", false, "the (a) decomposition: transformer, gdn, oryx-tg at p = 0.5, 1, 0 at tiny2x × seeds 2–4, "+
		"matched initialisation; the gap's parts with t-intervals and the one-seed spreads for claims.go (runs/study-decompose)")
	fs.BoolVar(&f.lrDecay, "lr-decay", false, "with --decompose: a cosine learning-rate decay to 0.1× instead of the constant rate "+
		"(runs/study-decompose-lr)")
	fs.BoolVar(&f.decide, "decide", false, "the sequential study: transformer, gdn, oryx-tg at tiny2x on seeds 2, 3, … judged after 3, 6, 10 "+
		"and 12 seeds under an alpha-spending boundary until (a)-linear, (b) and (c) are decided or the budget runs out (runs/study-decide)")
	fs.BoolVar(&f.trend, "trend", false, "the trend: transformer, gdn, oryx-tg at tiny2x and tiny × seeds 2–4, constant LR, (a)'s gaps "+
		"on a held-out set at 5 budgets (225–1,800 steps) with power-law and log-linear fits per seed (runs/study-trend-synth; "+
		"--english: runs/study-trend)")
	fs.BoolVar(&f.english, "english", false, "with --trend: train on real English (tinyshakespeare + WikiText-2 test, expected under "+
		datasets.DefaultDataDir+"; --data-dir: elsewhere) and score its held-out part")
	fs.StringVar(&f.dataDir, "data-dir", "", "with --trend --english: the folder that holds tinyshakespeare/input.txt and "+
		"wikitext2/wiki.test.raw (default "+datasets.DefaultDataDir+", relative to the repository's root)")
	fs.IntVar(&f.budgetSeeds, "budget-seeds", 0, "with --decide: start no look beyond N seeds (0: every planned look)")
	fs.DurationVar(&f.budgetTime, "budget-time", 0, "with --decide: start no look after this much time (e.g. 2h; 0: no limit); a look under way finishes")
	fs.BoolVar(&f.force, "force", false, "write into --out even when it holds another command's output (a run directory, an export, ...)")
	fs.IntVar(&f.curveExs, "curve-examples", -1, "recall curves: MQAR examples per pair count scored at every validation (0: no curves; default: the study's)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: go run [-tags xla] ./recipes/tiny-study [--quick] [--scale | --attribution | --decompose | --decide | "+
			"--trend [--english]] [--out DIR] [--runs LIST] "+
			"[--steps N] [--seeds N] [--jobs N]\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, cli.Usagef("unexpected arguments %q (flags only; see -h)", fs.Args())
	}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	return f, nil
}

// The bounds of the counts the flags give (beyond them a study only runs out of memory, processes or time):
const (
	// maxJobs: every job is a worker process with its own XLA client (hundreds of MB) keeping ~1.5 cores busy.
	maxJobs = 16
	// maxSteps: a billion steps is years of the tiny models' training on a CPU; steps × tokens per step stays
	// far from overflowing.
	maxSteps = 1 << 30
	// maxCurveExamples: the recall-curve subset is generated whole and scored at every validation.
	maxCurveExamples = 1 << 16
)

// check rejects flag values out of range and flags that do not go together (outside --train-run).
func (f *flags) check() error {
	if f.set["config"] {
		return cli.Usagef("--config is read only with --train-run (internal: the study's worker processes)")
	}
	if f.jobs < 0 || f.jobs > maxJobs {
		return cli.Usagef("--jobs must be ≥ 0 and ≤ %d (0: automatic), got %d", maxJobs, f.jobs)
	}
	if f.steps < 0 || f.steps > maxSteps {
		return cli.Usagef("--steps must be ≥ 0 and ≤ %d (0: the study's), got %d", maxSteps, f.steps)
	}
	if f.seeds < 0 || f.seeds > study.MaxSeeds {
		return cli.Usagef("--seeds must be ≥ 1 and ≤ %d (0: the study's), got %d", study.MaxSeeds, f.seeds)
	}
	if f.curveExs < -1 || f.curveExs > maxCurveExamples {
		return cli.Usagef("--curve-examples must be ≥ 0 and ≤ %d (0: no recall curves), got %d", maxCurveExamples, f.curveExs)
	}
	// An empty list is not "all" (the default, when the flag is left out): it selects nothing.
	for _, list := range []struct{ name, value string }{{"runs", f.runs}, {"widths", f.widths}} {
		if f.set[list.name] && strings.Trim(list.value, ", \t") == "" {
			return cli.Usagef("--%s %q selects nothing: name at least one, or leave --%s out for all", list.name, list.value, list.name)
		}
	}
	if n := btoi(f.scale) + btoi(f.attribution) + btoi(f.decompose) + btoi(f.decide) + btoi(f.trend); n > 1 {
		return cli.Usagef("--scale, --attribution, --decompose, --decide and --trend are different studies: run one, then another")
	}
	if f.english && !f.trend {
		return cli.Usagef("--english trains the trend on real English: give it with --trend")
	}
	if f.set["data-dir"] && !f.english {
		return cli.Usagef("--data-dir says where the English corpora are: give it with --trend --english")
	}
	if f.set["data-dir"] && strings.TrimSpace(f.dataDir) == "" {
		return cli.Usagef("--data-dir is empty: give the folder that holds tinyshakespeare/input.txt and wikitext2/wiki.test.raw")
	}
	if f.trend && f.set["steps"] {
		return cli.Usagef("--trend reads its gaps at budgets fixed before its runs (study.TrendBudgets): --steps does not apply")
	}
	if (f.set["budget-seeds"] || f.set["budget-time"]) && !f.decide {
		return cli.Usagef("--budget-seeds and --budget-time bound the sequential study: give them with --decide")
	}
	if f.budgetSeeds < 0 || f.budgetSeeds > study.MaxSeeds || f.budgetTime < 0 {
		return cli.Usagef("--budget-seeds must be in [0, %d] and --budget-time ≥ 0, got %d and %v", study.MaxSeeds, f.budgetSeeds, f.budgetTime)
	}
	if f.decide && (f.set["seeds"] || f.set["steps"]) {
		return cli.Usagef("--decide trains the planned looks' seeds at the demo's budget: --seeds and --steps do not apply (--budget-seeds bounds it)")
	}
	if f.lrDecay && !f.decompose {
		return cli.Usagef("--lr-decay changes the decomposition's learning rate: give it with --decompose")
	}
	if f.set["widths"] && !f.scale && !f.trend {
		return cli.Usagef("--widths selects study-scale's or the trend's widths: give it with --scale or --trend")
	}
	return nil
}

// chooseConfig picks the study configuration the flags and the backend call for (the full study, its
// quick, scale or attribution variant, or the reduced pure-Go study), and the runs --runs selects from the
// chosen study's runs (nil: all).
func (f *flags) chooseConfig(stderr io.Writer) (study.Config, []study.RunSpec, backends.Backend, error) {
	be, err := oryx.Backend()
	if err != nil {
		return study.Config{}, nil, nil, err
	}
	c := f.studyConfig(be, stderr)
	// --runs and --widths select from the chosen study's runs (the quick study's are at the tiny width).
	var selected []study.RunSpec
	if f.runs != "" {
		r, err := study.SelectRuns(c.Runs, f.runs)
		if err != nil {
			return c, nil, nil, cli.Usagef("--runs: %w", err)
		}
		selected = r
	}
	if f.widths != "" {
		if selected == nil {
			selected = c.Runs
		}
		r, err := study.SelectWidths(selected, f.widths)
		if err != nil {
			return c, nil, nil, cli.Usagef("--widths: %w", err)
		}
		selected = r
	}
	if backend.IsPureGo(be) && !f.quick {
		// Pure Go scores ~8× slower than XLA CPU: the frontier's examples as in the pure-Go budget.
		c.FrontierExamples = min(c.FrontierExamples, study.PureGoConfig().FrontierExamples)
	}
	return c, selected, be, nil
}

// studyConfig is the study the flags name on backend be, before --runs and --widths select from its runs.
func (f *flags) studyConfig(be backends.Backend, stderr io.Writer) study.Config {
	switch {
	case f.scale && f.quick:
		return study.QuickScaleConfig()
	case f.scale:
		warnPureGo(be, stderr)
		return study.ScaleConfig()
	case f.attribution && f.quick:
		return study.QuickAttributionConfig()
	case f.attribution:
		warnPureGo(be, stderr)
		return study.AttributionConfig()
	case f.decide && f.quick:
		return study.QuickDecideConfig()
	case f.decide:
		warnPureGo(be, stderr)
		return study.DecideConfig()
	case f.decompose && f.quick:
		return study.QuickDecomposeConfig(f.lrDecay)
	case f.decompose:
		warnPureGo(be, stderr)
		return study.DecomposeConfig(f.lrDecay)
	case f.trend && f.quick:
		return study.QuickTrendConfig(f.english)
	case f.trend:
		warnPureGo(be, stderr)
		return study.TrendConfig(f.english)
	case f.quick:
		return study.QuickConfig()
	case backend.IsPureGo(be) && f.steps == 0 && f.runs == "":
		fmt.Fprintln(stderr, "tiny-study: pure-Go backend (no XLA CPU plugin): the reduced study (3 models × 200 steps); "+
			"claims (b) and (c) are not measurable at that budget. `make xla-cpu` (pip) for the full one, or set --steps/--runs.")
		return study.PureGoConfig()
	}
	return study.Default()
}

// warnPureGo says that the studies sized for XLA CPU would take many hours on the pure-Go backend.
func warnPureGo(be backends.Backend, stderr io.Writer) {
	if backend.IsPureGo(be) {
		fmt.Fprintln(stderr, "tiny-study: pure-Go backend (no XLA CPU plugin): this study is sized for XLA CPU and would take many "+
			"hours here; `make xla-cpu` (pip) first.")
	}
}

// apply sets the flags' overrides on c: output directory, selected runs, steps (and study-scale's budgets),
// seeds, recall-curve examples and jobs (0: defaultJobs for be).
func (f *flags) apply(c *study.Config, selected []study.RunSpec, be backends.Backend) {
	if f.out != "" {
		c.Out = f.out
	}
	if selected != nil {
		c.Runs = selected
	}
	if f.steps > 0 {
		c.Train.Steps = f.steps
		if f.scale {
			c.ScaleBudgets = scaleBudgets(c.Train.Steps, max(c.CurveEvery, 1)*c.Train.EvalEvery)
		}
	}
	if f.seeds > 0 {
		c.Seeds = f.seeds
	}
	if f.curveExs >= 0 {
		c.CurveExamples = f.curveExs
	}
	if f.decide {
		c.DecideBudget = study.Budget{MaxSeeds: f.budgetSeeds, Seconds: f.budgetTime.Seconds()}
	}
	if f.dataDir != "" {
		c.Data = study.TrendEnglishData(f.dataDir)
	}
	c.Jobs = f.jobs
	if c.Jobs == 0 {
		c.Jobs = defaultJobs(be)
	}
}

// printOutcome prints what the study wrote to out and each claim's verdict.
func printOutcome(stdout io.Writer, out string, rep *study.Report) {
	switch {
	case rep.Scale != nil:
		fmt.Fprintf(stdout, "\nwrote %s/report.md, scale.json, scale.png, mqar_curves.png, loss.png (%.1f min)\n\n", out, rep.Seconds/60)
	case rep.Attribution != nil:
		fmt.Fprintf(stdout, "\nwrote %s/report.md, attribution.json, results/, mqar_curves.png, loss.png, mqar.png (%.1f min)\n", out, rep.Seconds/60)
	case rep.Decide != nil:
		fmt.Fprintf(stdout, "\nwrote %s/report.md, decide.json, results/, *.png (%.1f min); %d look(s), stopped: %s\n\n", out, rep.Seconds/60,
			len(rep.Decide.Looks), rep.Decide.StoppedBy)
		src := fmt.Sprintf("make study-decide, %s, %s", rep.Date, rep.Backend)
		if d := rep.Decide; len(d.Spreads) > 0 {
			fmt.Fprint(stdout, study.SpreadsLiteral(d.Spreads, src), study.TransitionsLiteral(d.Transitions, src))
		} else {
			fmt.Fprintf(stdout, "the look of seeds 2–11 was not reached; over the last look's seeds:\n%s%s", study.SpreadsLiteral(d.LastLookSpreads, src),
				study.TransitionsLiteral(d.LastLookTransitions, src))
		}
	case rep.Trend != nil:
		fmt.Fprintf(stdout, "\nwrote %s/report.md, trend.json, trend.png, loss.png, scores/ (%.1f min)\n\n", out, rep.Seconds/60)
		for _, tw := range rep.Trend.Widths {
			for _, tm := range tw.Modes {
				for _, f := range tm.Fits {
					for _, cr := range f.Crossings {
						fmt.Fprintf(stdout, "- %s, %s vs %s: %s\n", tw.Size, tm.Candidate, tm.Reference, cr.Words)
					}
				}
			}
		}
	case rep.Decompose != nil:
		fmt.Fprintf(stdout, "\nwrote %s/report.md, decompose.json, results/, *.png (%.1f min)\n\n", out, rep.Seconds/60)
		fmt.Fprint(stdout, rep.Decompose.SpreadsLiteral(fmt.Sprintf("make study-decompose, %s, %s", rep.Date, rep.Backend)))
	default:
		fmt.Fprintf(stdout, "\nwrote %s/report.md, leaderboard.json, leaderboard.md, study.json, results/, *.png (%.1f min)\n\n", out, rep.Seconds/60)
	}
	for _, cl := range rep.Claims {
		fmt.Fprintf(stdout, "- %s: %s\n    %s\n    %s\n", cl.ID, strings.ToUpper(strings.ReplaceAll(cl.Verdict, "_", " ")), cl.Statement, cl.Summary)
	}
}

// scaleBudgets are study-scale's budgets for a --steps override: half of it (rounded down to a step of the
// recall curves, every curveSteps) and all of it, as ScaleConfig reads the study's budget and its own.
func scaleBudgets(steps, curveSteps int) []int {
	half := steps / 2
	if curveSteps > 0 {
		half -= half % curveSteps
	}
	if half <= 0 || half == steps {
		return []int{steps}
	}
	return []int{half, steps}
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
	cfgFile := filepath.Join(c.Out, fmt.Sprintf(".worker-%s.json", c.JobLabel(i)))
	if err := atomicfile.WriteFile(cfgFile, data); err != nil {
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
	unlock := dieWithParent(cmd)
	err = cmd.Run()
	unlock()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("training %s (worker process): %w", c.JobLabel(i), train.ErrInterrupted)
		}
		return fmt.Errorf("training %s (worker process %s --train-run %d): %w", c.JobLabel(i), filepath.Base(self), i, err)
	}
	return nil
}

// trainWorker is the child side of trainInChild: train run i of the study configuration in file.
func trainWorker(file string, i int, stderr io.Writer) error {
	if file == "" {
		return cli.Usagef("--train-run needs --config FILE")
	}
	data, err := safefile.ReadFile(file)
	if err != nil {
		return err
	}
	var c study.Config
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("--config %s: %w", file, err)
	}
	if c.Seeds > study.MaxSeeds {
		return cli.Usagef("--config %s: %d seeds, more than %d", file, c.Seeds, study.MaxSeeds)
	}
	if n := c.Trainings(); i >= n {
		return cli.Usagef("--train-run %d: the study in %s has %d trainings (runs × seeds)", i, file, n)
	}
	_, err = study.TrainRun(c, i, stderr)
	return err
}

// btoi is 1 for true.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
