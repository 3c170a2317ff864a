package study

// The (a) decomposition (`make study-decompose`, DecomposeConfig): is claim (a)'s loss gap the method's, or
// the initialisation's, the learning-rate protocol's, or the recall–language confound's? At the width where
// every model learns recall (tiny2x), three seeds, matched initialisation (oryx/weights.go: Oryx-TG's shared
// weights start equal to GDN's and its attention query to the Transformer's), it trains the Transformer, GDN,
// Oryx-TG at p = 0.5 and its controls at p = 1 and p = 0, evaluates each as the study does (EvalFull, plus the
// held-out mixture's loss: mixtureloss.go), and splits each mode's gap into
//
//	mixed-training cost   p 0.5 − p 1 (attention mode), p 0.5 − p 0 (linear mode): the same network trained
//	                      on half the tokens in the mode read;
//	architecture cost     p 1 − Transformer, p 0 − GDN: one readout of a shared-memory model trained alone
//	                      against the baseline (in linear mode the two compute the same function from the same
//	                      initial weights: this is ~0 by construction, a check);
//	total (a) gap         p 0.5 − the baseline,
//	interference          complementary − the baseline: both readouts trained on every token, so the other
//	                      readout's objective acting on the shared weights is all that differs;
//	token halving         p 0.5 − complementary: each readout trained on about half of the tokens,
//
// each a relative loss gap per seed (paired by seed) with its Student-t bounds at Level, on the language alone
// (the trainer's validation set) and on the full mixture. The same runs decide the claims over the three seeds
// and give the one-seed spreads that the demo (seed 1, the same width, budget and evaluation) uses: the seeds
// are 2–4, so the demo's own run is never among them. With LRDecay the five are trained with a cosine decay to
// 0.1× instead of the constant learning rate (`make study-decompose-lr`).

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/oryx-go/oryx/internal/human"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/recipes/train"
)

// KindDecompose is the (a) decomposition's kind (decompose.json).
const KindDecompose = "decompose"

// RoleDecompose marks the decomposition's runs.
const RoleDecompose = "decompose"

// DecomposeWidth is the width the decomposition runs at: tiny2x, where study-scale measured every seed of
// mixed Oryx-TG learning recall at the study's budget (docs/history.md §2).
const DecomposeWidth = 2

// DecomposeFirstSeed is the decomposition's first training seed: seeds 2, 3, 4, so that the demo's seed 1
// is not among those its one-seed spreads are measured on.
const DecomposeFirstSeed = 2

// DecomposeRuns are the decomposition's five models at width w.
func DecomposeRuns(w int) []RunSpec {
	mixed := func(name string, p float64) RunSpec {
		return RunSpec{Name: name, Variant: oryx.OryxTG, AttentionProb: p, ModeTraining: train.ModeTrainingBlockRandom, Role: RoleDecompose, Width: w}
	}
	return []RunSpec{
		{Name: "transformer", Variant: oryx.Transformer, Role: RoleDecompose, Width: w},
		{Name: "gdn", Variant: oryx.GDN, Role: RoleDecompose, Width: w},
		mixed("oryx-tg", 0.5), mixed("oryx-tg-p1", 1), mixed("oryx-tg-p0", 0),
		// Complementary training (both readouts on every token, 2× the mixer FLOPs): each readout sees every
		// token, as the baseline's does, while the other readout's objective still acts on the shared weights —
		// so it splits the mixed-training cost into interference and token halving (decomposeParts).
		{Name: "oryx-tg-complementary", Variant: oryx.OryxTG, AttentionProb: 0.5, ModeTraining: train.ModeTrainingComplementary,
			Role: RoleDecompose, Width: w},
	}
}

// DecomposeConfig is `make study-decompose` (lrDecay: `make study-decompose-lr`, a cosine decay to 0.1× of
// the peak learning rate): DecomposeRuns × 3 seeds (2–4) at the study's budget, evaluated like the study.
func DecomposeConfig(lrDecay bool) Config {
	c := Default()
	c.Out = "runs/study-decompose"
	c.Kind, c.Evaluation, c.Seeds = KindDecompose, EvalFull, 3
	c.Runs = DecomposeRuns(DecomposeWidth)
	c.Train.Seed = DecomposeFirstSeed
	c.FrontierExamples = 0
	if lrDecay {
		c.Out += "-lr"
		c.Train.LRSchedule, c.Train.MinLRRatio = train.LRCosine, 0.1
	}
	return c
}

