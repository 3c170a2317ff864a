package schedule

// Schedule specs: the one parser of the strings commands accept with --schedule (ParseSpec), and what a
// parsed spec gives — schedules of any batch and lengths, the modes of generated tokens, its budget.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/oryx-go/oryx/oryx"
)

// specKind enumerates the forms of a schedule spec.
type specKind int

const (
	specAttention specKind = iota
	specLinear
	specBlock
	specSequence
	specLinearUntil
	specAttentionLast
	specPrefillAttention
	specRanges
	specBudget
)

// modeRange is one "MODE:FROM-TO" item of a range spec; to < 0 means open-ended.
type modeRange struct {
	mode     oryx.Mode
	from, to int
}

// parsedSpec is a spec checked once, independent of batch size and lengths.
type parsedSpec struct {
	kind     specKind
	blockLen int         // specBlock
	p        float64     // specBlock, specSequence
	n        int         // specLinearUntil (P), specAttentionLast (N)
	ranges   []modeRange // specRanges
	budget   Budget      // specBudget
}

// Spec is a parsed schedule spec (ParseSpec).
type Spec struct {
	text   string
	parsed parsedSpec
}

// SpecOption is a requirement ParseSpec checks beyond the grammar.
type SpecOption int

const (
	// ForDecoding requires the spec to define the mode of generated tokens (Engine.Generate, `oryx
	// generate`): every spec but the random ones (block, sequence) and budget:F:question, which has no
	// question to read in plain generation. budget:F:entropy is accepted: its modes are decided at run time.
	ForDecoding SpecOption = iota + 1
)

// ParseSpec parses a schedule spec, the value commands accept with --schedule: the one parser of schedule
// strings. The spec then builds schedules (Schedule, ScheduleRows), gives generated tokens' modes
// (DecodeMode) and says whether it is a budget (Budget). With ForDecoding it must also define the mode of
// generated tokens. Keywords and modes are case-insensitive; spaces around items are ignored.
//
// Grammar (P, N, LEN, FROM, TO are non-negative integers, PROB a number in [0, 1]):
//
//	spec           = all-attention | all-linear | block | sequence
//	               | linear-until | attention-last | prefill-attention | budget | ranges
//	all-attention  = "attention" | "all-attention" | "A"
//	all-linear     = "linear" | "all-linear" | "L"
//	block          = "block" [ ":" LEN [ ":" PROB ] ]     block-wise random, default 128 and 0.5
//	sequence       = "sequence" [ ":" PROB ]              one random mode per row, default 0.5
//	linear-until   = "linear-until:" P                    linear for positions < P, attention from P on
//	attention-last = "attention-last:" N                  linear except the last N positions of each row
//	prefill-attention = "prefill-attention"               attention for the whole prompt (= "attention"
//	                                                      here); generated tokens are linear (DecodeMode)
//	budget         = "budget:" F ":" POLICY [ ":" H ]     exactly BudgetCount(F, T) attention tokens per row,
//	                                                      placed by POLICY: last | question | random |
//	                                                      entropy (budget.go; question and entropy need
//	                                                      the task's split or a linear pass: Budget.Modes)
//	ranges         = range { "," range }
//	range          = MODE ":" FROM [ "-" [ TO ] ]         TO inclusive; "FROM-" runs to the end of the row;
//	                                                      "FROM" alone is the single position FROM
//	MODE           = "A" | "attention" | "L" | "linear"
//
// Ranges: positions no range covers are linear; when ranges overlap the later one wins (so
// "A:0-,L:10-19" is attention except 10–19); ranges are absolute positions and the parts beyond a row's
// end are ignored, so one range spec serves rows of different lengths.
//
// The two readings of "<10 % attention tokens" in docs/model.md §6 are "attention-last:N" (long context in
// linear mode, the question and the answer in attention mode) and "prefill-attention" (prompt in
// attention mode, generation in linear mode). Errors name the spec and the bad part, e.g.
// `schedule "block:0:0.5": block length must be > 0, got 0`.
func ParseSpec(spec string, opts ...SpecOption) (Spec, error) {
	ps, err := parseSpec(spec)
	if err != nil {
		return Spec{}, err
	}
	s := Spec{text: spec, parsed: ps}
	for _, o := range opts {
		if o != ForDecoding {
			return Spec{}, fmt.Errorf("schedule %q: unknown SpecOption %d", spec, o)
		}
		if ps.kind == specBudget {
			if ps.budget.Policy == PolicyQuestion {
				return Spec{}, fmt.Errorf("schedule %q: the question policy needs a task's question split; generation has none (use budget:F:last or budget:F:entropy)", spec)
			}
			continue
		}
		if _, err := s.DecodeMode(0, 0); err != nil {
			return Spec{}, err
		}
	}
	return s, nil
}

