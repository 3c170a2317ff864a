package schedule

// Schedules chosen at inference: a budget of attention tokens and a policy that places them.
//
//	spec = "budget:" F ":" POLICY [ ":" H ]      F ∈ [0, 1], POLICY ∈ last | question | random | entropy,
//	                                             H (entropy only) a threshold in nats for generated tokens
//
// A row of T tokens gets exactly n = BudgetCount(F, T) = ⌊F·T + ½⌋ attention tokens; the policy says which:
//
//   - last: the last n positions.
//   - question: the task's question positions first (the split the evaluation's mixed setting uses:
//     MQAR's query keys, a NIAH question, an LM task's answer-predicting positions), latest first when there
//     are more than n; when there are fewer, the remaining budget goes to the latest other positions (those
//     just before the question). Needs the task's split: the evaluations supply it, plain generation has none.
//   - random: n positions drawn uniformly without replacement from the row's own seeded stream (a control).
//   - entropy (adaptive): a first pass reads every token in linear mode and scores each position t by the
//     entropy H_t = −Σ_v p_v log p_v of the linear readout's next-token distribution there (the model's
//     full output width); the n positions of highest H_t (ties: the later position) are recomputed in
//     attention mode by a second, full pass with that mode vector. Cost: the whole sequence is computed
//     twice — the linear pass (forward and LM head at every position) and the pass that is used. At n = 0
//     the linear pass is the answer (no second pass); at n = T no linear pass is needed (all attention).
//     The second pass must redo everything: a token's readout changes its hidden state, hence the keys,
//     values and linear-state updates it writes in every later layer, hence every later position.
//
// Generated tokens (decoding) spend the budget as it accrues, so that after the k-th token processed (prompt
// and fed-back tokens) at most BudgetCount(F, k) are in attention:
//
//   - last, question, random: a token fed at position pos is in attention iff BudgetCount(F, pos+1) >
//     BudgetCount(F, pos) — the budget grew by one (evenly spaced, a fraction ≈ F of the generated tokens;
//     every one at F = 1, none at F = 0). See DecodeMode.
//   - entropy: the token is first run as a trial step in linear mode (not committed); if the entropy of
//     that step's next-token distribution exceeds the row's threshold H and the running budget allows
//     (attention so far + 1 ≤ BudgetCount(F, pos+1)), the step is rerun from the same state in attention
//     mode and that one is committed (Engine.StepEscalate). H is the spec's, else the prompt's cut-off: the
//     lowest entropy among the prompt positions the linear pass put in attention (the highest of the prompt
//     when none was), so a generated token escalates when it is as uncertain as the prompt positions that
//     were. Cost: every candidate token's step runs once in linear mode, and the escalated ones (≤ F of the
//     tokens) a second time, from the same state, in attention mode — the escalated tokens' decode step is
//     what is computed twice. The trial reads no KV cache (a linear readout does not) and writes none: a
//     committed trial appends its token's keys and values in place afterwards, so the trial's cost does
//     not grow with the context; it copies only the linear and conv states (O(H·K·V) per layer), which an
//     escalation reruns from. At F = 0 and F = 1 no trial runs.

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/oryx-go/oryx/oryx"
)

// Policy is how a Budget places its attention tokens.
type Policy string

// The budget policies (see the file comment for the exact rules).
const (
	PolicyLast     Policy = "last"
	PolicyQuestion Policy = "question"
	PolicyRandom   Policy = "random"
	PolicyEntropy  Policy = "entropy"
)

// Policies lists the policies in the order they are documented.
var Policies = []Policy{PolicyLast, PolicyQuestion, PolicyRandom, PolicyEntropy}

// Budget is a parsed "budget:F:POLICY[:H]" spec.
type Budget struct {
	Fraction float64 // F ∈ [0, 1]: the fraction of tokens in attention mode
	Policy   Policy
	// Threshold is the entropy (nats) above which a generated token escalates to attention (PolicyEntropy);
	// NaN means the prompt's cut-off (see the file comment).
	Threshold float64
}

// String renders the spec: "budget:0.05:entropy" (and ":H" when a threshold is set).
func (b Budget) String() string {
	s := fmt.Sprintf("budget:%s:%s", strconv.FormatFloat(b.Fraction, 'g', -1, 64), b.Policy)
	if b.Policy == PolicyEntropy && !math.IsNaN(b.Threshold) {
		s += ":" + strconv.FormatFloat(b.Threshold, 'g', -1, 64)
	}
	return s
}

// BudgetSpec returns the spec string of fraction f and policy p ("budget:0.1:last").
func BudgetSpec(f float64, p Policy) string {
	return Budget{Fraction: f, Policy: p, Threshold: math.NaN()}.String()
}