// QuickDecomposeConfig is DecomposeConfig(lrDecay) at the quick study's budget, 2 seeds, the tiny width
// (tests; numbers meaningless).
func QuickDecomposeConfig(lrDecay bool) Config {
	q := QuickConfig()
	c := DecomposeConfig(lrDecay)
	c.Out, c.Quick, c.Seeds, c.Runs = "runs/study-decompose-quick", true, 2, DecomposeRuns(1)
	if lrDecay {
		c.Out += "-lr"
	}
	schedule, minRatio := c.Train.LRSchedule, c.Train.MinLRRatio
	c.Train, c.MQARPairs, c.ClaimPairs, c.MQARExamples, c.CurveExamples = q.Train, q.MQARPairs, q.ClaimPairs, q.MQARExamples, q.CurveExamples
	c.Train.Seed, c.Train.LRSchedule, c.Train.MinLRRatio = DecomposeFirstSeed, schedule, minRatio
	c.NeedleLengths, c.NeedleDepths, c.NeedleSamples, c.SwitchSequences = q.NeedleLengths, q.NeedleDepths, q.NeedleSamples, q.SwitchSequences
	c.CurveEvery, c.HeldOutSequences = q.CurveEvery, q.HeldOutSequences
	return c
}

// DecomposeResult is the decomposition's section of decompose.json.
type DecomposeResult struct {
	Seeds []int          `json:"seeds"` // the training seeds
	Rows  []DecomposeRow `json:"rows"`
	// Spreads are the one-seed spreads for claims.go's OneSeedSpreads (SD over these seeds of each claim
	// quantity), to be recorded with the run's command, date, commit, backend and load.
	Spreads map[string]Spread `json:"one_seed_spreads"`
}

// DecomposeRow is one part of (a)'s gap in one mode on one validation set: the per-seed relative loss gaps
// (L_candidate − L_reference)/L_reference with their Student-t bounds at Level.
type DecomposeRow struct {
	Part      string         `json:"part"` // mixed-training cost | architecture cost | total (a) gap
	Mode      string         `json:"mode"` // attention | linear
	Set       string         `json:"set"`  // language | mixture
	Candidate string         `json:"candidate"`
	Reference string         `json:"reference"`
	Gap       map[string]any `json:"gap"` // component.json: values, mean, se, df, lower, upper, different_from_zero

	est    estimate
	lo, hi float64
}

// The decomposition's parts: in each mode, candidate against reference.
var decomposeParts = []struct{ part, mode, cand, ref string }{
	{"mixed-training cost", "attention", "oryx-tg", "oryx-tg-p1"},
	{"architecture cost", "attention", "oryx-tg-p1", "transformer"},
	{"total (a) gap", "attention", "oryx-tg", "transformer"},
	{"mixed-training cost", "linear", "oryx-tg", "oryx-tg-p0"},
	{"architecture cost", "linear", "oryx-tg-p0", "gdn"},
	{"total (a) gap", "linear", "oryx-tg", "gdn"},
	// The mixed-training cost split by complementary training: interference (the other readout's objective
	// acting on the shared W_K, W_V, W_G, W_O, every token seen by both) and token halving (each readout trained
	// on about half of the tokens). The two add up to the total gap.
	{"interference: complementary vs baseline", "attention", "oryx-tg-complementary", "transformer"},
	{"token halving: p 0.5 vs complementary", "attention", "oryx-tg", "oryx-tg-complementary"},
	{"interference: complementary vs baseline", "linear", "oryx-tg-complementary", "gdn"},
	{"token halving: p 0.5 vs complementary", "linear", "oryx-tg", "oryx-tg-complementary"},
}

// lossOf is a run's final loss in mode on set: language (the trainer's validation) or mixture (held out).
func lossOf(m *ModelResult, mode, set string) float64 {
	if set == "mixture" {
		if l, ok := m.MixtureLoss[mode]; ok {
			return float64(l)
		}
		return math.NaN()
	}
	if m.Summary == nil {
		return math.NaN()
	}
	if l, ok := m.Summary.ValLoss[mode]; ok {
		return float64(l)
	}
	return math.NaN()
}

// decomposeResult tabulates the parts of (a)'s gap and the one-seed spreads of the claims.
func decomposeResult(c Config, models []*ModelResult, cls []Claim) *DecomposeResult {
	res := &DecomposeResult{Spreads: map[string]Spread{}}
	for k := 1; k <= c.seeds(); k++ {
		res.Seeds = append(res.Seeds, int(c.trainSeed(k)))
	}
	w := DecomposeWidth
	if len(c.Runs) > 0 {
		w = c.Runs[0].width()
	}
	for _, set := range []string{"language", "mixture"} {
		for _, p := range decomposeParts {
			cand, ref := seedsOf(models, p.cand, w), seedsOf(models, p.ref, w)
			var setSE float64
			gaps, seeds := perSeed(cand, ref, func(a, b *ModelResult) float64 {
				// The language on the held-out set when both runs were scored on it (heldout.go), with its SE.
				if ha, hb := a.HeldOut[p.mode], b.HeldOut[p.mode]; set == "language" && ha != nil && hb != nil && len(ha.PerSequence) > 0 {
					g, se := pairedGap(ha.PerSequence, hb.PerSequence)
					setSE += se
					return g
				}
				setSE = math.Inf(-1)
				return relativeGap(lossOf(a, p.mode, set), lossOf(b, p.mode, set))
			})
			if len(gaps) == 0 {
				continue
			}
			est := estimateOf(gaps, seeds, nil)
			est.SetSE = max(setSE/float64(len(gaps)), 0)
			cp := component{name: p.part, est: est, threshold: 0}
			_, outs := decideComponents([]component{cp})
			row := DecomposeRow{Part: p.part, Mode: p.mode, Set: set, Candidate: p.cand + " " + p.mode, Reference: p.ref + " " + p.mode,
				Gap: cp.json(outs[0]), est: cp.est, lo: outs[0].lo, hi: outs[0].hi}
			for _, k := range []string{"threshold", "claimed_side", "verdict", "fail_level"} {
				delete(row.Gap, k) // a part is measured, not tested against a threshold
			}
			res.Rows = append(res.Rows, row)
		}
	}
	res.Spreads = spreadsOf(c, cls)
	return res
}

