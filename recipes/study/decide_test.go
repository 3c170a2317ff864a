package study

import (
	"context"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/oryx-go/oryx/evals/evalapi"
	"github.com/oryx-go/oryx/recipes/train"
)

// TestPairedGap: the relative gap of paired per-sequence losses and its delta-method SE, by hand: a run whose
// every loss is 2 % above the other's has gap 2 % and SE 0; with a = (1.1, 2.1, 2.9, 4.3), b = (1, 2, 3, 4):
// R = 10.4/10 = 1.04, z = a − R·b = (0.06, 0.02, −0.22, 0.14), sd(z) = √(0.072/3), SE = sd(z)/(√4·2.5).
func TestPairedGap(t *testing.T) {
	b := []float64{1, 2, 3, 4}
	a := []float64{1.02, 2.04, 3.06, 4.08}
	g, se := pairedGap(a, b)
	require.InDelta(t, 0.02, g, 1e-12)
	require.InDelta(t, 0, se, 1e-12)
	g, se = pairedGap([]float64{1.1, 2.1, 2.9, 4.3}, b)
	require.InDelta(t, 0.04, g, 1e-12)
	require.InDelta(t, math.Sqrt(0.072/3)/(2*2.5), se, 1e-12)
	for _, bad := range [][]float64{{1, 2, 3}, {1, 2, 0, 4}, {1, 2, math.Inf(1), 4}, {1, math.NaN(), 3, 4}} {
		g, se = pairedGap(bad, b)
		require.True(t, math.IsNaN(g) && math.IsNaN(se), "%v", bad)
	}
}

// TestPairedGapCoverage: over many independent held-out sets drawn from one "language" (sequences of
// correlated losses), the delta-method SE of one set matches the spread of the gap across sets.
func TestPairedGapCoverage(t *testing.T) {
	rng := distuv.Normal{Mu: 0, Sigma: 1}
	rng.Src = rand.NewPCG(7, 8)
	const n, sets = 256, 400
	var gaps, ses []float64
	for s := 0; s < sets; s++ {
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			base := 2 + 0.25*rng.Rand() // a sequence's difficulty, shared by both runs
			b[i] = base
			a[i] = base*1.02 + 0.05*rng.Rand()
		}
		g, se := pairedGap(a, b)
		gaps, ses = append(gaps, g), append(ses, se)
	}
	mean, _ := meanSE(gaps)
	var ss, meanSEs float64
	for i, g := range gaps {
		ss += (g - mean) * (g - mean)
		meanSEs += ses[i] / sets
	}
	sd := math.Sqrt(ss / (sets - 1))
	require.InDelta(t, 0.02, mean, 0.002)
	require.InDelta(t, sd, meanSEs, 0.15*sd, "the SE of one set ≈ the SD of the gap over sets")
}

// TestBoundsCarryTheSetError: the bounds add the set's SE to the seeds' and use Welch–Satterthwaite's df: with
// values (1, 2, 3) % (SE 0.577 %, df 2) and a set SE of 0.5 %, total² = 1/3 + 1/4 (in %²) and
// df = 2·(7/12)²/(1/3)² = 6.125.
func TestBoundsCarryTheSetError(t *testing.T) {
	e := estimateOf([]float64{0.01, 0.02, 0.03}, nil, nil)
	e.SetSE = 0.005
	require.InDelta(t, math.Sqrt(1.0/3+0.25)/100, e.totalSE(), 1e-12)
	require.InDelta(t, 6.125, e.dfEffective(), 1e-9)
	lo, hi := e.bounds(0.95)
	h := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 6.125}.Quantile(0.95) * e.totalSE()
	require.InDelta(t, 0.02-h, lo, 1e-12)
	require.InDelta(t, 0.02+h, hi, 1e-12)
	// Without a set error the bounds are the seeds' alone, as before.
	e.SetSE = 0
	lo, _ = e.bounds(0.95)
	require.InDelta(t, 0.02-2.919986*math.Sqrt(1.0/3)/100, lo, 1e-8)
	// A recorded spread (one seed) and a set error: df 9 grows the same way.
	one := estimateOf([]float64{0.02}, []int{1}, &Spread{SD: 0.006, Seeds: []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11}})
	one.SetSE = 0.0008
	require.InDelta(t, 9*math.Pow(0.006*0.006+0.0008*0.0008, 2)/math.Pow(0.006, 4), one.dfEffective(), 1e-9)
}

