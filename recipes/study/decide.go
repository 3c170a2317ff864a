package study

// The sequential study (`make study-decide`, DecideConfig): the claims a one-seed demo cannot decide, decided
// by adding seeds. It trains the demo's three models (the Transformer, GDN, Oryx-TG at p = 0.5; tiny2x, the
// demo's budget and schedule, matched initialisation) on seeds 2, 3, … — never the demo's seed 1 — and looks
// at the claims after DecideLooks seeds, each look judged at the level its share of the error allows
// (an alpha-spending boundary fixed here before any run: LookLevels). It stops when every component it
// targets is decided, when the seeds planned run out, or when its --budget does.

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/oryx-go/oryx/internal/human"
)

// KindDecide is the sequential study's kind (decide.json).
const KindDecide = "decide"

// RoleDecide marks the sequential study's runs.
const RoleDecide = "decide"

// DecideLooks are the planned looks: the claims are judged after the first 3, 6, 10 and 12 seeds (training
// seeds 2–4, 2–7, 2–11, 2–13). The third look's ten seeds (2–11) are the ones whose spreads the demo's one-seed
// verdicts use (df 9).
var DecideLooks = []int{3, 6, 10, 12}

// DecideConfig is `make study-decide`: DefaultRuns at the demo's width × the last look's seeds, from training
// seed 2, at the demo's budget and learning-rate schedule, evaluated as the demo is (no frontier).
func DecideConfig() Config {
	c := Default()
	c.Out = "runs/study-decide"
	c.Kind, c.Evaluation, c.Seeds = KindDecide, EvalFull, DecideLooks[len(DecideLooks)-1]
	c.Runs = DefaultRuns(DemoWidth)
	for i := range c.Runs {
		c.Runs[i].Role = RoleDecide
	}
	c.Train.Seed = DecomposeFirstSeed
	c.FrontierExamples = 0
	c.DecideLooks, c.DecideSpreadSeeds = slices.Clone(DecideLooks), DecideSpreadSeeds
	return c
}

// QuickDecideConfig is DecideConfig at the quick study's budget and width, looks at 2 and 3 seeds (tests;
// numbers meaningless).
func QuickDecideConfig() Config {
	q := QuickConfig()
	c := DecideConfig()
	c.Out, c.Quick, c.Runs = "runs/study-decide-quick", true, DefaultRuns(1)
	for i := range c.Runs {
		c.Runs[i].Role = RoleDecide
	}
	c.DecideLooks, c.DecideSpreadSeeds, c.Seeds = []int{2, 3}, 2, 3
	c.Train, c.MQARPairs, c.ClaimPairs, c.MQARExamples, c.CurveExamples = q.Train, q.MQARPairs, q.ClaimPairs, q.MQARExamples, q.CurveExamples
	c.Train.Seed = DecomposeFirstSeed
	c.NeedleLengths, c.NeedleDepths, c.NeedleSamples, c.SwitchSequences = q.NeedleLengths, q.NeedleDepths, q.NeedleSamples, q.SwitchSequences
	c.CurveEvery, c.HeldOutSequences = q.CurveEvery, q.HeldOutSequences
	return c
}

// DecideAlpha is the total one-sided error each decided component may spend over all looks: 1 − Level.
const DecideAlpha = 1 - Level

// spendOBF is the Lan–DeMets O'Brien–Fleming-type alpha-spending function: the error spent by information
// fraction t (0 < t ≤ 1), α*(t) = 2 − 2Φ(z_{1−α/2}/√t). It spends almost nothing early (the first looks decide
// only on a very large effect) and keeps nearly all of α for the last look.
func spendOBF(alpha, t float64) float64 {
	z := distuv.UnitNormal.Quantile(1 - alpha/2)
	return 2 - 2*distuv.UnitNormal.CDF(z/math.Sqrt(t))
}

// LookLevels are the one-sided levels of the looks at looks[k] seeds: look k spends α*(t_k) − α*(t_{k−1}) of
// DecideAlpha (t_k = looks[k]/looks[last]) and is judged at 1 − that. The looks' errors add up to at most α by
// the union bound (conservative: exact group-sequential boundaries would use the correlation between looks and
// be slightly wider). Within a look a claim is decided as always: intersection–union for holds, Bonferroni over
// its components for fails.
func LookLevels(looks []int, alpha float64) []float64 {
	out := make([]float64, len(looks))
	last := float64(looks[len(looks)-1])
	spent := 0.0
	for k, n := range looks {
		s := spendOBF(alpha, float64(n)/last)
		out[k] = 1 - (s - spent)
		spent = s
	}
	return out
}