// String is the spec as it was written.
func (s Spec) String() string { return s.text }

// Budget returns the spec's budget when it is a "budget:F:POLICY" spec.
func (s Spec) Budget() (Budget, bool) { return s.parsed.budget, s.parsed.kind == specBudget }

// Schedule builds the b × t schedule of the spec; seed is used only by the random forms.
func (s Spec) Schedule(b, t int, seed uint64) (*Schedule, error) {
	if b <= 0 {
		return nil, fmt.Errorf("schedule %q: batch b must be > 0, got %d", s.text, b)
	}
	if t <= 0 {
		return nil, fmt.Errorf("schedule %q: length t must be > 0, got %d", s.text, t)
	}
	return s.ScheduleRows(uniformLengths(b, t), seed)
}

// ScheduleRows builds the schedule of rows of different lengths, one per entry of lengths (the prompts of a
// generation batch); seed is used only by the random forms. Every form is applied to each row at its own length, so "attention-last:N" marks
// the last N tokens of each prompt. Random forms give each row its own stream (see BlockRandom), so a
// row's modes do not depend on the other rows' lengths.
func (s Spec) ScheduleRows(lengths []int, seed uint64) (*Schedule, error) {
	spec, ps := s.text, s.parsed
	if len(lengths) == 0 {
		return nil, fmt.Errorf("schedule %q: lengths: batch must be > 0, got no rows", spec)
	}
	for b, n := range lengths {
		if n <= 0 {
			return nil, fmt.Errorf("schedule %q: lengths[%d] must be > 0, got %d", spec, b, n)
		}
	}
	var f rowFiller
	switch ps.kind {
	case specAttention, specPrefillAttention:
		f = func(_ int, row []oryx.Mode, _ *rand.Rand) { fill(row, oryx.Attention) }
	case specLinear:
		f = func(_ int, row []oryx.Mode, _ *rand.Rand) { fill(row, oryx.Linear) }
	case specBlock:
		f = blockRandomRow(ps.blockLen, ps.p)
	case specSequence:
		f = sequenceRandomRow(ps.p)
	case specLinearUntil:
		f = func(_ int, row []oryx.Mode, _ *rand.Rand) {
			for t := range row {
				row[t] = modeIf(t >= ps.n)
			}
		}
	case specAttentionLast:
		f = func(_ int, row []oryx.Mode, _ *rand.Rand) {
			for t := range row {
				row[t] = modeIf(t >= len(row)-ps.n)
			}
		}
	case specRanges:
		f = rangesRow(ps.ranges)
	case specBudget:
		return budgetRows(spec, ps.budget, lengths, seed)
	}
	return buildRows(lengths, seed, f), nil
}