// TestClopperPearson: the exact one-sided bounds, by their closed forms at the edges: k = n gives the lower
// bound (1 − p)^(1/n), k = 0 the upper bound 1 − (1 − p)^(1/n); and a middle value against the binomial tail.
func TestClopperPearson(t *testing.T) {
	lo, hi := clopperPearson(10, 10, 0.95)
	require.InDelta(t, math.Pow(0.05, 0.1), lo, 1e-9)
	require.Equal(t, 1.0, hi)
	lo, hi = clopperPearson(0, 4, 0.95)
	require.Equal(t, 0.0, lo)
	require.InDelta(t, 1-math.Pow(0.05, 0.25), hi, 1e-9)
	// 0 failures in 4 seeds still allows a transition probability as low as 0.47 (the "up to 53 %").
	lo, _ = clopperPearson(4, 4, 0.95)
	require.InDelta(t, 0.4729, lo, 1e-4)
	// 7 of 10: P(X ≥ 7 | p = lo) = 0.05.
	lo, _ = clopperPearson(7, 10, 0.95)
	tail := 0.0
	for k := 7; k <= 10; k++ {
		tail += distuv.Binomial{N: 10, P: lo}.Prob(float64(k))
	}
	require.InDelta(t, 0.05, tail, 1e-9)
}

// TestLookLevels: the looks' levels spend exactly α over the planned looks (O'Brien–Fleming type: almost
// nothing at the first look), each increment as its look's level.
func TestLookLevels(t *testing.T) {
	ls := LookLevels([]int{3, 6, 10, 12}, 0.05)
	spent := 0.0
	for _, l := range ls {
		require.Greater(t, l, 0.95)
		spent += 1 - l
	}
	require.InDelta(t, 0.05, spent, 1e-12)
	z := distuv.UnitNormal.Quantile(0.975)
	require.InDelta(t, 1-(2-2*distuv.UnitNormal.CDF(z/0.5)), ls[0], 1e-12, "t = 3/12: z/√t = 2z")
	require.Less(t, 1-ls[0], 1e-4)
	require.Equal(t, []float64{0.95}, LookLevels([]int{5}, 0.05), "one look: the whole α")
}

// recallSeed is an oryx-tg seed whose mixed recall curve ends at end (crossing 50 % or not) and whose MQAR
// accuracies are att, mixed.
func recallSeed(k int, end, att, mix float64) *ModelResult {
	m := oryxSeed(k, att, 0.3, mix, 0.5, 0.5, 0.05)
	m.Curves = map[string]*RecallCurve{evalapi.Mixed: {Tokens: []int64{100, 200, 300}, Accuracy: []float64{0.02, 0.03, end}}}
	return m
}

func recallTransformer(k int, att float64) *ModelResult {
	return &ModelResult{RunSpec: RunSpec{Name: "transformer"}, Seed: k, Schedules: []ScheduleResult{{Schedule: "attention", MQARCells: cells(att, 1)}},
		Curves: map[string]*RecallCurve{"attention": {Tokens: []int64{100, 200, 300}, Accuracy: []float64{0.02, 0.9, 0.99}}}}
}