// decideTargets are the components the sequential study tries to decide, by claim: (a) in linear mode ((a)
// in attention mode is beyond this scale: at the recorded SD of its gap, +1 % needs ~50 seeds), (b) as the
// paper states it (every component: the transition share and each probe's ratio), (c) (both directions).
var decideTargets = map[string]func(key string) bool{
	ClaimA: func(key string) bool { return strings.Contains(key, "linear") },
	ClaimB: func(string) bool { return true },
	ClaimC: func(string) bool { return true },
}

// Budget bounds the sequential study: it starts no look beyond MaxSeeds seeds (0: the last planned look), and
// none once Seconds have passed (0: no limit); a look under way is finished.
type Budget struct {
	MaxSeeds int     `json:"max_seeds"`
	Seconds  float64 `json:"seconds"`
}

// DecideResult is the sequential study's record (decide.json's "decide").
type DecideResult struct {
	PlannedLooks []int     `json:"planned_looks"` // seeds at each look
	LookLevels   []float64 `json:"look_levels"`   // the one-sided level of each (LookLevels)
	Spending     string    `json:"spending"`
	Budget       Budget    `json:"budget"`
	Looks        []Look    `json:"looks"`
	Decided      bool      `json:"decided"`    // every target component decided at the last look made
	StoppedBy    string    `json:"stopped_by"` // decided | planned looks done | seed budget | time budget
	// Spreads and Transitions are the one-seed spreads and recall transitions over the look whose seeds are
	// 2–11 (the third), for claims.go's OneSeedSpreads and recall.go's OneSeedTransitions.
	Spreads     map[string]Spread        `json:"one_seed_spreads,omitempty"`
	Transitions map[string]RecordedShare `json:"one_seed_transitions,omitempty"`
	// LastLookSpreads and LastLookTransitions are the same over the seeds of the last look made (fewer degrees of
	// freedom before the look of seeds 2–11: what a budget-bounded run can record).
	LastLookSpreads     map[string]Spread        `json:"last_look_spreads,omitempty"`
	LastLookTransitions map[string]RecordedShare `json:"last_look_transitions,omitempty"`
}

// Look is one look: the seeds it saw, its level, and each target claim's verdict at that level.
type Look struct {
	Seeds      int         `json:"seeds"`
	TrainSeeds []int       `json:"train_seeds"`
	Level      float64     `json:"level"`
	Claims     []LookClaim `json:"claims"`
	Decided    bool        `json:"decided"`
	Seconds    float64     `json:"elapsed_s"` // since the sequential study started (this process)
}

// LookClaim is a target claim at a look: its verdict over its target components at the look's level.
type LookClaim struct {
	ID         string           `json:"id"`
	Verdict    string           `json:"verdict"`
	Components []map[string]any `json:"components"`
	Summary    string           `json:"summary"`
}

// judgeLook decides the target components of cls at level.
func judgeLook(cls []Claim, level float64) ([]LookClaim, bool) {
	var out []LookClaim
	decided := true
	for _, cl := range cls {
		target, ok := decideTargets[cl.ID]
		if !ok {
			continue
		}
		var cs []component
		for _, cp := range cl.components {
			if target(cp.key) {
				cs = append(cs, cp)
			}
		}
		lc := LookClaim{ID: cl.ID, Verdict: cl.Verdict, Summary: cl.Summary}
		if len(cs) > 0 {
			v, outs := decideComponentsAt(cs, level)
			lc.Verdict = v
			var parts []string
			for i, cp := range cs {
				n := cp.json(outs[i])
				n["key"], n["level"] = cp.key, level
				lc.Components = append(lc.Components, n)
				parts = append(parts, cp.describe(outs[i], formatOf(cl.ID)))
			}
			lc.Summary = strings.Join(parts, "; ")
		}
		decided = decided && (lc.Verdict == Holds || lc.Verdict == Fails)
		out = append(out, lc)
	}
	return out, decided
}

// formatOf is how a claim's quantity is written.
func formatOf(id string) func(float64) string {
	switch id {
	case ClaimA, ClaimAWithin5:
		return pct
	case ClaimC:
		return points
	}
	return plain
}

