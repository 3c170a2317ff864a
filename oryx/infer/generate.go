package infer

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// GenerateOptions configures Engine.Generate.
type GenerateOptions struct {
	// Schedule is the mode spec (schedule.ParseSpec's grammar, oryx/schedule/spec.go). It gives the modes of
	// the prompt tokens (ScheduleRows with seed 0, each row over its own prompt length) and, through
	// DecodeMode, the mode of each generated token. "" means all-attention for multi-mixer variants. Single-mixer variants run in
	// their only mixer whatever the spec, but a non-empty spec is still validated. Random specs (block,
	// sequence) are refused: they do not define generated-token modes. "budget:F:entropy" runs a linear pass
	// over the prompts first and escalates generated tokens one by one (oryx/schedule/budget.go, escalate.go).
	Schedule string
	// Modes, when set, gives the modes in place of Schedule (which must then be empty): the caller's own
	// placement per row, e.g. the evaluations' per-request schedules and budgets (evals/oryxlm). Single-mixer
	// variants ignore it, as they ignore Schedule.
	Modes *RowModes
	// MaxTokens is the number of new tokens per prompt (> 0).
	MaxTokens int
	// RowMaxTokens, when set, caps row b at RowMaxTokens[b] tokens, each in [1, MaxTokens]. A row that has
	// stopped is fed until the last row ends, so every row needs its prompt + the largest cap − 1 cache
	// positions.
	RowMaxTokens []int
	// Stop lists tokens after which a row stops (the stop token is kept in its output).
	Stop []int32
	// StopAfter, when set, is asked after each token a row generates that does not end it already (a Stop
	// token, its cap) whether the row stops there, the token kept (tokens: the row's generated tokens so far,
	// that one included): e.g. when the decoded text holds a stop string.
	StopAfter func(row int, tokens []int32) bool
	// Sampler picks each token; nil = greedy. Generate draws from the sampler's stream as it stands (rows
	// in order, stopped rows draw nothing); call Sampler.Reset to replay a seed with the same sampler.
	Sampler *Sampler
	// Progress, when set, is called each time a token has been sampled for the running rows: done is the
	// number of tokens generated so far per row (1 after the prefill, then one more per decode step) and
	// total is MaxTokens. After an early stop (every row hit a stop token) the last call has done < total.
	Progress func(done, total int)
}

// RowModes are the modes of a generation chosen by its caller (GenerateOptions.Modes).
type RowModes struct {
	// Prompt holds each prompt's modes, one per token.
	Prompt [][]oryx.Mode
	// Decode is the mode of row's generated token fed at absolute position pos after a promptLen-token
	// prompt.
	Decode func(row, pos, promptLen int) (oryx.Mode, error)
	// Escalation, when set, decides the generated tokens' modes instead of Decode: the running escalation of
	// an entropy budget (schedule.NewEscalation over the prompts' modes and entropies; escalate.go).
	Escalation *schedule.Escalation
}

// Generation is the result of Engine.Generate.
type Generation struct {
	// Tokens holds the generated tokens per prompt: at most MaxTokens, the stop token included, nothing after.
	Tokens [][]int32
	// Modes holds the mode each generated token is run in as the input of a decode step (DecodeMode at its
	// absolute position), aligned with Tokens. The last token of a row is never fed to the model, so its
	// entry is the mode it would have been fed in. Single-mixer variants report their only mixer
	// (Attention for the Transformer, Linear for Mamba-2 and GDN).
	Modes [][]oryx.Mode
	// AttentionFraction is the fraction of the tokens actually processed by the model that ran in
	// attention mode. Processed tokens are every prompt token plus every generated token that was fed back
	// (all of a row's generated tokens but its last: a row's last token, whether a stop token or the
	// MaxTokens-th, is sampled but never fed). The dummy tokens fed to rows that have already stopped, which
	// only keep the batch aligned, are not counted. Example: a 6-token prompt with "attention-last:2" and 4
	// generated tokens (attention) processes 6 + 3 tokens, 2 + 3 in attention mode: 5/9.
	AttentionFraction float64
	// PromptTokens is the total number of prompt tokens; GeneratedTokens the total number of generated
	// tokens (the sum of len(Tokens[b])).
	PromptTokens, GeneratedTokens int
	// PrefillSeconds is the wall time of the prefill; DecodeSeconds that of everything after it (sampling
	// and decode steps).
	PrefillSeconds, DecodeSeconds float64
	// Speculation holds the rounds of GenerateSpeculative (nil for Generate).
	Speculation *SpeculationStats
}