// TestRecallTwoPartRule: (b) is the share of seeds whose recall transition happened (exact binomial) and the
// ratio on those seeds: 10 of 10 transitioned with ratios ≈ 0.97 holds; 9 of 10 with the tenth at chance
// still holds, its ratio left out of part 2 (the t-interval over all ten would have failed to hold); 1 of 10
// fails part 1 whatever the ratios, 3 of 10 is inconclusive.
func TestRecallTwoPartRule(t *testing.T) {
	c := QuickConfig()
	c.Seeds = 10
	run := func(ends []float64) Claim {
		var models []*ModelResult
		for k := 1; k <= 10; k++ {
			mix := 0.97 + 0.004*float64(k%3)
			if ends[k-1] < 0.5 {
				mix = 0.03
			}
			models = append(models, recallSeed(k, ends[k-1], 0.99, mix), recallTransformer(k, 0.99))
		}
		return claimB(c, models)
	}
	all := []float64{0.95, 0.96, 0.97, 0.95, 0.96, 0.97, 0.95, 0.96, 0.97, 0.95}
	cl := run(all)
	require.Equal(t, Holds, cl.Verdict, cl.Summary)
	share := cl.Numbers["recall_transition_share"].(map[string]any)
	require.Equal(t, Holds, share["verdict"])
	require.InDelta(t, math.Pow(0.05, 0.1), share["lower"], 1e-4)
	nine := append([]float64{0.03}, all[1:]...)
	cl = run(nine)
	require.Equal(t, Holds, cl.Verdict, cl.Summary)
	ratio := cl.Numbers["mqar_mixed_to_transformer_ratio"].(map[string]any)
	require.Len(t, ratio["values"], 9, "part 2 reads the seeds that made the transition")
	// 3 of 10 is not enough to fail (upper bound 0.65 at the Bonferroni level); 1 of 10 is (0.45).
	three := []float64{0.95, 0.96, 0.97, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03}
	cl = run(three)
	require.Equal(t, Inconclusive, cl.Verdict, cl.Summary)
	one := []float64{0.95, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03}
	cl = run(one)
	require.Equal(t, Fails, cl.Verdict, cl.Summary)
	require.Equal(t, Fails, cl.Numbers["recall_transition_share"].(map[string]any)["verdict"])
	require.Contains(t, cl.Numbers, "reference_transition_share")
}

// TestSwitchPreconditionPerRun: (c)'s precondition is judged per run: a seed whose pure modes agree is left
// out (and listed), the others decide; with none passing (c) is not measurable.
func TestSwitchPreconditionPerRun(t *testing.T) {
	c := QuickConfig()
	c.Seeds = 3
	models := []*ModelResult{
		oryxSeed(1, 0.95, 0.5, 0.95, 0.93, 0.52, 0.05), oryxSeed(2, 0.95, 0.94, 0.95, 0.93, 0.94, 0.05),
		oryxSeed(3, 0.96, 0.6, 0.95, 0.94, 0.61, 0.05)}
	for _, m := range models {
		m.SwitchMQAR = map[string]map[int]mqarCell{evalapi.AttentionToLinear: cells(m.sched("linear").MQARCells[4].Accuracy, 0.3),
			evalapi.LinearToAttention: cells(m.sched("attention").MQARCells[4].Accuracy-0.01, 0.3)}
	}
	cl := claimC(c, models)
	pre := cl.Numbers["precondition"].([]map[string]any)
	require.Len(t, pre, 3)
	require.Equal(t, false, pre[1]["passes"])
	require.Len(t, cl.Numbers["attention_to_linear_minus_linear"].(map[string]any)["values"], 2)
	require.Contains(t, cl.Summary, "2 of 3 runs pass the precondition")
	cl = claimC(c, models[1:2])
	require.Equal(t, NotMeasurable, cl.Verdict)
}

