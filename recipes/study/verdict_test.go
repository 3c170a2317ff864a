package study

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTQuantiles: the one-sided Student-t quantiles the verdicts use, against the printed tables
// (t_{0.95, df} for 2, 3 and 5 seeds; t_{0.975, 2} for a two-component claim's Bonferroni level).
func TestTQuantiles(t *testing.T) {
	for _, c := range []struct {
		p    float64
		df   int
		want float64
	}{{0.95, 1, 6.3138}, {0.95, 2, 2.9200}, {0.95, 4, 2.1318}, {0.975, 2, 4.3027}, {0.975, 4, 2.7764}} {
		require.InDelta(t, c.want, tQuantile(c.p, c.df), 1e-4, "t_{%g, %d}", c.p, c.df)
	}
}

// TestEstimateBounds: mean, standard error and one-sided bounds computed by hand for 2, 3 and 5 seeds.
func TestEstimateBounds(t *testing.T) {
	// 3 seeds {1, 2, 3} %: mean 2 %, SD 1 %, SE 1/√3 %, df 2; bounds 2 ∓ 2.919986 · 0.57735 = 2 ∓ 1.68585 %.
	e := estimateOf([]float64{0.01, 0.02, 0.03}, nil, nil)
	require.InDelta(t, 0.02, e.Mean, 1e-15)
	require.InDelta(t, 0.01/math.Sqrt(3), e.SE, 1e-15)
	require.Equal(t, 2, e.DF)
	lo, hi := e.bounds(0.95)
	require.InDelta(t, 0.0031415, lo, 1e-6)
	require.InDelta(t, 0.0368585, hi, 1e-6)
	// 2 seeds {0, 1} %: mean 0.5 %, SD 0.7071 %, SE 0.5 %, df 1: ∓ 6.313752 · 0.5 %.
	lo, hi = estimateOf([]float64{0, 0.01}, nil, nil).bounds(0.95)
	require.InDelta(t, 0.005-0.0315688, lo, 1e-6)
	require.InDelta(t, 0.005+0.0315688, hi, 1e-6)
	// 5 seeds {−2, −1, 0, 1, 2} %: mean 0, SD √2.5 %, SE 0.70711 %, df 4: ∓ 2.131847 · 0.70711 % = ∓ 1.50744 %.
	lo, hi = estimateOf([]float64{-0.02, -0.01, 0, 0.01, 0.02}, nil, nil).bounds(0.95)
	require.InDelta(t, -0.0150744, lo, 1e-6)
	require.InDelta(t, 0.0150744, hi, 1e-6)
	// One seed: no bounds without a spread; with one, its SD and df.
	lo, hi = estimateOf([]float64{0.02}, nil, nil).bounds(0.95)
	require.True(t, math.IsNaN(lo) && math.IsNaN(hi))
	e = estimateOf([]float64{0.02}, nil, &Spread{SD: 0.01, Seeds: []int{2, 3, 4}})
	require.Equal(t, seFromRecorded, e.From)
	lo, hi = e.bounds(0.95)
	require.InDelta(t, 0.02-0.0291999, lo, 1e-6)
	require.InDelta(t, 0.02+0.0291999, hi, 1e-6)
}

// gapComps are claim (a)'s two comparisons for each seed, with the given gaps.
func gapComps(att, lin []float64) []Comparison {
	var out []Comparison
	for i, g := range att {
		out = append(out, Comparison{Name: compAttention, Seed: i + 1, Gap: g})
	}
	for i, g := range lin {
		out = append(out, Comparison{Name: compLinear, Seed: i + 1, Gap: g})
	}
	return out
}

func shift(v []float64, d float64) []float64 {
	out := make([]float64, len(v))
	for i := range v {
		out[i] = v[i] + d
	}
	return out
}

