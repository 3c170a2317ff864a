package study

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// How a claim is decided. Every claim compares a per-seed quantity θ with a threshold: (a) the
// relative validation-loss gap against a non-inferiority margin, (b) the accuracy ratio mixed / reference
// against 0.9, (c) the switched minus the pure accuracy against −5 points. Over N ≥ 2 seeds θ is estimated by
// the mean of its per-seed values (paired by seed: the runs of one seed share data order and initial weights),
// with the Student-t interval of df = N − 1; with one seed, by its one value with the spread recorded for
// that quantity from other seeds (Spread: t with the recording's df), or not at all. Each bound is one-sided
// at Level.
//
// A claim holds when every one of its components (modes, probes, directions) is on the claimed side of its
// threshold with its one-sided bound at Level — an intersection-union test, whose error is at most 1 − Level
// for the whole claim. It fails when some component is on the wrong side with its bound at
// 1 − (1 − Level)/m for m components (Bonferroni: the chance that any of them falsely fails is at most
// 1 − Level). Otherwise it is inconclusive: the data do not decide at this level. not_measurable is kept
// for a precondition that truly fails (a reference at chance, two pure modes that agree), with its reason.
//
// Two errors beyond the seeds' enter the bounds. A loss gap is read on one held-out set that every seed shares
// (heldout.go): its standard error over the set's sequences is added to the seeds' (estimate.SetSE, totalSE, with
// Welch–Satterthwaite degrees of freedom). (b)'s first part is a share of seeds, decided by exact binomial bounds
// (component.share, recall.go), since recall is bimodal over seeds. The sequential study judges each of its looks
// at its own level (decideComponentsAt, decide.go).
//
// Level and margins are fixed here before any run that uses them (git history shows it) and never moved after
// seeing numbers.
const (
	// Level is the one-sided confidence level of every bound.
	Level = 0.95
	// MarginA is (a)'s non-inferiority margin on the relative loss gap (L_oryx − L_base)/L_base: "at least as
	// good" holds when the gap's upper bound is below +1 %, fails when its lower bound is above it.
	MarginA = 0.01
	// LossGapMax is the study's first (a) criterion's margin, decided the same way (ClaimAWithin5).
	LossGapMax = 0.05
	// RecoverMin is (b)'s threshold on the ratio of mixed-mode accuracy (< AttentionMax of the tokens in
	// attention) to the reference's (the Transformer's as the paper states it; Oryx-TG's own attention mode
	// as the study first measured it): holds when the ratio's lower bound is above 0.9, fails when its upper
	// bound is below. A mixed schedule with AttentionMax or more of its tokens in attention fails.
	RecoverMin   = 0.9
	AttentionMax = 0.1
	// ChanceSigmas: a (b) probe is measurable only where the reference's accuracy is above chance by ≥ 3
	// standard errors; (c) only where the pure modes differ by more than max(SwitchMargin, 3 SE).
	ChanceSigmas = 3.0
	// SwitchMargin is (c)'s non-inferiority margin on the switched accuracy minus the reading mode's pure
	// accuracy (5 points): holds when its lower bound is above −5 points in both directions.
	SwitchMargin = 0.05
)

// Inconclusive is the verdict of a claim the data do not decide at Level (see above).
const Inconclusive = "inconclusive"

// tQuantile is the one-sided Student-t quantile t_{p, df}: P(T ≤ t) = p.
func tQuantile(p float64, df int) float64 { return tQuantileF(p, float64(df)) }