// TestQuickDecide: the sequential study at a tiny budget (GDN and Oryx-TG, looks at 2 and 3 seeds, 4 steps):
// each look trains only its new seeds and evaluates only their runs (the earlier looks' evaluations come from
// the cache), judges the targets at its own level, and decide.json records every look; the one-seed spreads
// come from the look of DecideSpreadSeeds seeds (training seeds 2–3, never the demo's 1). A second run of the
// same study trains and evaluates nothing and gives the same looks.
func TestQuickDecide(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: trains six quick runs")
	}
	c := QuickDecideConfig()
	c.Out, c.Evaluation = t.TempDir(), EvalMQAR
	c.Runs = c.Runs[1:] // gdn, oryx-tg: what (a) in linear mode needs
	c.Train.Steps, c.Train.EvalEvery = 4, 2
	var log strings.Builder
	rep, err := Run(context.Background(), c, &log)
	require.NoError(t, err)
	d := rep.Decide
	require.NotNil(t, d)
	require.Len(t, d.Looks, 2, "nothing is decided at this budget: both planned looks are made")
	require.Equal(t, "planned looks done", d.StoppedBy)
	require.Equal(t, []int{2, 3}, d.Looks[0].TrainSeeds)
	require.Equal(t, []int{2, 3, 4}, d.Looks[1].TrainSeeds)
	require.Equal(t, LookLevels([]int{2, 3}, DecideAlpha), []float64{d.Looks[0].Level, d.Looks[1].Level})
	require.Equal(t, 4, strings.Count(log.String(), "evaluated before"), "the second look does not evaluate the first look's four runs again")
	require.NotNil(t, d.Spreads, "recorded at the look of DecideSpreadSeeds seeds (without the Transformer only (c) has components, "+
		"and at 4 steps its precondition fails: TestSpreadsOf checks the values)")
	require.FileExists(t, filepath.Join(c.Out, "decide.json"))
	require.FileExists(t, filepath.Join(c.Out, "report.md"))
	for _, m := range rep.Models {
		require.NotEmpty(t, m.HeldOut, m.Name)
		require.Len(t, m.HeldOut[map[string]string{"gdn": "linear", "oryx-tg": "linear"}[m.Name]].PerSequence, c.HeldOutSequences)
	}
	// (a)'s linear gap is read on the held-out set, with its SE.
	var found bool
	for _, cp := range rep.Controls {
		if cp.Name == compLinear {
			found = true
			require.Equal(t, "held-out 16 sequences", cp.Set)
			require.Greater(t, cp.SetSE, 0.0)
		}
	}
	require.True(t, found)
	log.Reset()
	again, err := Run(context.Background(), c, &log)
	require.NoError(t, err)
	require.NotContains(t, log.String(), "evaluating ")
	require.Equal(t, len(d.Looks), len(again.Decide.Looks))
	for k := range d.Looks {
		require.Equal(t, d.Looks[k].Claims, again.Decide.Looks[k].Claims)
	}
}

// TestSpreadsOf: the one-seed spreads are the SD over the seeds of each claim quantity, recorded with the
// training seeds (DecideConfig's seed k is training seed k+1), and the recall transitions count the seeds that
// made theirs; a share is not a spread.
func TestSpreadsOf(t *testing.T) {
	c := DecideConfig()
	c.Seeds = 3
	var comps []Comparison
	var models []*ModelResult
	for k, g := range []float64{0.01, 0.02, 0.03} {
		comps = append(comps, Comparison{Name: compLinear, Seed: k + 1, Gap: g}, Comparison{Name: compAttention, Seed: k + 1, Gap: 2 * g})
		end := 0.95
		if k == 2 {
			end = 0.1
		}
		models = append(models, recallSeed(k+1, end, 0.99, 0.97), recallTransformer(k+1, 0.99))
	}
	for _, m := range models {
		m.Width = DemoWidth
	}
	cls := []Claim{claimA(c, comps), claimB(c, models)}
	sp := spreadsOf(c, cls)
	require.InDelta(t, 0.01, sp[spreadGapLinear].SD, 1e-9)
	require.InDelta(t, 0.02, sp[spreadGapAttention].SD, 1e-9)
	require.Equal(t, []int{2, 3, 4}, sp[spreadGapLinear].Seeds)
	require.Equal(t, DemoWidth, sp[spreadGapLinear].Width)
	require.NotContains(t, sp, spreadTransition)
	require.Equal(t, []int{2, 3}, sp[ratioSpreadKey("mqar", referenceTransformer)].Seeds, "the ratio's spread over the seeds that transitioned")
	tr := transitionsOf(c, cls)
	require.Equal(t, RecordedShare{K: 2, Seeds: []int{2, 3, 4}, Width: DemoWidth, Steps: DemoSteps, LRSchedule: c.Train.LRSchedule}, tr[spreadTransition])
	require.Contains(t, TransitionsLiteral(tr, "test"), `"b_recall_transition": {K: 2, Seeds: []int{2, 3, 4}`)
}