// DecodeMode returns the mode of a generated token at absolute position pos (pos ≥ promptLen) under the spec:
//
//   - attention, attention-last:N → attention (reading (a) of docs/model.md §6: generated tokens are in
//     attention mode with the last N prompt tokens);
//   - linear, prefill-attention → linear (reading (b): generation in recurrent mode);
//   - linear-until:P → attention iff pos ≥ P;
//   - ranges → the range rule at pos (later range wins; beyond every range linear, so only an open-ended
//     range reaches generated tokens);
//   - block, sequence → error: random schedules do not define generated-token modes;
//   - budget:F:last, budget:F:question, budget:F:random → attention iff BudgetCount(F, pos+1) >
//     BudgetCount(F, pos): the running budget (budget.go);
//   - budget:F:entropy → error: the mode is decided per token at run time (Engine.Generate, Escalation);
//     except at F = 0 (linear) and F = 1 (attention), where nothing is left to decide.
func (s Spec) DecodeMode(pos, promptLen int) (oryx.Mode, error) {
	spec, ps := s.text, s.parsed
	if promptLen < 0 {
		return oryx.Linear, fmt.Errorf("schedule %q: promptLen must be ≥ 0, got %d", spec, promptLen)
	}
	if pos < promptLen {
		return oryx.Linear, fmt.Errorf("schedule %q: pos %d is inside the prompt (promptLen %d); DecodeMode is for generated tokens",
			spec, pos, promptLen)
	}
	switch ps.kind {
	case specAttention, specAttentionLast:
		return oryx.Attention, nil
	case specLinear, specPrefillAttention:
		return oryx.Linear, nil
	case specLinearUntil:
		return modeIf(pos >= ps.n), nil
	case specRanges:
		return modeFromRanges(ps.ranges, pos), nil
	case specBudget:
		if f := ps.budget.Fraction; ps.budget.Policy == PolicyEntropy && f != 0 && f != 1 {
			return oryx.Linear, fmt.Errorf("schedule %q: the entropy policy decides each generated token's mode at run time "+
				"(Engine.Generate escalates it; see Escalation)", spec)
		}
		return budgetDecodeMode(ps.budget.Fraction, pos), nil
	}
	return oryx.Linear, fmt.Errorf("schedule %q: random schedules do not define generated-token modes", spec)
}