// Generate continues each prompt (one per engine row, lengths may differ, each ≥ 1) by up to
// opts.MaxTokens tokens: it prefills the prompts with the schedule's modes (or the caller's, opts.Modes),
// samples the first token from the prefill's last logits, then feeds each new token with Step in the mode
// DecodeMode(spec, pos, promptLen) (pos = its absolute position; or the caller's rule) and samples the next
// one from the step's logits. A row stops after a stop token, at its RowMaxTokens cap or where StopAfter
// says; until every row has stopped it keeps being fed a dummy token (its last one, in linear mode) so the
// batch stays aligned, with its outputs ignored. The engine's state is replaced (Prefill); the engine is
// left after the last step. It is the project's one decoding loop: `oryx generate` (textgen) and the
// evaluations' generation (evals/oryxlm) run through it.
//
// Every argument is checked before any work: batch size, empty prompts, tokens and stop tokens inside the
// vocabulary, MaxTokens > 0, the spec (random specs are refused), the sampler, and the cache capacity:
// each row needs promptLen + MaxTokens − 1 ≤ Capacity (the last sampled token is not fed; with RowMaxTokens,
// the largest cap in place of MaxTokens: checkCapacity).
func (e *Engine) Generate(prompts [][]int32, opts GenerateOptions) (*Generation, error) {
	const fn = "Engine.Generate"
	plan, err := e.planGenerate(fn, prompts, opts)
	if err != nil {
		return nil, err
	}
	sampler, lengths, multi := plan.sampler, plan.lengths, plan.multi
	gen, processed, attention := plan.newGeneration()

	// Prefill and the first token.
	start := time.Now()
	logits, err := e.Prefill(prompts, plan.promptModes)
	if err != nil {
		return nil, fmt.Errorf("%s: prefill: %w", fn, err)
	}
	gen.PrefillSeconds = time.Since(start).Seconds()
	start = time.Now()

	stopped := make([]bool, e.batch)
	// appendToken samples row b's next token from its logits and records it with the mode it will be fed in.
	appendToken := func(b int, row []float32) error {
		tok, err := sampler.Sample(row)
		if err != nil {
			return fmt.Errorf("%s: row %d, token %d: %w", fn, b, len(gen.Tokens[b]), err)
		}
		pos := lengths[b] + len(gen.Tokens[b])
		m, err := plan.decodeMode(b, pos, lengths[b])
		if err != nil {
			return fmt.Errorf("%s: row %d: %w", fn, b, err)
		}
		gen.Tokens[b] = append(gen.Tokens[b], int32(tok))
		gen.Modes[b] = append(gen.Modes[b], m)
		if slices.Contains(opts.Stop, int32(tok)) || len(gen.Tokens[b]) == plan.maxTokens[b] ||
			opts.StopAfter != nil && opts.StopAfter(b, gen.Tokens[b]) {
			stopped[b] = true
		}
		return nil
	}
	for b := range e.batch {
		if err := appendToken(b, logits[b]); err != nil {
			return nil, err
		}
	}
	if opts.Progress != nil {
		opts.Progress(1, opts.MaxTokens)
	}

	// Decode: feed each running row's last token, sample its next one.
	tokens := make([]int32, e.batch)
	var modes []oryx.Mode
	if multi {
		modes = make([]oryx.Mode, e.batch)
	}
	for done := 1; done < opts.MaxTokens && slices.Contains(stopped, false); done++ {
		for b := range e.batch {
			last := len(gen.Tokens[b]) - 1
			tokens[b] = gen.Tokens[b][last]
			m := gen.Modes[b][last]
			if stopped[b] {
				m = oryx.Linear // dummy input, not counted
			} else {
				processed++
				if m == oryx.Attention {
					attention++
				}
			}
			if multi {
				modes[b] = m
			}
		}
		logits, escalated, err := e.decodeStep(plan.esc, tokens, modes, stopped, lengths, gen)
		attention += escalated
		if err != nil {
			return nil, fmt.Errorf("%s: decode step %d: %w", fn, done, err)
		}
		for b := range e.batch {
			if !stopped[b] {
				if err := appendToken(b, logits[b]); err != nil {
					return nil, err
				}
			}
		}
		if opts.Progress != nil {
			opts.Progress(done+1, opts.MaxTokens)
		}
	}

	gen.DecodeSeconds = time.Since(start).Seconds()
	for _, t := range gen.Tokens {
		gen.GeneratedTokens += len(t)
	}
	gen.AttentionFraction = float64(attention) / float64(processed)
	return gen, nil
}