// runDecide is Run for KindDecide: look after look, the runs of the look's seeds trained (those of earlier
// looks are finished, and their evaluations cached), the claims judged at the look's level, decide.json
// written after each look; it stops when every target is decided or the looks or the budget run out.
func runDecide(ctx context.Context, c Config, rep *Report, log io.Writer, start time.Time) error {
	if len(c.DecideLooks) == 0 || !slices.IsSorted(c.DecideLooks) || c.DecideLooks[0] < 2 || c.DecideLooks[len(c.DecideLooks)-1] > MaxSeeds {
		return fmt.Errorf("study: the sequential study's looks %v: want increasing seed counts from ≥ 2 to ≤ %d", c.DecideLooks, MaxSeeds)
	}
	if b := c.DecideBudget.MaxSeeds; b > 0 && b < c.DecideLooks[0] {
		// No look would start: the run ended at once, rc 0, and rewrote decide.json and report.md without the
		// looks an earlier run had made.
		return fmt.Errorf("study: the seed budget --budget-seeds %d is below the first look's %d seeds: no look would start; give ≥ %d, or 0 for every planned look %v",
			b, c.DecideLooks[0], c.DecideLooks[0], c.DecideLooks)
	}
	levels := LookLevels(c.DecideLooks, DecideAlpha)
	d := &DecideResult{PlannedLooks: c.DecideLooks, LookLevels: levels, Budget: c.DecideBudget,
		Spending: "Lan–DeMets O'Brien–Fleming-type alpha spending of 1 − Level over the planned looks, each look's increment " +
			"as its level (union bound)"}
	rep.Decide = d
	d.StoppedBy = "planned looks done"
	for k, n := range c.DecideLooks {
		if c.DecideBudget.MaxSeeds > 0 && n > c.DecideBudget.MaxSeeds {
			d.StoppedBy = "seed budget"
			break
		}
		if c.DecideBudget.Seconds > 0 && time.Since(start).Seconds() > c.DecideBudget.Seconds {
			d.StoppedBy = "time budget"
			break
		}
		lc := c
		lc.Seeds = n
		fmt.Fprintf(log, "\nlook %d of %d: %d seeds (training seeds %d–%d), judged at the one-sided level %.5f\n", k+1, len(c.DecideLooks), n,
			lc.trainSeed(1), lc.trainSeed(n), levels[k])
		models, err := trainAndEvaluateAll(ctx, lc, log)
		if err != nil {
			return err
		}
		comps := controls(lc, models)
		cls := claims(lc, models, comps)
		look := Look{Seeds: n, Level: levels[k], Seconds: time.Since(start).Seconds()}
		for s := 1; s <= n; s++ {
			look.TrainSeeds = append(look.TrainSeeds, int(lc.trainSeed(s)))
		}
		look.Claims, look.Decided = judgeLook(cls, levels[k])
		for _, lcl := range look.Claims {
			fmt.Fprintf(log, "  %s: %s — %s\n", lcl.ID, lcl.Verdict, lcl.Summary)
		}
		d.Looks = append(d.Looks, look)
		rep.Models, rep.Controls, rep.Claims, rep.Config = models, comps, cls, lc
		d.LastLookSpreads, d.LastLookTransitions = spreadsOf(lc, cls), transitionsOf(lc, cls)
		if n == c.DecideSpreadSeeds {
			d.Spreads, d.Transitions = d.LastLookSpreads, d.LastLookTransitions
		}
		rep.Seconds, rep.Date = time.Since(start).Seconds(), time.Now().UTC().Format(time.RFC3339)
		if err := writeArtefacts(lc, rep); err != nil {
			return err
		}
		if look.Decided {
			d.Decided, d.StoppedBy = true, "decided"
			break
		}
	}
	rep.Seconds, rep.Date = time.Since(start).Seconds(), time.Now().UTC().Format(time.RFC3339)
	return writeArtefacts(rep.Config, rep)
}

// DecideSpreadSeeds is the look whose seeds (2–11: df 9) give the demo's one-seed spreads and transitions.
const DecideSpreadSeeds = 10

// spreadsOf are the one-seed spreads of the claims' quantities over the seeds of c (SD of the per-seed values
// of every component with a spread key and ≥ 2 values).
func spreadsOf(c Config, cls []Claim) map[string]Spread {
	out := map[string]Spread{}
	w := c.mainWidth()
	for _, cl := range cls {
		for _, cp := range cl.components {
			if cp.spreadKey == "" || cp.share != nil || len(cp.est.Values) < 2 || notFinite(cp.est.SE) {
				continue
			}
			seeds := make([]int, len(cp.est.Seeds))
			for i, k := range cp.est.Seeds {
				seeds[i] = int(c.trainSeed(k))
			}
			sd := cp.est.SE * math.Sqrt(float64(len(cp.est.Values)))
			sp := Spread{SD: math.Round(sd*1e5) / 1e5, Seeds: seeds, Width: w, Steps: c.Train.Steps, LRSchedule: c.Train.LRSchedule}
			if strings.HasPrefix(cp.spreadKey, "a_gap") {
				sp.Set = c.heldOutSetName()
			}
			out[cp.spreadKey] = sp
		}
	}
	return out
}