// parseSpec parses every spec form; errors are prefixed with `schedule "<spec>": `.
func parseSpec(spec string) (parsedSpec, error) {
	errf := func(format string, args ...any) error {
		return fmt.Errorf("schedule %q: %s", spec, fmt.Sprintf(format, args...))
	}
	s := strings.TrimSpace(spec)
	if s == "" {
		return parsedSpec{}, errf("empty spec")
	}
	head, rest, hasArgs := strings.Cut(s, ":")
	head = strings.ToLower(strings.TrimSpace(head))
	var args []string
	if hasArgs {
		args = strings.Split(rest, ":")
	}
	noArgs := func(kind specKind) (parsedSpec, error) {
		if hasArgs {
			return parsedSpec{}, errf("%q takes no arguments", head)
		}
		return parsedSpec{kind: kind}, nil
	}
	switch head {
	case "attention", "all-attention", "a":
		if hasArgs && (head == "a" || head == "attention") {
			break // "A:0-9,..." is a range spec
		}
		return noArgs(specAttention)
	case "linear", "all-linear", "l":
		if hasArgs && (head == "l" || head == "linear") {
			break
		}
		return noArgs(specLinear)
	case "prefill-attention":
		return noArgs(specPrefillAttention)
	case "block":
		ps := parsedSpec{kind: specBlock, blockLen: DefaultBlockLen, p: DefaultAttentionProb}
		if len(args) > 2 {
			return parsedSpec{}, errf("block takes at most 2 arguments (block:LEN:PROB), got %d", len(args))
		}
		if len(args) >= 1 {
			n, err := strconv.Atoi(strings.TrimSpace(args[0]))
			if err != nil {
				return parsedSpec{}, errf("block length %q is not an integer", args[0])
			}
			if n <= 0 {
				return parsedSpec{}, errf("block length must be > 0, got %d", n)
			}
			ps.blockLen = n
		}
		if len(args) == 2 {
			p, err := parseProb(args[1])
			if err != nil {
				return parsedSpec{}, errf("%v", err)
			}
			ps.p = p
		}
		return ps, nil
	case "sequence":
		ps := parsedSpec{kind: specSequence, p: DefaultAttentionProb}
		if len(args) > 1 {
			return parsedSpec{}, errf("sequence takes at most 1 argument (sequence:PROB), got %d", len(args))
		}
		if len(args) == 1 {
			p, err := parseProb(args[0])
			if err != nil {
				return parsedSpec{}, errf("%v", err)
			}
			ps.p = p
		}
		return ps, nil
	case "budget":
		b, _, err := parseBudget(spec)
		if err != nil {
			return parsedSpec{}, err
		}
		return parsedSpec{kind: specBudget, budget: b}, nil
	case "linear-until", "attention-last":
		name := map[string]string{"linear-until": "P", "attention-last": "N"}[head]
		if len(args) != 1 {
			return parsedSpec{}, errf("%s needs exactly one argument (%s:%s)", head, head, name)
		}
		n, err := strconv.Atoi(strings.TrimSpace(args[0]))
		if err != nil {
			return parsedSpec{}, errf("%s: %s %q is not an integer", head, name, args[0])
		}
		if n < 0 {
			return parsedSpec{}, errf("%s: %s must be ≥ 0, got %d", head, name, n)
		}
		kind := specLinearUntil
		if head == "attention-last" {
			kind = specAttentionLast
		}
		return parsedSpec{kind: kind, n: n}, nil
	default:
		if !hasArgs {
			return parsedSpec{}, errf("unknown schedule %q (want attention, linear, block[:LEN[:PROB]], "+
				"sequence[:PROB], linear-until:P, attention-last:N, prefill-attention, budget:F:POLICY or MODE:FROM-TO,...)", head)
		}
	}
	ranges, err := parseRanges(spec)
	if err != nil {
		return parsedSpec{}, err
	}
	return parsedSpec{kind: specRanges, ranges: ranges}, nil
}

// parseProb parses an attention probability in [0, 1].
func parseProb(s string) (float64, error) {
	p, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("attention probability %q is not a number", s)
	}
	if math.IsNaN(p) || p < 0 || p > 1 {
		return 0, fmt.Errorf("attention probability must be in [0, 1], got %v", p)
	}
	return p, nil
}

// parseRanges parses "MODE:FROM-TO,MODE:FROM-,MODE:POS,...".
func parseRanges(spec string) ([]modeRange, error) {
	errf := func(format string, args ...any) error {
		return fmt.Errorf("schedule %q: %s", spec, fmt.Sprintf(format, args...))
	}
	if strings.TrimSpace(spec) == "" {
		return nil, errf("empty range list")
	}
	var ranges []modeRange
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, errf("empty range item")
		}
		modeStr, posStr, ok := strings.Cut(item, ":")
		if !ok {
			return nil, errf("range %q: want MODE:FROM-TO", item)
		}
		m, err := oryx.ParseMode(modeStr)
		if err != nil {
			return nil, errf("range %q: %v", item, err)
		}
		fromStr, toStr, hasDash := strings.Cut(posStr, "-")
		from, err := strconv.Atoi(strings.TrimSpace(fromStr))
		if err != nil || from < 0 {
			return nil, errf("range %q: start %q is not a non-negative integer", item, fromStr)
		}
		r := modeRange{mode: m, from: from, to: from}
		if hasDash {
			toStr = strings.TrimSpace(toStr)
			if toStr == "" {
				r.to = -1
			} else {
				to, err := strconv.Atoi(toStr)
				if err != nil || to < 0 {
					return nil, errf("range %q: end %q is not a non-negative integer", item, toStr)
				}
				if to < from {
					return nil, errf("range %q: end %d is before start %d", item, to, from)
				}
				r.to = to
			}
		}
		ranges = append(ranges, r)
	}
	return ranges, nil
}