// genPlan is a checked Generate or GenerateSpeculative call: the prompts' lengths and modes, the rule for the
// modes of generated tokens and the sampler.
type genPlan struct {
	lengths     []int
	maxTokens   []int         // each row's cap (GenerateOptions.RowMaxTokens, else MaxTokens)
	multi       bool          // a multi-mixer variant: modes come from spec
	spec        schedule.Spec // the schedule spec ("attention" when empty for multi-mixer variants)
	single      oryx.Mode     // the only mode of a single-mixer variant
	promptModes [][]oryx.Mode
	sampler     *Sampler
	esc         *schedule.Escalation                             // budget:F:entropy: the running escalation budget (escalate.go); nil otherwise
	decode      func(row, pos, promptLen int) (oryx.Mode, error) // the caller's rule (RowModes.Decode); nil: spec's
}

// planGenerate checks every argument of a generation before any work (errors start with fn): batch size,
// empty prompts, tokens and stop tokens inside the vocabulary, MaxTokens > 0, the cache capacity, the
// sampler and the spec (random specs are refused).
func (e *Engine) planGenerate(fn string, prompts [][]int32, opts GenerateOptions) (*genPlan, error) {
	vocab := e.model.Config.Vocab
	if len(prompts) != e.batch {
		return nil, fmt.Errorf("%s: %d prompts for an engine of %d rows (batch); pass exactly one prompt per row",
			fn, len(prompts), e.batch)
	}
	if opts.MaxTokens <= 0 {
		return nil, fmt.Errorf("%s: MaxTokens must be > 0, got %d", fn, opts.MaxTokens)
	}
	lengths := make([]int, len(prompts))
	for b, p := range prompts {
		if len(p) == 0 {
			return nil, fmt.Errorf("%s: prompt %d is empty (every prompt needs at least one token)", fn, b)
		}
		if err := e.checkTokens(p); err != nil {
			return nil, fmt.Errorf("%s: prompt %d: %w", fn, b, err)
		}
		lengths[b] = len(p)
	}
	for i, t := range opts.Stop {
		if t < 0 || int(t) >= vocab {
			return nil, fmt.Errorf("%s: stop token %d (Stop[%d]) is outside the vocabulary [0, %d)%s", fn, t, i, vocab,
				oryx.ByteTokenizerVocabHint(int(t), vocab))
		}
	}
	maxTokens, err := rowMaxTokens(fn, opts, len(prompts))
	if err != nil {
		return nil, err
	}
	if err := e.checkCapacity(fn, lengths, maxTokens, opts.RowMaxTokens != nil); err != nil {
		return nil, err
	}
	p := &genPlan{lengths: lengths, maxTokens: maxTokens, multi: e.model.Config.Variant.IsMultiMixer(), sampler: opts.Sampler,
		single: oryx.Linear}
	if p.sampler == nil {
		p.sampler = Greedy()
	}
	if err := p.sampler.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	if e.model.Config.Variant.HasAttention() {
		p.single = oryx.Attention
	}

	if opts.Modes != nil {
		return p, p.callerModes(fn, opts)
	}
	// Schedule: prompt modes and the rule for generated tokens.
	text := strings.TrimSpace(opts.Schedule)
	if text == "" && p.multi {
		text = "attention"
	}
	if text != "" {
		if p.spec, err = schedule.ParseSpec(text, schedule.ForDecoding); err != nil { // refuses random specs
			return nil, fmt.Errorf("%s: %w", fn, err)
		}
	}
	entropyModes, esc, err := e.entropyPrompt(p.spec, prompts) // budget:F:entropy only (escalate.go)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	p.esc = esc
	if p.multi && esc != nil {
		p.promptModes = entropyModes
	} else if p.multi {
		sched, err := p.spec.ScheduleRows(lengths, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fn, err)
		}
		p.promptModes = make([][]oryx.Mode, e.batch)
		for b := range p.promptModes {
			p.promptModes[b] = sched.Row(b)
		}
	}
	return p, nil
}