// parseBudget reads a "budget:F:POLICY[:H]" spec (ParseSpec's budget form). ok is false (and err nil) when
// spec is another kind of schedule; err names the spec and the bad part.
func parseBudget(spec string) (b Budget, ok bool, err error) {
	head, rest, has := strings.Cut(strings.TrimSpace(spec), ":")
	if !strings.EqualFold(strings.TrimSpace(head), "budget") {
		return Budget{}, false, nil
	}
	errf := func(format string, args ...any) (Budget, bool, error) {
		return Budget{}, true, fmt.Errorf("schedule %q: %s", spec, fmt.Sprintf(format, args...))
	}
	args := strings.Split(rest, ":")
	if !has || len(args) < 2 || len(args) > 3 {
		return errf("want budget:F:POLICY (F the attention fraction in [0, 1], POLICY one of %s) or budget:F:entropy:H", policyList())
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(args[0]), 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
		return errf("budget fraction %q: want a number in [0, 1]", args[0])
	}
	p := Policy(strings.ToLower(strings.TrimSpace(args[1])))
	if !slices.Contains(Policies, p) {
		return errf("unknown budget policy %q (want one of %s)", args[1], policyList())
	}
	b = Budget{Fraction: f, Policy: p, Threshold: math.NaN()}
	if len(args) == 3 {
		if p != PolicyEntropy {
			return errf("only the entropy policy takes a threshold (budget:F:entropy:H), not %s", p)
		}
		h, err := strconv.ParseFloat(strings.TrimSpace(args[2]), 64)
		if err != nil || math.IsNaN(h) || h < 0 {
			return errf("entropy threshold %q: want a number of nats ≥ 0", args[2])
		}
		b.Threshold = h
	}
	return b, true, nil
}

func policyList() string {
	s := make([]string, len(Policies))
	for i, p := range Policies {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

// BudgetCount is the number of attention tokens a budget of fraction f gives a row of t tokens: F·t rounded
// half up, ⌊f·t + ½⌋ (in float64), within [0, t].
func BudgetCount(f float64, t int) int {
	return min(max(int(math.Floor(f*float64(t)+0.5)), 0), max(t, 0))
}

// Modes places the budget on a row of t tokens: exactly BudgetCount(b.Fraction, t) positions in attention,
// chosen by the policy. question (PolicyQuestion; t entries, true at the task's question positions),
// entropy (PolicyEntropy; t entries, the linear readout's entropy at each position) and rng (PolicyRandom)
// are read only by their policy; a policy's missing input is an error.
func (b Budget) Modes(t int, question []bool, entropy []float64, rng *rand.Rand) ([]oryx.Mode, error) {
	if t <= 0 {
		return nil, fmt.Errorf("%s: row length must be > 0, got %d", b, t)
	}
	n := BudgetCount(b.Fraction, t)
	row := make([]oryx.Mode, t)
	var order []int // positions, the most wanted first
	switch b.Policy {
	case PolicyLast:
		for p := t - 1; p >= t-n; p-- {
			row[p] = oryx.Attention
		}
		return row, nil
	case PolicyRandom:
		if rng == nil {
			return nil, fmt.Errorf("%s: the random policy needs a random stream", b)
		}
		order = rng.Perm(t)
	case PolicyQuestion:
		if len(question) != t {
			return nil, fmt.Errorf("%s: the question policy needs the task's question positions (%d entries for %d tokens)", b, len(question), t)
		}
		order = byKey(t, func(p int) int { return boolInt(question[p]) }, cmp.Compare[int])
	case PolicyEntropy:
		if len(entropy) != t {
			return nil, fmt.Errorf("%s: the entropy policy needs the linear readout's entropy at each position (%d entries for %d tokens)", b, len(entropy), t)
		}
		order = byKey(t, func(p int) float64 { return entropy[p] }, cmpNaNLow)
	default:
		return nil, fmt.Errorf("%s: unknown policy", b)
	}
	for _, p := range order[:n] {
		row[p] = oryx.Attention
	}
	return row, nil
}

// byKey returns the positions 0..t-1 sorted by key descending (by compare), ties broken by the later
// position first.
func byKey[K any](t int, key func(int) K, compare func(a, b K) int) []int {
	order := make([]int, t)
	for i := range order {
		order[i] = t - 1 - i
	}
	slices.SortStableFunc(order, func(a, b int) int { return compare(key(b), key(a)) })
	return order
}

// cmpNaNLow compares floats with NaN below every number (a NaN entropy is never preferred).
func cmpNaNLow(a, b float64) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return -1
	case bn:
		return 1
	}
	return cmp.Compare(a, b)
}

func boolInt(x bool) int {
	if x {
		return 1
	}
	return 0
}

// budgetDecodeMode is the running-budget rule of the static policies for a generated token fed at pos.
func budgetDecodeMode(f float64, pos int) oryx.Mode {
	return modeIf(BudgetCount(f, pos+1) > BudgetCount(f, pos))
}