// SpreadsLiteral is the Go text of claims.go's OneSeedSpreads from these measurements, source filled in
// (what `make study-decompose` prints for the maintainer to record before the demo that uses it).
func (r *DecomposeResult) SpreadsLiteral(source string) string {
	return SpreadsLiteral(r.Spreads, source)
}

// SpreadsLiteral is the Go text of claims.go's OneSeedSpreads from the spreads, source filled in.
func SpreadsLiteral(spreads map[string]Spread, source string) string {
	if len(spreads) == 0 {
		return "one-seed spreads: none measured (needs ≥ 2 seeds of the decomposition's runs)\n"
	}
	keys := make([]string, 0, len(spreads))
	for k := range spreads {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("one-seed spreads for recipes/study/claims.go (SD over the seeds of each claim quantity):\n" +
		"var OneSeedSpreads = map[string]Spread{\n")
	for _, k := range keys {
		s := spreads[k]
		set := ""
		if s.Set != "" {
			set = fmt.Sprintf(", Set: %q", s.Set)
		}
		fmt.Fprintf(&b, "\t%q: {SD: %g, Seeds: %#v, Width: %d, Steps: %d, LRSchedule: %q, Source: %q%s},\n", k, s.SD, s.Seeds, s.Width,
			s.Steps, s.LRSchedule, source, set)
	}
	b.WriteString("}\n")
	return b.String()
}

// decomposeMarkdown renders the decomposition's report.md section.
func decomposeMarkdown(c Config, rep *Report) string {
	r := rep.Decompose
	var b strings.Builder
	fmt.Fprintf(&b, "# The (a) decomposition\n\n%s, seeds %v, %d steps (%s tokens), %s learning rate; matched initialisation. "+
		"Relative loss gaps (L_candidate − L_reference)/L_reference per seed (paired by seed), mean and one-sided %.0f %% "+
		"Student-t bounds over the seeds (together a %.0f %% interval); * where the interval excludes 0.\n\n",
		sizesOf(c), r.Seeds, c.Train.Steps, human.Int(int64(c.Train.Steps)*c.Train.TokensPerStep()), lrWords(c), 100*Level, 100*(2*Level-1))
	b.WriteString("| set | mode | part | candidate vs reference | per seed | mean | interval |\n|---|---|---|---|---|---|---|\n")
	for _, row := range r.Rows {
		vals := make([]string, len(row.est.Values))
		for i, v := range row.est.Values {
			vals[i] = fmt.Sprintf("%+.2f %%", 100*v)
		}
		star := ""
		if row.lo > 0 || row.hi < 0 {
			star = " *"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s vs %s | %s | %+.2f %%%s | [%+.2f, %+.2f] %% |\n", row.Set, row.Mode, row.Part, row.Candidate,
			row.Reference, strings.Join(vals, " / "), 100*row.est.Mean, star, 100*row.lo, 100*row.hi)
	}
	b.WriteString("\n## The claims over these seeds\n\n| claim | verdict | measured |\n|---|---|---|\n")
	for _, cl := range rep.Claims {
		fmt.Fprintf(&b, "| `%s` | **%s** | %s |\n", cl.ID, strings.ReplaceAll(cl.Verdict, "_", " "), cl.Summary)
	}
	b.WriteString("\n```\n" + r.SpreadsLiteral(fmt.Sprintf("make study-decompose, %s, %s", rep.Date, rep.Backend)) + "```\n\n")
	b.WriteString(curvesMarkdown(c, rep))
	b.WriteString(throughputMarkdown(rep))
	return b.String()
}

// lrWords says the learning-rate schedule after warm-up.
func lrWords(c Config) string {
	if c.Train.LRSchedule == train.LRCosine {
		return fmt.Sprintf("cosine-decayed (to %g×)", c.Train.MinLRRatio)
	}
	return "constant"
}
