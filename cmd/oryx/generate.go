package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
)

// Text prompts are encoded, and continuations decoded, with --tokenizer (default: the tokenizer recorded by
// the training run in the checkpoint's run.json, else the byte tokenizer).

// prompt is one --prompt (text) or --tokens (ids) flag, in command-line order.
type prompt struct {
	text   string
	ids    []int32
	isText bool
}

// promptFlags collects --prompt and --prompt-ids in the order given.
type promptFlags struct {
	list *[]prompt
	text bool
}

func (p promptFlags) String() string { return "" }

func (p promptFlags) Set(s string) error {
	if p.text {
		if s == "" {
			return fmt.Errorf("empty prompt")
		}
		*p.list = append(*p.list, prompt{text: s, isText: true})
		return nil
	}
	ids, err := parseIDs(s)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return fmt.Errorf("empty token list")
	}
	*p.list = append(*p.list, prompt{ids: ids})
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

// generateCmd implements `oryx generate`: load a checkpoint, continue the prompts under a mode schedule and
// print the continuations and the cost summary.
func generateCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var prompts []prompt
	checkpoint := fs.String("checkpoint", "", "checkpoint directory (written by oryx init or training; required)")
	tokSpec := fs.String("tokenizer", "", "tokenizer of text prompts (bytes | tokenizer.json | tokenizer.model; default: the training run's, else bytes)")
	fs.Var(promptFlags{&prompts, true}, "prompt", "text prompt, encoded with --tokenizer (repeatable; one batch row each)")
	fs.Var(promptFlags{&prompts, false}, "prompt-ids", "prompt as comma-separated token ids, e.g. 1,2,3 (repeatable)")
	fs.Var(promptFlags{&prompts, false}, "tokens", "deprecated alias of --prompt-ids")
	schedule := fs.String("schedule", "attention", "mode schedule of the prompt and the generated tokens, e.g. attention, "+
		"linear, attention-last:N, prefill-attention, linear-until:P, A:0-9,L:10-, budget:F:last, budget:F:entropy "+
		"(F the fraction of attention tokens; entropy escalates uncertain tokens) (random block/sequence specs are refused)")
	maxTokens := fs.Int("max-tokens", 32, "tokens to generate per prompt")
	temperature := fs.Float64("temperature", 0, "sampling temperature (0 = greedy)")
	topK := fs.Int("top-k", 0, "keep the k most likely tokens (0 = off)")
	topP := fs.Float64("top-p", 0, "nucleus sampling mass in (0, 1] (0 or 1 = off)")
	seed := fs.Uint64("seed", 0, "seed of the sampler's random stream")
	stopFlag := fs.String("stop", "", "comma-separated token ids that end a row (kept in the output)")
	capacity := fs.Int("capacity", 0, "KV-cache capacity in tokens (0 = longest prompt + max-tokens)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: oryx generate --checkpoint DIR (--prompt TEXT | --prompt-ids IDS)... "+
			"[--schedule SPEC] [--max-tokens N]\n"+
			"                     [--temperature T] [--top-k K] [--top-p P] [--seed N] [--stop IDS] [--capacity N]\n\n"+
			"Continues each prompt (one batch row per prompt) and prints the continuations, then the number of\n"+
			"tokens generated, decode tokens/s, prefill time and the fraction of tokens run in attention mode.\n"+
			"Text goes through --tokenizer (default: the training run's, else bytes).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}

	// Flags that need no model.
	if fs.NArg() > 0 {
		return fmt.Errorf("generate: unexpected arguments %q (quote the prompt: --prompt \"...\")", fs.Args())
	}
	if *checkpoint == "" {
		return fmt.Errorf("generate: --checkpoint DIR is required")
	}
	if len(prompts) == 0 {
		return fmt.Errorf("generate: give at least one --prompt or --prompt-ids")
	}
	if *maxTokens <= 0 || *maxTokens > guard.MaxSeqLen {
		return fmt.Errorf("generate: --max-tokens must be in [1, %d], got %d", guard.MaxSeqLen, *maxTokens)
	}
	spec := strings.TrimSpace(*schedule)
	if err := checkScheduleFlag(spec); err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	if math.IsNaN(*temperature) || math.IsInf(*temperature, 0) || *temperature < 0 {
		return fmt.Errorf("generate: --temperature must be a finite number >= 0 (0 = greedy), got %v", *temperature)
	}
	if *topK < 0 {
		return fmt.Errorf("generate: --top-k must be >= 0 (0 = off), got %d", *topK)
	}
	if math.IsNaN(*topP) || *topP < 0 || *topP > 1 {
		return fmt.Errorf("generate: --top-p must be in [0, 1] (0 or 1 = off), got %v", *topP)
	}
	sampler, err := oryx.NewSampler(*temperature, *topK, *topP, *seed)
	if err != nil {
		return fmt.Errorf("generate: sampler flags: %w", err)
	}
	stop, err := parseIDs(*stopFlag)
	if err != nil {
		return fmt.Errorf("generate: --stop: %w", err)
	}
	if *capacity < 0 || *capacity > guard.MaxSeqLen {
		return fmt.Errorf("generate: --capacity must be in [0, %d] (0 = automatic), got %d", guard.MaxSeqLen, *capacity)
	}

	// The model, and the flags that depend on it.
	m, ctx, err := oryx.LoadCheckpoint(*checkpoint, nil)
	if err != nil {
		return fmt.Errorf("generate: --checkpoint: %w", err)
	}
	if *tokSpec == "" {
		if *tokSpec, err = rundir.Tokenizer(*checkpoint); err != nil {
			return fmt.Errorf("generate: --checkpoint: %w", err)
		}
	}
	tok, err := tokenizers.Load(*tokSpec)
	if err != nil {
		return fmt.Errorf("generate: --tokenizer: %w", err)
	}
	vocab := m.Config.Vocab
	rows := make([][]int32, len(prompts))
	longest := 0
	for i, p := range prompts {
		if p.isText {
			ids := tok.Encode(p.text)
			if len(ids) == 0 {
				return fmt.Errorf("generate: --prompt %d encodes to no tokens", i)
			}
			rows[i] = make([]int32, len(ids))
			for j, id := range ids {
				if id >= vocab {
					return fmt.Errorf("generate: --prompt %d: --tokenizer %s gives token %d, outside the model's vocabulary [0, %d): "+
						"is this the tokenizer the model was trained with?", i, tok.Name(), id, vocab)
				}
				rows[i][j] = int32(id)
			}
		} else {
			for _, id := range p.ids {
				if int(id) >= vocab {
					return fmt.Errorf("generate: --prompt-ids (prompt %d): token %d is outside the model's vocabulary [0, %d)", i, id, vocab)
				}
			}
			rows[i] = p.ids
		}
		longest = max(longest, len(rows[i]))
	}
	for _, id := range stop {
		if int(id) >= vocab {
			return fmt.Errorf("generate: --stop: token %d is outside the model's vocabulary [0, %d)", id, vocab)
		}
	}
	need := longest + *maxTokens - 1
	if *capacity == 0 {
		*capacity = longest + *maxTokens
	} else if *capacity < need {
		return fmt.Errorf("generate: --capacity %d is too small: the longest prompt (%d tokens) with --max-tokens %d needs %d",
			*capacity, longest, *maxTokens, need)
	}

	if err := oryx.CheckDecodeMemory(m.Config, len(rows), *capacity); err != nil {
		return fmt.Errorf("generate: --capacity %d with %d prompt(s): %w", *capacity, len(rows), err)
	}
	be, err := backend.Get()
	if err != nil {
		return err
	}
	engine, err := oryx.NewEngine(be, ctx, m, len(rows), *capacity)
	if err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	opts := oryx.GenerateOptions{Schedule: spec, MaxTokens: *maxTokens, Stop: stop, Sampler: sampler}
	progress := isTerminal(stderr)
	if progress {
		opts.Progress = func(done, total int) {
			fmt.Fprintf(stderr, "\rgenerating: %d/%d tokens per prompt", done, total)
		}
	}
	gen, err := engine.Generate(rows, opts)
	if progress {
		fmt.Fprint(stderr, "\r\033[K") // clear the progress line
	}
	if err != nil {
		return fmt.Errorf("generate: %w", err)
	}

	for i, p := range prompts {
		if p.isText {
			fmt.Fprintf(stdout, "[%d] prompt: %s\n", i, renderText(tok.Decode(toInts(rows[i]))))
			fmt.Fprintf(stdout, "[%d] continuation: %s\n", i, renderText(tok.Decode(toInts(gen.Tokens[i]))))
		} else {
			fmt.Fprintf(stdout, "[%d] prompt: %s\n", i, joinIDs(rows[i]))
			fmt.Fprintf(stdout, "[%d] continuation: %s\n", i, joinIDs(gen.Tokens[i]))
		}
	}
	rate := 0.0
	if gen.DecodeSeconds > 0 {
		rate = float64(gen.GeneratedTokens) / gen.DecodeSeconds
	}
	fmt.Fprintf(stdout, "generated %d tokens for %d prompt(s) in %.3f s (%.1f tokens/s decode); prefill %.3f s for %d prompt tokens; "+
		"attention fraction %.1f%% of the tokens run (schedule %q, %s)\n",
		gen.GeneratedTokens, len(rows), gen.DecodeSeconds, rate, gen.PrefillSeconds, gen.PromptTokens,
		100*gen.AttentionFraction, spec, m.Config.Variant)
	return nil
}