// TestClaimAVerdicts: non-inferiority at +1 % with t-bounds; each case is computed by hand above.
func TestClaimAVerdicts(t *testing.T) {
	c := Default()
	better := []float64{-0.05, -0.04, -0.03} // upper −0.0231: holds
	five := []float64{-0.02, -0.01, 0, 0.01, 0.02}
	cases := []struct {
		name     string
		att, lin []float64
		want     string
	}{
		{"5 seeds around 0: upper +1.51 % > 1 %, lower −1.51 % < 1 %", five, better, Inconclusive},
		{"5 seeds around −1 %: upper +0.51 % < 1 %", shift(five, -0.01), better, Holds},
		{"3 seeds at 6 %: lower at 97.5 % (Bonferroni) 3.52 % > 1 %", []float64{0.05, 0.06, 0.07}, better, Fails},
		// Lower bound at 95 %: 3 % − 1.686 % = 1.31 % > 1 %, but at the Bonferroni level 97.5 %: 3 % − 2.484 % = 0.52 %.
		{"3 seeds at 3 %: above the margin at 95 % only, not at the Bonferroni level", []float64{0.02, 0.03, 0.04}, better, Inconclusive},
		{"the linear mode fails", better, []float64{0.05, 0.06, 0.07}, Fails},
		{"one seed, no spread recorded: even a better Oryx is no verdict", []float64{-0.5}, []float64{-0.5}, Inconclusive},
	}
	withSpreads(t, map[string]Spread{}, func() { // the one-seed case: no spread recorded
		for _, cs := range cases {
			cl := claimA(c, gapComps(cs.att, cs.lin))
			require.Equal(t, cs.want, cl.Verdict, "%s: %s", cs.name, cl.Summary)
			require.True(t, cl.AsPaperStates)
			require.Equal(t, Level, cl.Level)
		}
	})
	require.Equal(t, NotMeasurable, claimA(c, gapComps([]float64{0.01, 0.03}, nil)).Verdict, "one comparison only")

	cl := claimA(c, gapComps([]float64{0.01, 0.02, 0.03}, better))
	n := cl.Numbers[snakeKey(compAttention)+"_gap"].(map[string]any)
	require.InDelta(t, 0.0031, n["lower"], 1e-4)
	require.InDelta(t, 0.0369, n["upper"], 1e-4)
	require.Equal(t, "above zero", n["different_from_zero"], "the gap is significantly positive")
	require.Equal(t, []any{0.01, 0.02, 0.03}, n["values"])
	require.Contains(t, cl.Summary, "per seed +1.00 % / +2.00 % / +3.00 %")

	// The study's first criterion: the same test at +5 %.
	require.Equal(t, Holds, claimAWithin5(c, gapComps([]float64{0.01, 0.02, 0.03}, better)).Verdict)
	require.Equal(t, Fails, claimAWithin5(c, gapComps([]float64{0.09, 0.1, 0.11}, better)).Verdict)
	require.False(t, claimAWithin5(c, nil).AsPaperStates)
}

// tinyDefault is the study's configuration with its runs at the tiny width, the width of the hand-made
// results (oryxSeed, transformerSeed).
func tinyDefault() Config {
	c := Default()
	c.Runs = DefaultRuns(1)
	return c
}

// withSpreads runs f with OneSeedSpreads replaced.
func withSpreads(t *testing.T, sp map[string]Spread, f func()) {
	old := OneSeedSpreads
	OneSeedSpreads = sp
	defer func() { OneSeedSpreads = old }()
	f()
}

// TestOneSeedVerdictUsesOtherSeedsSpread: a one-seed study is decided with a recorded spread only when it
// was measured at the study's width and steps on seeds that exclude the study's own.
func TestOneSeedVerdictUsesOtherSeedsSpread(t *testing.T) {
	c := Default()
	own := int(c.trainSeed(1))
	sp := func(seeds ...int) map[string]Spread {
		s := Spread{SD: 0.01, Seeds: seeds, Width: c.mainWidth(), Steps: c.Train.Steps, LRSchedule: c.Train.LRSchedule, Source: "test",
			Set: c.heldOutSetName()}
		return map[string]Spread{spreadGapAttention: s, spreadGapLinear: s}
	}
	// Bound: gap + t_{0.95, 2} · 1 % = gap + 2.92 %.
	withSpreads(t, sp(own+1, own+2, own+3), func() {
		require.Equal(t, Holds, claimA(c, gapComps([]float64{-0.02}, []float64{-0.02})).Verdict)         // upper 0.92 %
		require.Equal(t, Inconclusive, claimA(c, gapComps([]float64{-0.019}, []float64{-0.02})).Verdict) // 1.02 %
		require.Contains(t, claimA(c, gapComps([]float64{-0.02}, []float64{-0.02})).Summary, "recorded over seeds")
	})
	withSpreads(t, sp(own, own+1, own+2), func() {
		cl := claimA(c, gapComps([]float64{-0.02}, []float64{-0.02}))
		require.Equal(t, Inconclusive, cl.Verdict, "a spread that includes the study's own seed is not used")
		require.Contains(t, cl.Summary, "no spread measured on other seeds")
	})
	c2 := c
	c2.Train.Steps++
	withSpreads(t, sp(own+1, own+2, own+3), func() {
		require.Equal(t, Inconclusive, claimA(c2, gapComps([]float64{-0.02}, []float64{-0.02})).Verdict, "measured at another budget")
	})
	// A gap's spread read on another evaluation set (the trainer's 64 validation sequences) is another quantity.
	other := sp(own+1, own+2, own+3)
	for k, v := range other {
		v.Set = setCurve
		other[k] = v
	}
	withSpreads(t, other, func() {
		require.Equal(t, Inconclusive, claimA(c, gapComps([]float64{-0.02}, []float64{-0.02})).Verdict, "read on another set")
	})
}

