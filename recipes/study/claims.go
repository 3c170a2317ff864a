package study

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/evals/evalrun"
)

// The criteria, fixed before any run and never tuned to the numbers:
const (
	// (a) Oryx-TG (p = 0.5) in attention mode against the Transformer and in linear mode against GDN, at equal
	// tokens: the relative validation-loss gap (L_oryx − L_base)/L_base must be ≤ +5 % in both modes. One-sided:
	// an Oryx that is better passes.
	LossGapMax = 0.05
	// (b) Mixed mode (context in linear mode, < 10 % of tokens in attention) must recover ≥ 90 % of the
	// attention-mode accuracy (mixed / attention, pooled over the claim's pair counts or needle lengths)...
	RecoverMin   = 0.9
	AttentionMax = 0.1
	// ... measurable only where the attention-mode accuracy is above chance by ≥ 3 standard errors (the
	// same precondition for every probe).
	ChanceSigmas = 3.0
	// (c) The switch test: in both directions the switched accuracy must be ≥ the reading mode's pure
	// accuracy minus the tolerance max(5 points, 3 standard errors of the difference); measurable only where
	// the two pure modes differ by more than max(5 points, 3 standard errors of their difference).
	SwitchTolerance = 0.05
)

// Verdicts.
const (
	Holds         = "holds"
	Fails         = "fails"
	NotMeasurable = "not_measurable"
)

// Claim is one of the paper's claims checked at this scale.
type Claim struct {
	ID        string         `json:"id"` // a | b | c
	Verdict   string         `json:"verdict"`
	Statement string         `json:"statement"`
	Criterion string         `json:"criterion"`
	Summary   string         `json:"summary"` // the deciding numbers in words
	Numbers   map[string]any `json:"numbers"`
}

// Comparison is one loss comparison of claim (a)'s controls: a candidate curve against a reference curve.
type Comparison struct {
	Name      string  `json:"name"`
	Candidate string  `json:"candidate"` // run and mode, e.g. "oryx-tg attention" or "transformer at half the tokens"
	Reference string  `json:"reference"`
	Tokens    int64   `json:"tokens"` // the candidate's training tokens
	Loss      float64 `json:"-"`      // the candidate's validation loss
	RefLoss   float64 `json:"-"`      // the reference's at the same tokens (the half-token controls: at twice theirs)
	Gap       float64 `json:"-"`      // (Loss − RefLoss)/RefLoss
	// TokensRatio is the tokens the reference needed to reach the candidate's loss (its validation curve,
	// interpolated) over the candidate's tokens; NaN when the reference never got there (the candidate is
	// better than the reference at its end).
	TokensRatio float64 `json:"-"`
}

// MarshalJSON writes the losses, gap and ratio with NaN (not reached, not measured) as null.
func (cp Comparison) MarshalJSON() ([]byte, error) {
	type plain Comparison
	return json.Marshal(struct {
		plain
		Loss        any `json:"loss"`
		RefLoss     any `json:"ref_loss"`
		Gap         any `json:"gap"`
		TokensRatio any `json:"tokens_ratio"`
	}{plain(cp), r4(cp.Loss), r4(cp.RefLoss), r4(cp.Gap), r4(cp.TokensRatio)})
}

// curve is a validation loss curve of one mode.
type curve struct{ tokens, loss []float64 }

func (m *ModelResult) curve(c Config, mode string) (curve, bool) {
	x, ys := valCurves(runDir(c, m.Name))
	y, ok := ys[mode]
	if !ok || len(y) == 0 || len(y) != len(x) {
		return curve{}, false
	}
	return curve{x, y}, true
}

// at is the loss at tokens t (linear interpolation between validations).
func (cv curve) at(t float64) float64 {
	for i := range cv.tokens {
		if cv.tokens[i] >= t {
			if i == 0 || cv.tokens[i] == t {
				return cv.loss[i]
			}
			f := (t - cv.tokens[i-1]) / (cv.tokens[i] - cv.tokens[i-1])
			return cv.loss[i-1] + f*(cv.loss[i]-cv.loss[i-1])
		}
	}
	return math.NaN()
}

// tokensTo is the first token count at which the curve reaches loss l (interpolated); NaN if never.
func (cv curve) tokensTo(l float64) float64 {
	for i := range cv.loss {
		if cv.loss[i] <= l {
			if i == 0 {
				return cv.tokens[0]
			}
			f := (cv.loss[i-1] - l) / (cv.loss[i-1] - cv.loss[i])
			return cv.tokens[i-1] + f*(cv.tokens[i]-cv.tokens[i-1])
		}
	}
	return math.NaN()
}

