// Package textgen is `oryx generate` as a library: prompts (text through a tokenizer, or token ids), a
// checkpoint, Engine.Generate or Engine.GenerateSpeculative, and the report the command prints. The command
// (cmd/oryx) only parses flags into Options and calls Run. Options mirror the command's flags, and errors name
// the flag at fault (--max-tokens, --stop, ...).
package textgen

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/infer"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// Prompt is one prompt: Text (encoded with the tokenizer) when IDs is nil, else the token ids IDs.
type Prompt struct {
	Text string
	IDs  []int32
}

// IsText tells whether the prompt is text (encoded with the tokenizer).
func (p Prompt) IsText() bool { return p.IDs == nil }

// SpeculativeAuto is Options.Speculative for --speculative auto: measure plain decoding and draft lengths 2 and
// 4 on the first tokens and keep the fastest (infer.AutoDraft; when sampling, chosen by fixed costs and the
// acceptance instead of the clock, so that a --seed gives the same output).
const SpeculativeAuto = infer.AutoDraft

// Options are the inputs of one generation run (the flags of `oryx generate`).
type Options struct {
	Checkpoint string   // checkpoint directory (--checkpoint; required)
	Tokenizer  string   // tokenizer of text prompts (--tokenizer; "" = the training run's, else bytes)
	Prompts    []Prompt // one batch row each (--prompt, --prompt-ids)
	Schedule   string   // mode schedule (--schedule; "" = attention)
	MaxTokens  int      // tokens to generate per prompt (--max-tokens)
	// Sampling (--temperature, --top-k, --top-p, --seed): temperature 0 is greedy.
	Temperature float64
	TopK        int
	TopP        float64
	Seed        uint64
	Stop        []int32 // tokens that end a row (--stop)
	Capacity    int     // KV-cache capacity (--capacity; 0 = longest prompt + MaxTokens)
	Speculative int     // tokens drafted per round by self-speculative decoding (--speculative; 0 = off, SpeculativeAuto = auto)
	// Progress, when set, is Generate's progress callback (done and total tokens per prompt).
	Progress func(done, total int)
	// PrefillProgress, when set, is called as a long prompt is read (done and total prompt tokens of the
	// longest prompt; infer.Engine.PrefillProgress).
	PrefillProgress func(done, total int)
}

// Check validates the options that need no model (run before loading one); errors name the flag.
func (o *Options) Check() error {
	if o.Checkpoint == "" {
		return fmt.Errorf("--checkpoint DIR is required")
	}
	if len(o.Prompts) == 0 {
		return fmt.Errorf("give at least one --prompt or --prompt-ids")
	}
	for i, p := range o.Prompts {
		if p.IsText() && p.Text == "" {
			return fmt.Errorf("--prompt %d: empty prompt", i)
		}
		if !p.IsText() && len(p.IDs) == 0 {
			return fmt.Errorf("--prompt-ids (prompt %d): empty token list", i)
		}
	}
	if o.MaxTokens <= 0 || o.MaxTokens > guard.MaxSeqLen {
		return fmt.Errorf("--max-tokens must be in [1, %d], got %d", guard.MaxSeqLen, o.MaxTokens)
	}
	if err := CheckSchedule(strings.TrimSpace(o.Schedule)); err != nil {
		return err
	}
	if math.IsNaN(o.Temperature) || math.IsInf(o.Temperature, 0) || o.Temperature < 0 {
		return fmt.Errorf("--temperature must be a finite number >= 0 (0 = greedy), got %v", o.Temperature)
	}
	if o.TopK < 0 || o.TopK > guard.MaxVocab {
		return fmt.Errorf("--top-k must be in [0, %d] (0 = off), got %d", guard.MaxVocab, o.TopK)
	}
	if math.IsNaN(o.TopP) || o.TopP < 0 || o.TopP > 1 {
		return fmt.Errorf("--top-p must be in [0, 1] (0 or 1 = off), got %v", o.TopP)
	}
	if _, err := infer.NewSampler(o.Temperature, o.TopK, o.TopP, o.Seed); err != nil {
		return fmt.Errorf("sampler flags: %w", err)
	}
	for _, id := range o.Stop {
		if id < 0 {
			return fmt.Errorf("--stop: token %d is negative", id)
		}
	}
	if o.Capacity < 0 || o.Capacity > guard.MaxSeqLen {
		return fmt.Errorf("--capacity must be in [0, %d] (0 = automatic), got %d", guard.MaxSeqLen, o.Capacity)
	}
	if o.Speculative != infer.AutoDraft && (o.Speculative < 0 || o.Speculative > infer.MaxDraft) {
		return fmt.Errorf("--speculative must be auto or in [0, %d] (0 = off), got %d", infer.MaxDraft, o.Speculative)
	}
	return nil
}