// TestClaimBVerdicts: the per-seed ratio mixed / Transformer against 0.9 (MQAR; the needle has no samples,
// so it is not measurable and the claim has one component).
func TestClaimBVerdicts(t *testing.T) {
	c := tinyDefault()
	models := func(mixed ...float64) []*ModelResult {
		var out []*ModelResult
		for i, m := range mixed {
			out = append(out, transformerSeed(i+1, 1), oryxSeed(i+1, 0.99, 0.1, m, 0, 0, 0.05))
		}
		return out
	}
	// SE 1/√3 % over 3 seeds: bounds ∓ 1.686 points; one component: fails at 95 %.
	require.Equal(t, Holds, claimB(c, models(0.94, 0.95, 0.96)).Verdict)        // lower 0.933
	require.Equal(t, Fails, claimB(c, models(0.80, 0.81, 0.82)).Verdict)        // upper 0.827
	require.Equal(t, Inconclusive, claimB(c, models(0.88, 0.90, 0.92)).Verdict) // [0.856, 0.934]
	require.Equal(t, Inconclusive, claimB(c, models(0.99)).Verdict, "one seed, no spread")
	over := models(0.94, 0.95, 0.96)
	for _, m := range over {
		if m.Name == "oryx-tg" {
			m.Schedules[2].MQARCells = cells(0.95, 0.12)
		}
	}
	cl := claimB(c, over)
	require.Equal(t, Fails, cl.Verdict, "12 % of tokens in attention")
	require.Contains(t, cl.Summary, "not < 10 %")
	cl = claimB(c, []*ModelResult{transformerSeed(1, 0.016), oryxSeed(1, 0.5, 0.1, 0.5, 0, 0, 0.05)})
	require.Equal(t, NotMeasurable, cl.Verdict, "the Transformer at chance")
	require.Contains(t, cl.Summary, "not measurable")
	require.Equal(t, NotMeasurable, claimB(c, []*ModelResult{oryxSeed(1, 0.5, 0.1, 0.5, 0, 0, 0.05)}).Verdict, "no transformer run")
	n := claimB(c, models(0.94, 0.95, 0.96)).Numbers["mqar_mixed_to_transformer_ratio"].(map[string]any)
	require.InDelta(t, 0.95, n["mean"], 1e-12)
	require.InDelta(t, 0.9331, n["lower"], 1e-4)

	// (b) against Oryx-TG's own attention mode: the same test.
	self := []*ModelResult{oryxSeed(1, 0.96, 0.1, 0.92, 0, 0, 0.05), oryxSeed(2, 0.96, 0.1, 0.93, 0, 0, 0.05), oryxSeed(3, 0.96, 0.1, 0.94, 0, 0, 0.05)}
	require.Equal(t, Holds, claimBSelf(c, self).Verdict) // ratios 0.958 / 0.969 / 0.979
	require.Equal(t, NotMeasurable, claimBSelf(c, []*ModelResult{oryxResult(0.02, 0.02, 0.02, 0.02, 0.02)}).Verdict)
	require.False(t, claimBSelf(c, self).AsPaperStates)
}

// TestClaimCVerdicts: switched − pure accuracy against −5 points in both directions.
func TestClaimCVerdicts(t *testing.T) {
	c := tinyDefault()
	seeds := func(dAL, dLA []float64) []*ModelResult {
		var out []*ModelResult
		for i := range dAL {
			out = append(out, oryxSeed(i+1, 0.9, 0.1, 0, 0.1+dAL[i], 0.9+dLA[i], 0.05))
		}
		return out
	}
	near := []float64{-0.01, 0, 0.01} // lower −1.69 points: holds
	require.Equal(t, Holds, claimC(c, seeds(near, near)).Verdict)
	require.Equal(t, Fails, claimC(c, seeds(near, []float64{-0.32, -0.31, -0.30})).Verdict) // upper at 97.5 %: −28.5 points
	require.Equal(t, Inconclusive, claimC(c, seeds(near, []float64{-0.06, -0.04, -0.02})).Verdict)
	require.Equal(t, Inconclusive, claimC(c, seeds([]float64{0}, []float64{0})).Verdict, "one seed, no spread")
	require.Equal(t, NotMeasurable, claimC(c, []*ModelResult{oryxResult(0.9, 0.88, 0, 0.88, 0.9)}).Verdict, "pure modes alike")
	require.Equal(t, NotMeasurable, claimC(c, nil).Verdict)
}