// EntropyThreshold is the decoding threshold of an entropy budget for a row whose prompt had the linear
// entropies promptEntropy: b.Threshold when set, else the lowest entropy among the BudgetCount(F, P)
// highest (the prompt positions put in attention), else — when that count is 0 — the prompt's highest.
func (b Budget) EntropyThreshold(promptEntropy []float64) float64 {
	if !math.IsNaN(b.Threshold) || len(promptEntropy) == 0 {
		return b.Threshold
	}
	e := slices.Clone(promptEntropy)
	slices.SortFunc(e, func(x, y float64) int { return cmpNaNLow(y, x) })
	n := BudgetCount(b.Fraction, len(e))
	return e[max(n-1, 0)]
}

// Escalation is the decoding rule of an entropy budget over a batch: each row's threshold and its running
// count of attention tokens. Decide is called for each generated token fed to a row.
type Escalation struct {
	Budget    Budget
	Threshold []float64 // per row
	attn      []int     // per row: tokens in attention so far (prompt included)
}

// NewEscalation starts the rule for rows whose prompts were read with promptModes (the count of attention
// tokens so far) and had the linear entropies promptEntropy (nil rows, or a budget of 0 or 1: no
// threshold needed).
func NewEscalation(b Budget, promptModes [][]oryx.Mode, promptEntropy [][]float64) *Escalation {
	x := &Escalation{Budget: b, Threshold: make([]float64, len(promptModes)), attn: make([]int, len(promptModes))}
	for r, row := range promptModes {
		for _, m := range row {
			if m == oryx.Attention {
				x.attn[r]++
			}
		}
		x.Threshold[r] = b.Threshold
		if r < len(promptEntropy) {
			x.Threshold[r] = b.EntropyThreshold(promptEntropy[r])
		}
	}
	return x
}

// Fixed reports the mode every generated token takes without a trial step: Attention at F = 1, Linear
// at F = 0 (ok true); ok false when the entropy must decide.
func (x *Escalation) Fixed() (oryx.Mode, bool) {
	switch x.Budget.Fraction {
	case 0:
		return oryx.Linear, true
	case 1:
		return oryx.Attention, true
	}
	return oryx.Linear, false
}

// Candidate tells whether row's token fed at pos may escalate: the running budget has room for it.
func (x *Escalation) Candidate(row, pos int) bool {
	return x.attn[row]+1 <= BudgetCount(x.Budget.Fraction, pos+1)
}

// Decide is the escalation rule for row's token fed at pos whose linear trial step predicted
// linearLogits: attention iff the row is a Candidate and the entropy of softmax(linearLogits) exceeds the
// row's threshold. A decision for attention is counted against the row's budget.
func (x *Escalation) Decide(row, pos int, linearLogits []float64) bool {
	if !x.Candidate(row, pos) || !(Entropy(linearLogits) > x.Threshold[row]) {
		return false
	}
	x.attn[row]++
	return true
}

// Count records a token fed to row in mode m without a decision (a fixed budget of 0 or 1).
func (x *Escalation) Count(row int, m oryx.Mode) {
	if m == oryx.Attention {
		x.attn[row]++
	}
}

// Entropy is −Σ p log p of softmax(logits) in nats (computed stably; −∞ logits have p = 0).
func Entropy(logits []float64) float64 {
	mx := math.Inf(-1)
	for _, l := range logits {
		mx = max(mx, l)
	}
	var s, w float64
	for _, l := range logits {
		if math.IsInf(l, -1) {
			continue
		}
		e := math.Exp(l - mx)
		s += e
		w += e * (l - mx)
	}
	return math.Log(s) - w/s
}

// budgetRows is Spec.ScheduleRows for a budget spec: the policies that need nothing but the row (last,
// random: each row its own stream of seed) build their rows; question and entropy are refused with what
// they need.
func budgetRows(spec string, b Budget, lengths []int, seed uint64) (*Schedule, error) {
	switch b.Policy {
	case PolicyQuestion:
		return nil, fmt.Errorf("schedule %q: the question policy needs the task's question positions: "+
			"the evaluations supply them (go run ./evals); elsewhere use budget:F:last", spec)
	case PolicyEntropy:
		return nil, fmt.Errorf("schedule %q: the entropy policy needs a linear pass over the tokens first: "+
			"Budget.Modes with the entropies (the evaluations and Engine.Generate run it)", spec)
	}
	s := &Schedule{rows: make([][]oryx.Mode, len(lengths))}
	for r, n := range lengths {
		row, err := b.Modes(n, nil, nil, rowRand(seed, r))
		if err != nil {
			return nil, fmt.Errorf("schedule %q: %w", spec, err)
		}
		s.rows[r] = row
	}
	return s, nil
}