// CheckSchedule validates a --schedule value before a model is loaded: the spec must parse and define the
// mode of generated tokens (random specs and budget:F:question do not). Errors name the flag.
func CheckSchedule(spec string) error {
	if spec == "" {
		spec = "attention"
	}
	_, err := schedule.ParseSpec(spec, schedule.ForDecoding)
	if err == nil {
		return nil
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "schedule ") { // `schedule "block": ...` → `--schedule "block": ...`
		return fmt.Errorf("--%s", msg)
	}
	return fmt.Errorf("--schedule %q: %s", spec, msg)
}

// Result is a finished generation run.
type Result struct {
	Prompts    []Prompt
	Rows       [][]int32 // the prompts' tokens
	Generation *infer.Generation
	Schedule   string // the schedule spec used
	Variant    oryx.Variant
	tok        tokenizers.Tokenizer
}

// Run checks the options, loads the checkpoint and the tokenizer, and generates.
func Run(o Options) (*Result, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	spec := strings.TrimSpace(o.Schedule)
	if spec == "" {
		spec = "attention"
	}
	sampler, err := infer.NewSampler(o.Temperature, o.TopK, o.TopP, o.Seed)
	if err != nil {
		return nil, fmt.Errorf("sampler flags: %w", err)
	}

	// The model, and the options that depend on it.
	m, ctx, err := oryx.LoadCheckpointRetrying(o.Checkpoint, nil) // a training may be saving into it
	if err != nil {
		return nil, fmt.Errorf("--checkpoint: %w", err)
	}
	if o.Speculative != 0 && !m.Config.Variant.IsMultiMixer() {
		return nil, fmt.Errorf("--speculative: the checkpoint's variant %s has one readout; speculative decoding needs %s or %s",
			m.Config.Variant, oryx.OryxTM, oryx.OryxTG)
	}
	tokSpec := o.Tokenizer
	if tokSpec == "" {
		if tokSpec, err = rundir.Tokenizer(o.Checkpoint); err != nil {
			return nil, fmt.Errorf("--checkpoint: %w", err)
		}
	}
	tok, err := tokenizers.Load(tokSpec)
	if err != nil {
		return nil, fmt.Errorf("--tokenizer: %w", err)
	}
	rows, err := encodePrompts(o.Prompts, tok, m.Config.Vocab)
	if err != nil {
		return nil, err
	}
	longest := 0
	for _, r := range rows {
		longest = max(longest, len(r))
	}
	for _, id := range o.Stop {
		if int(id) >= m.Config.Vocab {
			return nil, cli.Usagef("--stop: token %d is outside the model's vocabulary [0, %d)%s", id, m.Config.Vocab,
				oryx.ByteTokenizerVocabHint(int(id), m.Config.Vocab))
		}
	}
	capacity := o.Capacity
	need := longest + o.MaxTokens - 1
	if capacity == 0 {
		capacity = longest + o.MaxTokens
	} else if capacity < need {
		return nil, cli.Usagef("--capacity %d is too small: the longest prompt (%d tokens) with --max-tokens %d needs %d",
			capacity, longest, o.MaxTokens, need)
	}
	if err := oryx.CheckDecodeMemory(m.Config, len(rows), capacity); err != nil {
		if o.Capacity == 0 { // the capacity follows the prompt: name what the user gave
			return nil, fmt.Errorf("%s: the longest prompt has %d tokens (a KV cache of %d tokens with --max-tokens %d): %w",
				promptFlag(o.Prompts, rows, longest), longest, capacity, o.MaxTokens, err)
		}
		return nil, fmt.Errorf("--capacity %d with %d prompt(s): %w", capacity, len(rows), err)
	}
	if err := infer.CheckPrefillMemory(m.Config, len(rows), longest, capacity, infer.PrefillAttentionMemBytes); err != nil {
		return nil, fmt.Errorf("%s: the longest prompt has %d tokens: %w", promptFlag(o.Prompts, rows, longest), longest, err)
	}

	be, err := oryx.Backend()
	if err != nil {
		return nil, err
	}
	engine, err := infer.NewEngine(be, ctx, m, len(rows), capacity)
	if err != nil {
		return nil, err
	}
	engine.PrefillProgress = o.PrefillProgress
	opts := infer.GenerateOptions{Schedule: spec, MaxTokens: o.MaxTokens, Stop: o.Stop, Sampler: sampler, Progress: o.Progress}
	var gen *infer.Generation
	if o.Speculative != 0 {
		gen, err = engine.GenerateSpeculative(rows, o.Speculative, opts)
	} else {
		gen, err = engine.Generate(rows, opts)
	}
	if err != nil {
		return nil, err
	}
	return &Result{Prompts: o.Prompts, Rows: rows, Generation: gen, Schedule: spec, Variant: m.Config.Variant, tok: tok}, nil
}