// TestEvalKey: a cached evaluation is used again only for the same run, seed, final training numbers and
// evaluation settings.
func TestEvalKey(t *testing.T) {
	c := DecideConfig()
	j, _ := c.job(0)
	sum := &train.Summary{Name: "transformer-tiny2x-s1", Steps: 900, Tokens: 3686400, TrainLoss: 1.5}
	k0, err := evalKey(c, j, sum)
	require.NoError(t, err)
	k1, _ := evalKey(c, j, sum)
	require.Equal(t, k0, k1)
	c2 := c
	c2.HeldOutSequences = 1024
	k2, _ := evalKey(c2, j, sum)
	require.NotEqual(t, k0, k2, "another held-out set")
	j2, _ := c.job(1)
	k3, _ := evalKey(c, j2, sum)
	require.NotEqual(t, k0, k3, "another seed")
	longer := *sum
	longer.Steps = 1000
	k4, _ := evalKey(c, j, &longer)
	require.NotEqual(t, k0, k4, "an extended run")
	c3 := c
	c3.DecideBudget.MaxSeeds = 5
	k5, _ := evalKey(c3, j, sum)
	require.Equal(t, k0, k5, "settings that do not change the evaluation do not change the key")
}

// TestEvalKeyDataContent: a text file of the data spec that changes between two runs of a study (same path,
// same spec string) changes the key, so that a cached evaluation on the old held-out set is not used beside
// new ones on the new set (the pairing of the held-out gaps needs one set); the same content, the same key.
func TestEvalKeyDataContent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "corpus.txt")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("one line of text\n", 200)), 0o644))
	c := DecideConfig()
	c.Data = "mix:synth=1,text:" + path + "=1"
	j, _ := c.job(0)
	sum := &train.Summary{Name: "transformer-tiny2x-s1", Steps: 900, Tokens: 3686400, TrainLoss: 1.5}
	k0, err := evalKey(c, j, sum)
	require.NoError(t, err)
	k1, err := evalKey(c, j, sum)
	require.NoError(t, err)
	require.Equal(t, k0, k1)
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("another line, else\n", 200)), 0o644))
	k2, err := evalKey(c, j, sum)
	require.NoError(t, err)
	require.NotEqual(t, k0, k2, "the text file changed")
	require.NoError(t, os.Remove(path))
	_, err = evalKey(c, j, sum)
	require.ErrorContains(t, err, path)
}

// TestDecideSeedBudgetBelowFirstLook: a seed budget below the first planned look is refused naming the flag
// and the look, before anything is written; it ran no look, returned success and rewrote decide.json and
// report.md without the looks an earlier run had made.
func TestDecideSeedBudgetBelowFirstLook(t *testing.T) {
	c := QuickDecideConfig()
	c.Out = filepath.Join(t.TempDir(), "study")
	c.DecideBudget.MaxSeeds = c.DecideLooks[0] - 1
	err := runDecide(context.Background(), c, &Report{Config: c}, io.Discard, time.Now())
	require.ErrorContains(t, err, "--budget-seeds 1 is below the first look's 2 seeds: no look would start")
	_, statErr := os.Stat(c.Out)
	require.ErrorIs(t, statErr, os.ErrNotExist, "nothing written")
}