// transitionsOf are the recall transitions of the (b) claim's part 1 over the seeds of c.
func transitionsOf(c Config, cls []Claim) map[string]RecordedShare {
	out := map[string]RecordedShare{}
	for _, cl := range cls {
		for _, cp := range cl.components {
			if cp.share == nil || cl.ID != ClaimB {
				continue
			}
			var seeds []int
			for _, k := range cp.est.Seeds {
				seeds = append(seeds, int(c.trainSeed(k)))
			}
			out[cp.spreadKey] = RecordedShare{K: cp.share.K, Seeds: seeds, Width: c.mainWidth(), Steps: c.Train.Steps, LRSchedule: c.Train.LRSchedule}
		}
	}
	return out
}

// decideMarkdown renders the sequential study's report.md: each look's verdicts, then the last look's
// claims in full and the one-seed spreads for claims.go.
func decideMarkdown(c Config, rep *Report) string {
	d := rep.Decide
	var b strings.Builder
	fmt.Fprintf(&b, "# The sequential study\n\n%s, %d steps (%s tokens), %s learning rate, matched initialisation; training seeds from %d. "+
		"Planned looks at %v seeds, judged at one-sided levels %s (%s). Targets: (a) in linear mode, (b) as the paper states it "+
		"(transition share and ratio), (c). Stopped: %s.\n\n", sizesOf(c), c.Train.Steps, human.Int(int64(c.Train.Steps)*c.Train.TokensPerStep()),
		lrWords(c), c.Train.Seed, d.PlannedLooks, levelsWords(d.LookLevels), d.Spending, d.StoppedBy)
	b.WriteString("| look | seeds | level | claim | verdict | measured |\n|---|---|---|---|---|---|\n")
	for k, l := range d.Looks {
		for _, cl := range l.Claims {
			fmt.Fprintf(&b, "| %d | %d (%d–%d) | %.5f | `%s` | **%s** | %s |\n", k+1, l.Seeds, l.TrainSeeds[0], l.TrainSeeds[len(l.TrainSeeds)-1],
				l.Level, cl.ID, strings.ReplaceAll(cl.Verdict, "_", " "), cl.Summary)
		}
	}
	b.WriteString("\n## Every claim at the last look, at the study's level\n\n| claim | verdict | measured |\n|---|---|---|\n")
	for _, cl := range rep.Claims {
		fmt.Fprintf(&b, "| `%s` | **%s** | %s |\n", cl.ID, strings.ReplaceAll(cl.Verdict, "_", " "), cl.Summary)
	}
	src := fmt.Sprintf("make study-decide, %s, %s", rep.Date, rep.Backend)
	switch {
	case len(d.Spreads) > 0:
		b.WriteString("\n```\n" + SpreadsLiteral(d.Spreads, src) + TransitionsLiteral(d.Transitions, src) + "```\n\n")
	case len(d.LastLookSpreads) > 0:
		b.WriteString("\nThe look of seeds 2–11 was not reached; over the last look's seeds:\n\n```\n" + SpreadsLiteral(d.LastLookSpreads, src) +
			TransitionsLiteral(d.LastLookTransitions, src) + "```\n\n")
	}
	b.WriteString(curvesMarkdown(c, rep))
	b.WriteString(throughputMarkdown(rep))
	return b.String()
}

func levelsWords(ls []float64) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%.5f", l)
	}
	return strings.Join(parts, ", ")
}

// TransitionsLiteral is the Go text of recall.go's OneSeedTransitions from these measurements.
func TransitionsLiteral(ts map[string]RecordedShare, source string) string {
	if len(ts) == 0 {
		return "recall transitions: none measured (no recall curves)\n"
	}
	var b strings.Builder
	b.WriteString("recall transitions for recipes/study/recall.go:\nvar OneSeedTransitions = map[string]RecordedShare{\n")
	for _, k := range slices.Sorted(maps.Keys(ts)) {
		t := ts[k]
		fmt.Fprintf(&b, "\t%q: {K: %d, Seeds: %#v, Width: %d, Steps: %d, LRSchedule: %q, Source: %q},\n", k, t.K, t.Seeds, t.Width, t.Steps,
			t.LRSchedule, source)
	}
	b.WriteString("}\n")
	return b.String()
}