// promptFlag names the flag that gave the longest prompt (--prompt or --prompt-ids).
func promptFlag(prompts []Prompt, rows [][]int32, longest int) string {
	for i, r := range rows {
		if len(r) == longest && prompts[i].IsText() {
			return "--prompt"
		}
	}
	return "--prompt-ids"
}

// encodePrompts turns the prompts into token rows, checking every id against the model's vocabulary.
func encodePrompts(prompts []Prompt, tok tokenizers.Tokenizer, vocab int) ([][]int32, error) {
	rows := make([][]int32, len(prompts))
	for i, p := range prompts {
		if !p.IsText() {
			for _, id := range p.IDs {
				if id < 0 || int(id) >= vocab {
					return nil, cli.Usagef("--prompt-ids (prompt %d): token %d is outside the model's vocabulary [0, %d)%s", i, id, vocab,
						oryx.ByteTokenizerVocabHint(int(id), vocab))
				}
			}
			rows[i] = p.IDs
			continue
		}
		ids := tok.Encode(p.Text)
		if len(ids) == 0 {
			return nil, fmt.Errorf("--prompt %d encodes to no tokens", i)
		}
		rows[i] = make([]int32, len(ids))
		for j, id := range ids {
			if id >= vocab {
				return nil, fmt.Errorf("--prompt %d: --tokenizer %s gives token %d, outside the model's vocabulary [0, %d): "+
					"is this the tokenizer the model was trained with?%s", i, tok.Name(), id, vocab, oryx.ByteTokenizerVocabHint(id, vocab))
			}
			rows[i][j] = int32(id)
		}
	}
	return rows, nil
}

// Write writes the report: per prompt its text (or ids) and continuation, then one summary line (tokens,
// decode tokens/s, prefill time, attention fraction) and, after speculative decoding, one line on the rounds.
func (r *Result) Write(w io.Writer) {
	prompts, rows, gen, tok, spec, v := r.Prompts, r.Rows, r.Generation, r.tok, r.Schedule, r.Variant
	for i, p := range prompts {
		if p.IsText() {
			fmt.Fprintf(w, "[%d] prompt: %s\n", i, RenderText(tok.Decode(toInts(rows[i]))))
			fmt.Fprintf(w, "[%d] continuation: %s\n", i, RenderText(tok.Decode(toInts(gen.Tokens[i]))))
		} else {
			fmt.Fprintf(w, "[%d] prompt: %s\n", i, JoinIDs(rows[i]))
			fmt.Fprintf(w, "[%d] continuation: %s\n", i, JoinIDs(gen.Tokens[i]))
		}
	}
	rate := 0.0
	if gen.DecodeSeconds > 0 {
		rate = float64(gen.GeneratedTokens) / gen.DecodeSeconds
	}
	fmt.Fprintf(w, "generated %d tokens for %d prompt(s) in %.3f s (%.1f tokens/s decode); prefill %.3f s for %d prompt tokens; "+
		"attention fraction %.1f%% of the tokens run (schedule %q, %s)\n",
		gen.GeneratedTokens, len(rows), gen.DecodeSeconds, rate, gen.PrefillSeconds, gen.PromptTokens,
		100*gen.AttentionFraction, spec, v)
	if s := gen.Speculation; s != nil {
		if s.Choice != "" { // --speculative auto: what it chose, once
			fmt.Fprintln(w, s.Choice)
		}
		fmt.Fprintf(w, "speculative decoding, K=%d: %d rounds, %d of %d drafts accepted (%.1f%%); draft %.3f s, verify %.3f s, commit %.3f s\n",
			s.Draft, s.Rounds, s.Accepted, s.Drafted, 100*s.AcceptanceRate, s.DraftSeconds, s.VerifySeconds, s.CommitSeconds)
	}
}

// RenderText shows decoded text on one line: printable UTF-8 as is, everything else escaped (\n, \t, \r,
// \\, \xNN for other control bytes and invalid UTF-8, \uNNNN for other non-printable runes).
func RenderText(s string) string {
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

// JoinIDs renders token ids separated by spaces.
func JoinIDs(ids []int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(int(id))
	}
	return strings.Join(parts, " ")
}

func toInts(ids []int32) []int {
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}