// checkScheduleFlag validates --schedule before the model is loaded: the spec must parse and define the
// mode of generated tokens (random specs and budget:F:question do not). Errors name the flag.
func checkScheduleFlag(spec string) error {
	err := oryx.CheckSpec(spec)
	if err == nil {
		err = oryx.CheckDecodeSpec(spec)
	}
	if err == nil {
		return nil
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "schedule ") { // `schedule "block": ...` → `--schedule "block": ...`
		return fmt.Errorf("--%s", msg)
	}
	return fmt.Errorf("--schedule %q: %s", spec, msg)
}

// renderText shows decoded text on one line: printable UTF-8 as is, everything else escaped (\n, \t, \r,
// \\, \xNN for other control bytes and invalid UTF-8, \uNNNN for other non-printable runes).
func renderText(s string) string {
	var sb strings.Builder
	buf := []byte(s)
	for len(buf) > 0 {
		r, n := utf8.DecodeRune(buf)
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&sb, `\x%02x`, buf[0])
		case r == '\\':
			sb.WriteString(`\\`)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == '\r':
			sb.WriteString(`\r`)
		case unicode.IsPrint(r):
			sb.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&sb, `\x%02x`, r)
		default:
			fmt.Fprintf(&sb, `\u%04x`, r)
		}
		buf = buf[n:]
	}
	return sb.String()
}

func toInts(ids []int32) []int {
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}

func joinIDs(ids []int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(int(id))
	}
	return strings.Join(parts, " ")
}

// isTerminal tells whether w is a terminal (character device), for progress output.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