// checkCapacity refuses a generation whose rows would overrun the cache: every row is fed until the last
// running row ends (a row that has stopped, at a stop token or its own cap, is fed dummy tokens), so row b
// needs lengths[b] + max(maxTokens) − 1 positions. It compares max(maxTokens) − 1 with capacity − lengths[b]:
// the sum wraps for a MaxTokens near math.MaxInt (it passed, and the generation ran until the cache was full).
func (e *Engine) checkCapacity(fn string, lengths, maxTokens []int, rowCaps bool) error {
	longest := slices.Max(maxTokens)
	for b, n := range lengths {
		if longest-1 <= e.capacity-n {
			continue
		}
		need := fmt.Sprint(n + longest - 1)
		if longest-1 > math.MaxInt-n {
			need = fmt.Sprintf("more than %d", e.capacity)
		}
		what := fmt.Sprintf("MaxTokens %d − 1", longest)
		if rowCaps {
			what = fmt.Sprintf("the largest RowMaxTokens %d − 1: a row that has stopped is fed until the last row ends", longest)
		}
		return fmt.Errorf("%s: row %d needs %s cache positions (prompt of %d tokens + %s) "+
			"but the engine's capacity is %d: shorten the prompt, lower MaxTokens or create the engine with a larger capacity",
			fn, b, need, n, what, e.capacity)
	}
	return nil
}

// rowMaxTokens is each row's cap on generated tokens: opts.RowMaxTokens, checked, or MaxTokens for every row.
func rowMaxTokens(fn string, opts GenerateOptions, rows int) ([]int, error) {
	if opts.RowMaxTokens == nil {
		return slices.Repeat([]int{opts.MaxTokens}, rows), nil
	}
	if len(opts.RowMaxTokens) != rows {
		return nil, fmt.Errorf("%s: RowMaxTokens has %d entries for %d prompts", fn, len(opts.RowMaxTokens), rows)
	}
	for b, n := range opts.RowMaxTokens {
		if n < 1 || n > opts.MaxTokens {
			return nil, fmt.Errorf("%s: RowMaxTokens[%d] = %d, want [1, MaxTokens = %d]", fn, b, n, opts.MaxTokens)
		}
	}
	return opts.RowMaxTokens, nil
}

// callerModes takes the caller's modes (GenerateOptions.Modes) for a multi-mixer variant, checked against the
// prompts: one mode per prompt token, and a rule for the generated tokens.
func (p *genPlan) callerModes(fn string, opts GenerateOptions) error {
	if strings.TrimSpace(opts.Schedule) != "" {
		return fmt.Errorf("%s: Schedule %q and Modes are exclusive: the modes come from one or the other", fn, opts.Schedule)
	}
	if !p.multi {
		return nil
	}
	m := opts.Modes
	if len(m.Prompt) != len(p.lengths) {
		return fmt.Errorf("%s: Modes.Prompt has %d rows for %d prompts", fn, len(m.Prompt), len(p.lengths))
	}
	for b, n := range p.lengths {
		if len(m.Prompt[b]) != n {
			return fmt.Errorf("%s: Modes.Prompt[%d] has %d modes for a prompt of %d tokens", fn, b, len(m.Prompt[b]), n)
		}
	}
	if m.Decode == nil && m.Escalation == nil {
		return fmt.Errorf("%s: Modes needs Decode or Escalation, the rule for the generated tokens' modes", fn)
	}
	p.promptModes, p.esc, p.decode = m.Prompt, m.Escalation, m.Decode
	return nil
}

// decodeMode is the mode of row's generated token at absolute position pos after a promptLen-token prompt.
func (p *genPlan) decodeMode(row, pos, promptLen int) (oryx.Mode, error) {
	if !p.multi {
		return p.single, nil
	}
	if p.esc != nil { // tentative: decodeStep escalates (escalate.go)
		m, _ := p.esc.Fixed()
		return m, nil
	}
	if p.decode != nil {
		return p.decode(row, pos, promptLen)
	}
	return p.spec.DecodeMode(pos, promptLen)
}

// newGeneration starts the result: empty rows, the prompt tokens counted, and the number of prompt tokens
// processed and of those in attention mode (for AttentionFraction).
func (p *genPlan) newGeneration() (gen *Generation, processed, attention int) {
	gen = &Generation{Tokens: make([][]int32, len(p.lengths)), Modes: make([][]oryx.Mode, len(p.lengths))}
	for b, n := range p.lengths {
		gen.PromptTokens += n
		processed += n
		if p.multi {
			for _, m := range p.promptModes[b] {
				if m == oryx.Attention {
					attention++
				}
			}
		} else if p.single == oryx.Attention {
			attention += n
		}
	}
	return gen, processed, attention
}