// tQuantileF is tQuantile at a real number of degrees of freedom (Welch–Satterthwaite's), the normal quantile
// for an infinite one.
func tQuantileF(p, df float64) float64 {
	if math.IsInf(df, 1) {
		return distuv.UnitNormal.Quantile(p)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}

// Spread is the standard deviation over seeds of a per-seed quantity, measured with the configuration a
// one-seed study runs at but on other seeds, so that a one-seed verdict is never judged by a spread its own
// run helped to make.
type Spread struct {
	SD    float64 `json:"sd"`
	Seeds []int   `json:"seeds"` // the training seeds it was measured on: df = len(Seeds) − 1
	Width int     `json:"width"` // the runs' width (RunSpec.Width)
	Steps int     `json:"steps"` // the training steps it was read at
	// LRSchedule is the runs' learning-rate schedule (train.TrainConfig.LRSchedule).
	LRSchedule string `json:"lr_schedule"`
	// Source says where it comes from: command, date, commit, backend, load.
	Source string `json:"source"`
	// Set is the evaluation set a loss gap's spread was read on (heldOutSetName, or the trainer's validation
	// curve for the spreads recorded before the held-out set): a gap read on another set is another quantity.
	Set string `json:"set,omitempty"`
}

// estimate is a per-seed quantity's estimate: the mean of its values and the mean's standard error with
// its degrees of freedom (SE NaN: no spread, the bounds are undefined).
type estimate struct {
	Values []float64
	Seeds  []int // the seed (1..Config.Seeds) of each value, when known: a missing run leaves its seed out
	Mean   float64
	SE     float64
	DF     int
	From   string  // seFromSeeds, seFromRecorded or seFromNone
	Spread *Spread // the recorded spread, when From is seFromRecorded
	// SetSE is the standard error the evaluation set adds, which every seed shares (heldout.go): the same
	// held-out sequences score every run, so their sampling error does not average out over seeds and is not in
	// SE. 0: none measured (a quantity without one, or runs scored before the held-out set existed).
	SetSE float64
}

// totalSE is the standard error of the mean as an estimate of the quantity on the language rather than on
// one evaluation set: √(SE² + SetSE²), the seed part and the set part independent.
func (e estimate) totalSE() float64 { return math.Hypot(e.SE, e.SetSE) }

// dfEffective is the Welch–Satterthwaite degrees of freedom of totalSE: the set part is estimated from
// thousands of sequences (df taken as infinite), so df = DF·(SE² + SetSE²)²/SE⁴ ≥ DF.
func (e estimate) dfEffective() float64 {
	if e.SetSE == 0 || e.DF < 1 {
		return float64(e.DF)
	}
	v := e.SE * e.SE
	if v == 0 {
		return math.Inf(1)
	}
	t := v + e.SetSE*e.SetSE
	return float64(e.DF) * t * t / (v * v)
}

// estimateOf estimates a quantity from its per-seed values (of seeds, when known): with N ≥ 2 the sample SD
// over √N (df N − 1); with one value the recorded spread when one applies (spread non-nil), else no spread.
// A value that is not a finite number (a NaN or infinite loss or ratio: a broken run or record) leaves the
// quantity without an estimate — no mean, no bounds — rather than deciding on it.
func estimateOf(values []float64, seeds []int, spread *Spread) estimate {
	e := estimate{Values: values, Seeds: seeds, Mean: math.NaN(), SE: math.NaN(), From: seFromNone}
	n := len(values)
	if n == 0 || slices.ContainsFunc(values, notFinite) {
		return e
	}
	var sum float64
	for _, v := range values {
		sum += v
	}
	e.Mean = sum / float64(n)
	switch {
	case n >= 2:
		var ss float64
		for _, v := range values {
			ss += (v - e.Mean) * (v - e.Mean)
		}
		e.SE, e.DF, e.From = math.Sqrt(ss/float64(n-1)/float64(n)), n-1, seFromSeeds
	case spread != nil && len(spread.Seeds) >= 2 && spread.SD > 0:
		e.SE, e.DF, e.From, e.Spread = spread.SD, len(spread.Seeds)-1, seFromRecorded, spread
	}
	return e
}

// notFinite tells a NaN or an infinity.
func notFinite(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }

// bounds are the one-sided bounds at level p: mean ∓ t_{p, df}·SE, with the set's error added where measured
// (totalSE at Welch's df; NaN without a spread: the seeds' part is unknown).
func (e estimate) bounds(p float64) (lo, hi float64) {
	if math.IsNaN(e.SE) || e.DF < 1 || math.IsNaN(e.SetSE) {
		return math.NaN(), math.NaN()
	}
	h := tQuantileF(p, e.dfEffective()) * e.totalSE()
	return e.Mean - h, e.Mean + h
}

// component is one comparison of a claim: the estimate of θ, the threshold and the claimed side (above:
// θ > threshold is the claim, e.g. a ratio ≥ 0.9; else θ < threshold, e.g. a gap below the margin). A
// component with forceFail set (e.g. a mixed schedule over the attention budget) fails whatever its bounds.
type component struct {
	key       string // its snake_case key in the claim's numbers
	name      string // in words
	spreadKey string // the quantity's key in OneSeedSpreads
	est       estimate
	threshold float64
	above     bool
	forceFail string // the reason, when set
	// share, when set, makes the component a share of seeds (est.Values 0 or 1 per seed) decided by its exact
	// binomial (Clopper–Pearson) bounds rather than a t bound: (b)'s recall transition (recall.go).
	share *shareCount
}

// outcome of one component: Holds, Fails or Inconclusive, with the bounds that decided it.
type outcome struct {
	verdict        string
	lo, hi         float64 // at Level
	failLo, failHi float64 // at the Bonferroni level of a failure
	failLevel      float64 // that level
	level          float64 // the level of lo and hi (Level, or a sequential look's)
	significant    string  // whether θ differs from zero at Level: "above zero", "below zero", ""
}

// decideComponents decides a claim over its components (see the package comment above): holds when all hold
// at Level, fails when one fails at the Bonferroni level, else inconclusive. With no component it is
// NotMeasurable.
func decideComponents(cs []component) (string, []outcome) { return decideComponentsAt(cs, Level) }

// decideComponentsAt is decideComponents at another one-sided level: a look of the sequential study, whose
// level is its share of the error (LookLevels).
func decideComponentsAt(cs []component, level float64) (string, []outcome) {
	if len(cs) == 0 {
		return NotMeasurable, nil
	}
	failLevel := 1 - (1-level)/float64(len(cs))
	outs := make([]outcome, len(cs))
	held, failed := 0, 0
	for i, c := range cs {
		o := outcome{failLevel: failLevel, level: level}
		o.lo, o.hi = c.bounds(level)
		o.failLo, o.failHi = c.bounds(failLevel)
		switch {
		case c.forceFail != "":
			o.verdict = Fails
		case c.above && o.lo > c.threshold, !c.above && o.hi < c.threshold:
			o.verdict = Holds
		case c.above && o.failHi < c.threshold, !c.above && o.failLo > c.threshold:
			o.verdict = Fails
		default: // a bound on the threshold's wrong side, or no bounds at all (one seed, no spread)
			o.verdict = Inconclusive
		}
		switch {
		case o.lo > 0:
			o.significant = "above zero"
		case o.hi < 0:
			o.significant = "below zero"
		}
		switch o.verdict {
		case Holds:
			held++
		case Fails:
			failed++
		}
		outs[i] = o
	}
	switch {
	case failed > 0:
		return Fails, outs
	case held == len(cs):
		return Holds, outs
	}
	return Inconclusive, outs
}

// bounds are the component's one-sided bounds at level p: exact binomial ones for a share, else the
// estimate's.
func (c component) bounds(p float64) (lo, hi float64) {
	if c.share != nil {
		return c.share.bounds(p)
	}
	return c.est.bounds(p)
}

// json is a component's numbers as study.json records them.
func (c component) json(o outcome) map[string]any {
	vals := make([]any, len(c.est.Values))
	for i, v := range c.est.Values {
		vals[i] = r4(v)
	}
	n := map[string]any{"values": vals, "mean": r4(c.est.Mean), "se": r4(c.est.SE), "df": c.est.DF, "se_from": c.est.From,
		"level": Level, "lower": r4(o.lo), "upper": r4(o.hi), "threshold": c.threshold, "claimed_side": sideWord(c.above),
		"fail_level": r4(o.failLevel), "verdict": o.verdict, "different_from_zero": nilIfEmpty(o.significant)}
	if c.est.SetSE > 0 {
		n["set_se"], n["total_se"], n["df_effective"] = r4(c.est.SetSE), r4(c.est.totalSE()), math.Round(c.est.dfEffective()*10)/10
	}
	if c.share != nil {
		n["share"] = c.share.json()
		delete(n, "se")
		delete(n, "df")
	}
	if c.est.Spread != nil {
		n["recorded_spread"] = c.est.Spread
	}
	if c.forceFail != "" {
		n["fails_because"] = c.forceFail
	}
	return n
}

func sideWord(above bool) string {
	if above {
		return "above"
	}
	return "below"
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// describe is a component's deciding numbers in words, e.g. "gap +1.20 % [−0.31, +2.71] (95 % one-sided
// bounds, t over 3 seeds) vs margin +1 %: inconclusive".
func (c component) describe(o outcome, format func(float64) string) string {
	if math.IsNaN(c.est.Mean) {
		if len(c.est.Values) > 0 {
			return c.name + ": no value (not every seed's value is a finite number: " + joinValues(c.est.Values, format) + ")"
		}
		return c.name + ": no value"
	}
	if c.share != nil {
		return fmt.Sprintf("%s %s [%.2f, %.2f] (exact binomial bounds at %s %% one-sided) vs %.2f: %s", c.name, c.share.words(),
			o.lo, o.hi, levelPct(o), c.threshold, o.verdict)
	}
	var spread string
	set := ""
	if c.est.SetSE > 0 {
		set = fmt.Sprintf(", with the held-out set's SE %s shared by every seed", format(c.est.SetSE))
	}
	switch c.est.From {
	case seFromSeeds:
		spread = fmt.Sprintf("[%s, %s] at %s %% one-sided, t over %d seeds%s: %s", format(o.lo), format(o.hi), levelPct(o),
			len(c.est.Values), set, joinValues(c.est.Values, format))
	case seFromRecorded:
		spread = fmt.Sprintf("[%s, %s] at %s %% one-sided, one seed with the SD %s recorded over seeds %v%s (%s)", format(o.lo),
			format(o.hi), levelPct(o), format(c.est.Spread.SD), c.est.Spread.Seeds, set, c.est.Spread.Source)
	default:
		spread = "one seed, no spread measured on other seeds: no bounds"
	}
	s := fmt.Sprintf("%s %s %s vs %s: %s", c.name, format(c.est.Mean), spread, format(c.threshold), o.verdict)
	if c.forceFail != "" {
		s += " (" + c.forceFail + ")"
	}
	if o.significant != "" {
		s += "; " + o.significant + " at the same level"
	}
	return s
}

// levelPct writes the level of an outcome's bounds in percent, five digits: "95", or a sequential look's "99.451".
func levelPct(o outcome) string {
	l := o.level
	if l == 0 {
		l = Level
	}
	return strconv.FormatFloat(100*l, 'g', 5, 64)
}

// joinValues lists per-seed values ("seeds: a / b / c").
func joinValues(vs []float64, format func(float64) string) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = format(v)
	}
	return "per seed " + strings.Join(parts, " / ")
}

// recordingApplies tells whether a recording from other seeds (a spread, a transition count) serves a one-seed
// study of c: made at its width, steps and learning-rate schedule, on seeds that exclude the study's own.
func recordingApplies(c Config, width, steps int, lrSchedule string, seeds []int) bool {
	return c.seeds() == 1 && len(c.Runs) > 0 && width == c.mainWidth() && steps == c.Train.Steps &&
		lrSchedule == c.Train.LRSchedule && !slices.Contains(seeds, int(c.trainSeed(1)))
}

// spreadFor returns the recorded spread of quantity key for a one-seed study of c, when one applies: the
// same width, training steps and learning-rate schedule, measured on seeds that do not include the study's own
// training seed, and for a loss gap on the same evaluation set.
func spreadFor(c Config, key string) *Spread {
	sp, ok := OneSeedSpreads[key]
	if !ok || !recordingApplies(c, sp.Width, sp.Steps, sp.LRSchedule, sp.Seeds) {
		return nil
	}
	if strings.HasPrefix(key, "a_gap") && sp.Set != c.heldOutSetName() {
		return nil // a gap's spread on another evaluation set
	}
	return &sp
}