func (cv curve) end() (float64, float64) { return cv.tokens[len(cv.tokens)-1], cv.loss[len(cv.loss)-1] }

func byName(models []*ModelResult, name string) *ModelResult {
	for _, m := range models {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// controls computes claim (a)'s comparisons for the runs that were trained.
func controls(c Config, models []*ModelResult) []Comparison {
	type pair struct{ name, cand, candMode, ref, refMode string }
	pairs := []pair{
		{"oryx-tg attention vs transformer", "oryx-tg", "attention", "transformer", "attention"},
		{"oryx-tg linear vs gdn", "oryx-tg", "linear", "gdn", "linear"},
		{"oryx-tg-p1 (all-attention training) vs transformer", "oryx-tg-p1", "attention", "transformer", "attention"},
		{"oryx-tg-p0 (all-linear training) vs gdn", "oryx-tg-p0", "linear", "gdn", "linear"},
		{"oryx-tg-complementary attention vs transformer", "oryx-tg-complementary", "attention", "transformer", "attention"},
		{"oryx-tg-complementary linear vs gdn", "oryx-tg-complementary", "linear", "gdn", "linear"},
	}
	var out []Comparison
	for _, p := range pairs {
		cm, rm := byName(models, p.cand), byName(models, p.ref)
		if cm == nil || rm == nil {
			continue
		}
		cc, ok1 := cm.curve(c, p.candMode)
		rc, ok2 := rm.curve(c, p.refMode)
		if !ok1 || !ok2 {
			continue
		}
		t, l := cc.end()
		rl := rc.at(t)
		out = append(out, Comparison{Name: p.name, Candidate: p.cand + " " + p.candMode, Reference: p.ref + " " + p.refMode,
			Tokens: int64(t), Loss: l, RefLoss: rl, Gap: (l - rl) / rl, TokensRatio: rc.tokensTo(l) / t})
	}
	// Half the tokens: the baselines' own curves at N/2 (exact for a constant learning rate; see DefaultRuns).
	for _, b := range []struct{ name, mode string }{{"transformer", "attention"}, {"gdn", "linear"}} {
		m := byName(models, b.name)
		if m == nil {
			continue
		}
		cv, ok := m.curve(c, b.mode)
		if !ok {
			continue
		}
		t, l := cv.end()
		h := cv.at(t / 2)
		out = append(out, Comparison{Name: b.name + " at half the tokens vs " + b.name, Candidate: b.name + " at half the tokens",
			Reference: b.name + " " + b.mode, Tokens: int64(t / 2), Loss: h, RefLoss: l, Gap: (h - l) / l, TokensRatio: 0.5})
	}
	return out
}

// pooled pools MQAR cells over pair counts: accuracy, binomial standard error, queries, attention fraction.
func pooled(cells map[int]mqarCell, pairs []int) (acc, se float64, n int, frac float64) {
	var correct float64
	for _, p := range pairs {
		cell, ok := cells[p]
		if !ok {
			continue
		}
		correct += cell.Accuracy * float64(cell.Queries)
		n += cell.Queries
		frac += cell.AttentionFraction / float64(len(pairs))
	}
	if n == 0 {
		return math.NaN(), math.NaN(), 0, math.NaN()
	}
	acc = correct / float64(n)
	return acc, math.Sqrt(acc * (1 - acc) / float64(n)), n, frac
}

// pooledNeedle pools needle cells over lengths.
func pooledNeedle(cells map[int]evalrun.ProbeScore) (acc, se float64, n int, frac float64) {
	var sum, attn float64
	for _, cell := range cells {
		sum += cell.Score * float64(cell.N)
		attn += cell.AttentionFraction * float64(cell.N)
		n += cell.N
	}
	if n == 0 {
		return math.NaN(), math.NaN(), 0, math.NaN()
	}
	acc = sum / float64(n)
	return acc, math.Sqrt(acc * (1 - acc) / float64(n)), n, attn / float64(n)
}

// ratio returns a/b and its standard error (delta method, independent errors).
func ratio(a, sa, b, sb float64) (float64, float64) {
	r := a / b
	if a == 0 {
		return 0, sa / b
	}
	return r, math.Abs(r) * math.Sqrt(sa*sa/(a*a)+sb*sb/(b*b))
}

func r4(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return math.Round(x*1e4) / 1e4
}

// claims evaluates (a), (b) and (c) for the main Oryx-TG run against the main baselines.
func claims(c Config, models []*ModelResult, comps []Comparison) []Claim {
	return []Claim{claimA(comps), claimB(c, models), claimC(c, models)}
}

func claimA(comps []Comparison) Claim {
	cl := Claim{ID: "a", Statement: "Oryx-TG (mixed training, p = 0.5) is as good a language model as its single-mixer baselines: " +
		"in attention mode as the Transformer, in linear mode as GDN, at the same training tokens",
		Criterion: fmt.Sprintf("one-sided: relative validation-loss gap (L_oryx − L_base)/L_base ≤ +%.0f%% in both modes "+
			"(controls: Oryx-TG trained at p = 1 and p = 0, the baselines at half the tokens, complementary mode training; "+
			"each with the gap and the tokens the baseline needs to reach the same loss)", 100*LossGapMax),
		Numbers: map[string]any{}}
	var verdicts []string
	var rows []map[string]any
	for _, cp := range comps {
		rows = append(rows, map[string]any{"name": cp.Name, "loss": r4(cp.Loss), "ref_loss": r4(cp.RefLoss), "gap": r4(cp.Gap),
			"tokens_ratio": r4(cp.TokensRatio), "tokens": cp.Tokens})
		if cp.Name == "oryx-tg attention vs transformer" || cp.Name == "oryx-tg linear vs gdn" {
			ok := cp.Gap <= LossGapMax
			verdicts = append(verdicts, fmt.Sprintf("%s %+.1f%%", cp.Name, 100*cp.Gap))
			cl.Numbers[snakeKey(cp.Name)+"_gap"] = r4(cp.Gap)
			if !ok {
				cl.Verdict = Fails
			}
		}
	}
	cl.Numbers["comparisons"] = rows
	switch {
	case len(verdicts) < 2:
		cl.Verdict = NotMeasurable
		cl.Summary = "needs the transformer, gdn and oryx-tg runs"
	case cl.Verdict == "":
		cl.Verdict = Holds
	}
	if len(verdicts) == 2 {
		cl.Summary = strings.Join(verdicts, "; ")
	}
	return cl
}

func claimB(c Config, models []*ModelResult) Claim {
	cl := Claim{ID: "b", Statement: "Oryx-TG in mixed mode (context in linear mode, questions and answers in attention, < 10 % of " +
		"tokens) matches its own attention-mode retrieval",
		Criterion: fmt.Sprintf("recovered fraction mixed/attention ≥ %.0f%% with < %.0f%% of tokens in attention, for every probe "+
			"(MQAR pooled over %v pairs; mini needle pooled over lengths ≤ the training length) whose attention-mode accuracy "+
			"is above chance by ≥ %.0f standard errors (else that probe is not measurable)", 100*RecoverMin, 100*AttentionMax,
			c.ClaimPairs, ChanceSigmas),
		Numbers: map[string]any{}}
	o := byName(models, "oryx-tg")
	if o == nil {
		cl.Verdict, cl.Summary = NotMeasurable, "needs the oryx-tg run"
		return cl
	}
	type probe struct {
		name                       string
		chance                     float64
		a, sa, m, sm, l, sl, mfrac float64
	}
	var probes []probe
	{
		a, sa, _, _ := pooled(o.sched("attention").MQARCells, c.ClaimPairs)
		m, sm, _, f := pooled(o.sched("mixed").MQARCells, c.ClaimPairs)
		l, sl, _, _ := pooled(o.sched("linear").MQARCells, c.ClaimPairs)
		probes = append(probes, probe{"mqar", 2.0 / datasets.MQARVocab, a, sa, m, sm, l, sl, f})
	}
	{
		a, sa, _, _ := pooledNeedle(o.sched("attention").Needle)
		m, sm, _, f := pooledNeedle(o.sched("mixed").Needle)
		l, sl, _, _ := pooledNeedle(o.sched("linear").Needle)
		probes = append(probes, probe{"needle", 1e-4, a, sa, m, sm, l, sl, f}) // a 4-digit value
	}
	var parts []string
	measured, failed := 0, 0
	for _, p := range probes {
		rec, srec := ratio(p.m, p.sm, p.a, p.sa)
		ok := p.a-ChanceSigmas*p.sa > p.chance
		n := map[string]any{"attention": r4(p.a), "attention_se": r4(p.sa), "mixed": r4(p.m), "mixed_se": r4(p.sm),
			"linear": r4(p.l), "linear_se": r4(p.sl), "mixed_attention_fraction": r4(p.mfrac), "chance": r4(p.chance),
			"measurable": ok, "recovered": r4(rec), "recovered_se": r4(srec)}
		if !ok {
			n["recovered"], n["recovered_se"] = nil, nil
			parts = append(parts, fmt.Sprintf("%s: not measurable (attention-mode accuracy %.1f%% ± %.1f, chance %.2g%%)",
				p.name, 100*p.a, 100*p.sa, 100*p.chance))
		} else {
			measured++
			holds := rec >= RecoverMin && p.mfrac < AttentionMax
			if !holds {
				failed++
			}
			n["holds"] = holds
			parts = append(parts, fmt.Sprintf("%s: mixed %.1f%% / attention %.1f%% = %.2f ± %.2f recovered (%.1f%% of tokens in attention; linear %.1f%%)",
				p.name, 100*p.m, 100*p.a, rec, srec, 100*p.mfrac, 100*p.l))
		}
		cl.Numbers[p.name] = n
	}
	switch {
	case measured == 0:
		cl.Verdict = NotMeasurable
	case failed > 0:
		cl.Verdict = Fails
	default:
		cl.Verdict = Holds
	}
	cl.Summary = strings.Join(parts, "; ")
	return cl
}

func claimC(c Config, models []*ModelResult) Claim {
	cl := Claim{ID: "c", Statement: "Oryx-TG's two memories agree: information read in one mode is retrieved in the other " +
		"(MQAR key-value pairs read in one mode, queried after a switch in the other, both directions)",
		Criterion: fmt.Sprintf("switched accuracy ≥ the reading mode's pure accuracy − max(%.0f points, 3 SE) in both directions "+
			"(MQAR pooled over %v pairs); measurable only if the pure attention and linear accuracies differ by more than "+
			"max(%.0f points, 3 SE)", 100*SwitchTolerance, c.ClaimPairs, 100*SwitchTolerance),
		Numbers: map[string]any{}}
	o := byName(models, "oryx-tg")
	if o == nil || o.SwitchMQAR == nil {
		cl.Verdict, cl.Summary = NotMeasurable, "needs the oryx-tg run"
		return cl
	}
	a, sa, _, _ := pooled(o.sched("attention").MQARCells, c.ClaimPairs)
	l, sl, _, _ := pooled(o.sched("linear").MQARCells, c.ClaimPairs)
	al, sal, _, _ := pooled(o.SwitchMQAR[evalrun.AttentionToLinear], c.ClaimPairs)
	la, sla, _, _ := pooled(o.SwitchMQAR[evalrun.LinearToAttention], c.ClaimPairs)
	tol := func(s1, s2 float64) float64 { return math.Max(SwitchTolerance, 3*math.Sqrt(s1*s1+s2*s2)) }
	pre := tol(sa, sl)
	tAL, tLA := tol(sal, sl), tol(sla, sa)
	cl.Numbers = map[string]any{"attention": r4(a), "attention_se": r4(sa), "linear": r4(l), "linear_se": r4(sl),
		"attention_to_linear": r4(al), "attention_to_linear_se": r4(sal), "linear_to_attention": r4(la),
		"linear_to_attention_se": r4(sla), "precondition_tolerance": r4(pre), "tolerance_attention_to_linear": r4(tAL),
		"tolerance_linear_to_attention": r4(tLA)}
	nums := fmt.Sprintf("pure attention %.1f%%, pure linear %.1f%%; pairs in attention → queries in linear %.1f%% (vs linear), "+
		"pairs in linear → queries in attention %.1f%% (vs attention)", 100*a, 100*l, 100*al, 100*la)
	if !(math.Abs(a-l) > pre) {
		cl.Verdict = NotMeasurable
		cl.Summary = fmt.Sprintf("not measurable: the pure modes differ by %.1f points (≤ %.1f); %s", 100*math.Abs(a-l), 100*pre, nums)
		return cl
	}
	okAL, okLA := al >= l-tAL, la >= a-tLA
	cl.Numbers["holds_attention_to_linear"], cl.Numbers["holds_linear_to_attention"] = okAL, okLA
	cl.Verdict = Fails
	if okAL && okLA {
		cl.Verdict = Holds
	}
	cl.Summary = nums
	return cl
}

// sched returns the model's result under a schedule (an empty one if it has none).
func (m *ModelResult) sched(name string) *ScheduleResult {
	for i := range m.Schedules {
		if m.Schedules[i].Schedule == name {
			return &m.Schedules[i]
		}
	}
	return &ScheduleResult{Schedule: name}
}

// runDir is the run directory of the study run named name.
func runDir(c Config, name string) string { return filepath.Join(c.Out, "runs", name+"-tiny") }

// snakeKey turns a comparison name ("oryx-tg attention vs transformer") into a snake_case JSON key
// ("oryx_tg_attention_vs_transformer").
func snakeKey(name string) string {
	return strings.NewReplacer(" ", "_", "-", "_").Replace(name)
}
