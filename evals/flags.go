package main

import (
	"flag"
	"math"
	"os"

	"github.com/oryx-go/oryx/evals/evalsetup"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/oryx"
)

// The memory flags' defaults and help, the same in every subcommand.
const (
	scoreMemDefault = int(oryx.DefaultScoreMemBytes >> 20)
	scoreMemUsage   = "MiB for one chunk of the vocabulary projection and log-softmax when scoring (positions and vocabulary are chunked to fit; never [batch, T, vocab] logits)"
	genMemUsage     = "MiB for one generation batch (NIAH, recall, the mini needle): its rows' KV caches at the batch's capacity plus the prefill's activations; the batch is cut below --batch to fit, down to 1 row (the chosen batch is logged)"
)

// evalFlags are the flags of the subcommands that evaluate a checkpoint, registered by one function
// (register) so that each subcommand has the same names, defaults, help and bounds:
//
//	every one (main, mqar, switch, frontier): --checkpoint --tokenizer --batch --score-mem-mb
//	those that run harness tasks (main, frontier): --data-root --data-path --param --limit --max-length
//	    --lm-max-length --gen-mem-mb
type evalFlags struct {
	use evalFlagUse

	Checkpoint string
	Tokenizer  string
	Batch      int
	ScoreMemMB int

	dataRoot      string
	paths, params listFlag
	Limit         int
	MaxLength     int // NIAH and recall tasks
	LMMaxLength   int // LM tasks
	GenMemMB      int
}

// evalFlagUse is what differs between the subcommands: the help of --checkpoint, --batch (and its default)
// and --limit, and whether the harness flags are taken.
type evalFlagUse struct {
	checkpoint string // help of --checkpoint ("" = "checkpoint directory")
	batch      int    // default of --batch
	batchHelp  string // its help
	harness    bool   // the harness flags
	limit      string // help of --limit (harness)
}

// register adds the flags use names to fs.
func (e *evalFlags) register(fs *flag.FlagSet, use evalFlagUse) {
	e.use = use
	if use.checkpoint == "" {
		use.checkpoint = "checkpoint directory"
	}
	fs.StringVar(&e.Checkpoint, "checkpoint", "", use.checkpoint)
	fs.StringVar(&e.Tokenizer, "tokenizer", "", "tokenizer (default: the training run's, else bytes)")
	fs.IntVar(&e.Batch, "batch", use.batch, use.batchHelp)
	fs.IntVar(&e.ScoreMemMB, "score-mem-mb", scoreMemDefault, scoreMemUsage)
	if !use.harness {
		return
	}
	fs.StringVar(&e.dataRoot, "data-root", "", "root of the HF-layout parquet sets (default: $"+harness.DataRootEnv+", else shared/data/hf found walking up from the working directory)")
	fs.Var(&e.paths, "data-path", "per-task data override task=path (repeatable)")
	fs.Var(&e.params, "param", "task-family option key=value (repeatable), e.g. niah.lengths=1024,2048 or niah.depths=0,50,100; unknown keys list the known ones")
	fs.IntVar(&e.Limit, "limit", 0, use.limit)
	fs.IntVar(&e.LMMaxLength, "lm-max-length", evalsetup.DefaultLMMaxLength, "max_length of the LM tasks (lm-eval's; wikitext windows, truncation)")
	fs.IntVar(&e.MaxLength, "max-length", 8192, "max tokens per model call of the NIAH and recall tasks (recall is also capped at JRT's 2048)")
	fs.IntVar(&e.GenMemMB, "gen-mem-mb", oryxlm.DefaultGenMemMB, genMemUsage)
}

// check bounds the registered sizes (usage errors naming the flag), parses --data-path and --param and
// resolves the data root: the harness configuration and how its root was found (harness.ResolveDataRoot).
func (e *evalFlags) check() (harness.Config, string, error) {
	sizes := []sizeFlag{{"--batch", e.Batch, 1, guard.MaxBatch}, {"--score-mem-mb", e.ScoreMemMB, 0, math.MaxInt32}}
	if e.use.harness {
		sizes = append(sizes, sizeFlag{"--max-length", e.MaxLength, 1, guard.MaxSeqLen},
			sizeFlag{"--lm-max-length", e.LMMaxLength, 1, guard.MaxSeqLen}, sizeFlag{"--gen-mem-mb", e.GenMemMB, 1, math.MaxInt32},
			sizeFlag{"--limit", e.Limit, 0, math.MaxInt})
	}
	if err := checkSizes(sizes...); err != nil {
		return harness.Config{}, "", cli.Usage(err)
	}
	if !e.use.harness {
		return harness.Config{}, "", nil
	}
	var hc harness.Config
	var err error
	if hc.Paths, err = harness.ParsePathOverrides(e.paths); err != nil {
		return hc, "", cli.Usagef("--data-path: %w", err)
	}
	if hc.Params, err = harness.ParseParams(e.params); err != nil {
		return hc, "", cli.Usagef("--param: %w", err)
	}
	wd, _ := os.Getwd()
	var source string
	hc.DataRoot, source = harness.ResolveDataRoot(e.dataRoot, wd)
	return hc, source, nil
}
