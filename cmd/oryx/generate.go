package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/internal/progress"
	"github.com/oryx-go/oryx/textgen"
)

// Text prompts are encoded, and continuations decoded, with --tokenizer (default: the tokenizer recorded by
// the training run in the checkpoint's run.json, else the byte tokenizer). The work is textgen.Run's.

// speculativeFlag is --speculative: auto (textgen.SpeculativeAuto) or a draft length K (0 = off).
type speculativeFlag struct{ k *int }

func (f speculativeFlag) String() string {
	if f.k == nil || *f.k == 0 {
		return ""
	}
	if *f.k == textgen.SpeculativeAuto {
		return "auto"
	}
	return strconv.Itoa(*f.k)
}

func (f speculativeFlag) Set(s string) error {
	if strings.TrimSpace(s) == "auto" {
		*f.k = textgen.SpeculativeAuto
		return nil
	}
	k, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || k < 0 {
		return fmt.Errorf("want auto or a draft length K ≥ 0, got %q", s)
	}
	*f.k = k
	return nil
}

// promptFlags collects --prompt (text) and --prompt-ids in the order given.
type promptFlags struct {
	list *[]textgen.Prompt
	text bool
}

func (p promptFlags) String() string { return "" }

func (p promptFlags) Set(s string) error {
	if p.text {
		if s == "" {
			return fmt.Errorf("empty prompt")
		}
		*p.list = append(*p.list, textgen.Prompt{Text: s})
		return nil
	}
	ids, err := parseIDs(s)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return fmt.Errorf("empty token list")
	}
	*p.list = append(*p.list, textgen.Prompt{IDs: ids})
	return nil
}

// parseIDs parses "1,2,3" (spaces allowed) into non-negative token ids.
func parseIDs(s string) ([]int32, error) {
	var ids []int32
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.ParseInt(f, 10, 32)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a token id (a non-negative integer)", f)
		}
		ids = append(ids, int32(n))
	}
	return ids, nil
}

// generateCmd implements `oryx generate`: flags → textgen.Run (load a checkpoint, continue the prompts under a
// mode schedule, print the continuations and the cost summary).
func generateCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o textgen.Options
	fs.StringVar(&o.Checkpoint, "checkpoint", "", "checkpoint directory (written by oryx init or training; required)")
	fs.StringVar(&o.Tokenizer, "tokenizer", "", "tokenizer of text prompts (bytes | tokenizer.json | tokenizer.model; default: the training run's, else bytes)")
	fs.Var(promptFlags{&o.Prompts, true}, "prompt", "text prompt, encoded with --tokenizer (repeatable; one batch row each)")
	fs.Var(promptFlags{&o.Prompts, false}, "prompt-ids", "prompt as comma-separated token ids, e.g. 1,2,3 (repeatable)")
	fs.Var(promptFlags{&o.Prompts, false}, "tokens", "deprecated alias of --prompt-ids")
	fs.StringVar(&o.Schedule, "schedule", "attention", "mode schedule of the prompt and the generated tokens, e.g. attention, "+
		"linear, attention-last:N, prefill-attention, linear-until:P, A:0-9,L:10-, budget:F:last, budget:F:entropy "+
		"(F the fraction of attention tokens; entropy escalates uncertain tokens) (random block/sequence specs are refused)")
	fs.IntVar(&o.MaxTokens, "max-tokens", 32, "tokens to generate per prompt")
	fs.Float64Var(&o.Temperature, "temperature", 0, "sampling temperature (0 = greedy)")
	fs.IntVar(&o.TopK, "top-k", 0, "keep the k most likely tokens (0 = off)")
	fs.Float64Var(&o.TopP, "top-p", 0, "nucleus sampling mass in (0, 1] (0 or 1 = off)")
	fs.Uint64Var(&o.Seed, "seed", 0, "seed of the sampler's random stream")
	stopFlag := fs.String("stop", "", "comma-separated token ids that end a row (kept in the output)")
	fs.IntVar(&o.Capacity, "capacity", 0, "KV-cache capacity in tokens (0 = longest prompt + max-tokens)")
	fs.Var(speculativeFlag{&o.Speculative}, "speculative", "self-speculative decoding: auto, or draft K tokens per round "+
		"in linear mode and verify them in one pass in the --schedule's modes (same output as without it when greedy; "+
		"oryx-tm, oryx-tg); auto measures plain decoding and K = 2, 4 on the first tokens and keeps the fastest, plain "+
		"decoding included; when sampling (--temperature > 0) auto times nothing and chooses by fixed costs and the "+
		"acceptance, so that a --seed gives the same output (docs/inference.md) (default off)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: oryx generate --checkpoint DIR (--prompt TEXT | --prompt-ids IDS)... "+
			"[--schedule SPEC] [--max-tokens N]\n"+
			"                     [--temperature T] [--top-k K] [--top-p P] [--seed N] [--stop IDS] [--capacity N] [--speculative auto|K]\n\n"+
			"Continues each prompt (one batch row per prompt) and prints the continuations, then the number of\n"+
			"tokens generated, decode tokens/s, prefill time and the fraction of tokens run in attention mode.\n"+
			"Text goes through --tokenizer (default: the training run's, else bytes).\n\n")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("generate: unexpected arguments %q (quote the prompt: --prompt \"...\")", fs.Args())
	}
	var err error
	if o.Stop, err = parseIDs(*stopFlag); err != nil {
		return cli.Usagef("generate: --stop: %w", err)
	}
	// The option checks (required flags, ranges, the schedule) are usage errors; what Run finds in the
	// checkpoint or tokenizer is a runtime failure.
	if err := o.Check(); err != nil {
		return cli.Usagef("generate: %w", err)
	}
	showProgress := progress.IsTerminal(stderr)
	if showProgress {
		o.Progress = func(done, total int) { fmt.Fprintf(stderr, "\r\033[Kgenerating: %d/%d tokens per prompt", done, total) }
		o.PrefillProgress = func(done, total int) { fmt.Fprintf(stderr, "\rreading the prompt: %d/%d tokens", done, total) }
	}
	res, err := textgen.Run(o)
	if showProgress {
		fmt.Fprint(stderr, "\r\033[K") // clear the progress line
	}
	if err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	res.Write(stdout)
	return nil
}
