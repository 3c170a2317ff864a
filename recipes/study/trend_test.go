package study

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/recipes/train"
)

// trendPoints builds the points of budgets (tokens per step tps) with seed k's gap gap(k, T), k = 2, 3, 4.
func trendPoints(budgets []int, tps int64, seeds []int, gap func(k int, T float64) float64) []TrendPoint {
	var out []TrendPoint
	for _, s := range budgets {
		T := float64(int64(s) * tps)
		var vals []float64
		for _, k := range seeds {
			vals = append(vals, gap(k, T))
		}
		out = append(out, TrendPoint{Steps: s, Tokens: int64(s) * tps, est: estimateOf(vals, seeds, nil)})
	}
	return out
}

// fitOf returns the fit of form among fits.
func fitOf(t *testing.T, fits []TrendFit, form string) TrendFit {
	for _, f := range fits {
		if f.Form == form {
			return f
		}
	}
	t.Fatalf("no %s fit", form)
	return TrendFit{}
}

// TestTrendFitRecoversPowerLaw: gaps that follow a known power law per seed give back its a and b (exactly
// without noise, within 0.03 in b with 1 % multiplicative noise), each seed's +1 % crossing (a/0.01)^(1/b),
// their geometric mean as the crossing, and bounds that are Student t's over the seeds' ln crossings.
func TestTrendFitRecoversPowerLaw(t *testing.T) {
	seeds := []int{2, 3, 4}
	b := map[int]float64{2: 0.45, 3: 0.5, 4: 0.55}
	cross := map[int]float64{2: 3.0e6, 3: 3.69e6, 4: 4.5e6} // where each seed's gap is +1 %
	a := func(k int) float64 { return 0.01 * math.Pow(cross[k], b[k]) }
	for _, noise := range []float64{0, 0.01} {
		pts := trendPoints(TrendBudgets, 4096, seeds, func(k int, T float64) float64 {
			wobble := 1 + noise*math.Sin(float64(k)*T/1e5) // a deterministic ±1 % "noise"
			return a(k) * math.Pow(T, -b[k]) * wobble
		})
		pl := fitOf(t, fitTrend(pts, TrendBudgets, 4096), FormPowerLaw)
		require.Len(t, pl.PerSeed, 3)
		var lns []float64
		for i, sf := range pl.PerSeed {
			k := seeds[i]
			require.True(t, sf.ok, "seed %d: %s", k, sf.Note)
			require.Equal(t, k, sf.Seed)
			require.Equal(t, len(TrendBudgets), sf.Points)
			if noise == 0 {
				require.InDelta(t, b[k], sf.b, 1e-9)
				require.InEpsilon(t, a(k), sf.a, 1e-9)
			} else {
				require.InDelta(t, b[k], sf.b, 0.03)
			}
			lns = append(lns, math.Log((sf.a/0.01))/sf.b)
		}
		require.NotNil(t, pl.Slope)
		require.InDelta(t, 0.5, pl.slope, 0.03, "the seeds' mean exponent")
		require.Less(t, pl.slopeLo, pl.slope)
		require.Greater(t, pl.slopeHi, pl.slope)
		cr := pl.Crossings[0]
		require.Equal(t, MarginA, cr.Level)
		require.Equal(t, CrossWithin, cr.Status, cr.Words)
		m, se := meanSE(lns)
		h := tQuantile(Level, 2) * se
		require.InEpsilon(t, math.Exp(m), cr.Tokens.(float64), 1e-4)
		require.InEpsilon(t, math.Exp(m-h), cr.Lower.(float64), 1e-4)
		require.InEpsilon(t, math.Exp(m+h), cr.Upper.(float64), 1e-4)
		if noise == 0 {
			for i, k := range seeds {
				require.InEpsilon(t, cross[k], cr.PerSeed[i].(float64), 1e-4)
			}
			require.InEpsilon(t, math.Cbrt(cross[2]*cross[3]*cross[4]), cr.Tokens.(float64), 1e-4)
		}
		require.Contains(t, cr.Words, "within the measured")
		require.NotContains(t, cr.Words, "extrapolated")
		// 0: a power law never gets there.
		require.Equal(t, CrossUndetermined, pl.Crossings[1].Status)
		require.Contains(t, pl.Crossings[1].Words, "never reaches 0")
	}
}

// TestTrendLogLinearCrossesZero: the log-linear form recovers α and β and finds the 0 crossing −α/β; its
// values may be negative (no sign condition).
func TestTrendLogLinearCrossesZero(t *testing.T) {
	seeds := []int{2, 3, 4}
	zero := map[int]float64{2: 4e6, 3: 5e6, 4: 6e6}
	beta := -0.01
	pts := trendPoints(TrendBudgets, 4096, seeds, func(k int, T float64) float64 { return beta * (math.Log(T) - math.Log(zero[k])) })
	ll := fitOf(t, fitTrend(pts, TrendBudgets, 4096), FormLogLinear)
	for i, sf := range ll.PerSeed {
		require.True(t, sf.ok)
		require.InDelta(t, beta, sf.b, 1e-12)
		require.InDelta(t, -beta*math.Log(zero[seeds[i]]), sf.a, 1e-9)
	}
	var zc TrendCrossing
	for _, cr := range ll.Crossings {
		if cr.Level == 0 {
			zc = cr
		}
	}
	require.Equal(t, CrossWithin, zc.Status, zc.Words)
	require.InEpsilon(t, math.Cbrt(4e6*5e6*6e6), zc.Tokens.(float64), 1e-4)
	require.Contains(t, zc.Words, "falling")
	// The power law is not fitted: the seeds' gaps go negative.
	pl := fitOf(t, fitTrend(pts, TrendBudgets, 4096), FormPowerLaw)
	require.False(t, pl.PerSeed[0].ok)
	require.Nil(t, pl.Slope, "no rate over the seeds unless every seed is fitted")
	require.NotNil(t, ll.Slope)
	require.Contains(t, pl.PerSeed[0].Note, "≤ 0")
	require.Equal(t, CrossUndetermined, pl.Crossings[0].Status)
	require.Contains(t, pl.Crossings[0].Words, "do not determine")
	require.Contains(t, pl.Crossings[0].Words, "seed 2 has no fit")
}

// TestTrendCrossingWording: a crossing beyond the budgets is "extrapolated" with its interval; beyond 100× them,
// with one seed, with seeds moving in opposite directions, or with a flat fit, "not determined" and no number
// quoted as its interval.
func TestTrendCrossingWording(t *testing.T) {
	lo, hi := 225*4096.0, 1800*4096.0
	pl := func(seed int, crossT, b float64) TrendSeedFit { // a power law through +1 % at crossT
		return TrendSeedFit{Seed: seed, a: 0.01 * math.Pow(crossT, b), b: b, ok: true}
	}
	cases := []struct {
		name   string
		fits   []TrendSeedFit
		status string
		words  []string
	}{
		{"extrapolated", []TrendSeedFit{pl(2, 2e7, 0.4), pl(3, 2.5e7, 0.4), pl(4, 3e7, 0.4)}, CrossExtrapolated,
			[]string{"extrapolated, the gap (falling) would reach +1 %", "interval [", "reaching outside the measured"}},
		{"beyond 100×", []TrendSeedFit{pl(2, 2e7, 0.4), pl(3, 2e9, 0.4), pl(4, 3e10, 0.4)}, CrossUndetermined,
			[]string{"do not determine", "beyond 100× the measured"}},
		{"one seed", []TrendSeedFit{pl(2, 3e6, 0.4)}, CrossUndetermined, []string{"one seed", "no spread"}},
		{"opposite directions", []TrendSeedFit{pl(2, 3e6, 0.4), pl(3, 3e6, -0.4)}, CrossUndetermined, []string{"opposite directions"}},
		{"flat", []TrendSeedFit{pl(2, 3e6, 0.4), {Seed: 3, a: 0.02, b: 0, ok: true}}, CrossUndetermined, []string{"seed 3", "flat"}},
		{"no fit", []TrendSeedFit{pl(2, 3e6, 0.4), {Seed: 3, Note: "gap −0.10 % ≤ 0"}}, CrossUndetermined, []string{"seed 3 has no fit (gap −0.10 % ≤ 0)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cr := crossing(FormPowerLaw, tc.fits, MarginA, lo, hi)
			require.Equal(t, tc.status, cr.Status, cr.Words)
			for _, w := range tc.words {
				require.Contains(t, cr.Words, w)
			}
			if tc.status == CrossUndetermined {
				require.Nil(t, cr.Lower)
				require.Nil(t, cr.Upper)
				require.NotContains(t, cr.Words, "interval [")
			} else {
				require.Greater(t, cr.Upper.(float64), hi)
			}
			_, err := json.Marshal(cr) // huge or infinite crossings must still encode
			require.NoError(t, err)
		})
	}
}

// TestTrendConfig: the trend's design as fixed in code — three models at tiny2x and tiny, seeds 2–4, ≥ 4
// budgets that are validation steps ending at the training's last step, a constant learning rate, the English
// data under datasets.DefaultDataDir with the held-out fraction — and checkTrend refuses what would not give
// budgets' gaps.
func TestTrendConfig(t *testing.T) {
	for _, english := range []bool{false, true} {
		c := TrendConfig(english)
		require.Equal(t, KindTrend, c.Kind)
		require.Equal(t, 3, c.Seeds)
		require.Equal(t, uint64(2), c.Train.Seed)
		require.Equal(t, train.LRConstant, c.Train.LRSchedule)
		require.GreaterOrEqual(t, len(c.TrendBudgets), 4)
		require.Equal(t, c.Train.Steps, c.TrendBudgets[len(c.TrendBudgets)-1])
		for _, b := range c.TrendBudgets {
			require.Zero(t, b%c.Train.EvalEvery, "budget %d", b)
		}
		var widths []int
		for _, r := range c.Runs {
			if !slices.Contains(widths, r.width()) {
				widths = append(widths, r.width())
			}
		}
		require.Equal(t, []int{2, 1}, widths)
		require.Len(t, c.Runs, 6)
		require.Equal(t, english, datasets.HasHeldOut(c.Data))
		if english {
			require.Equal(t, "runs/study-trend", c.Out)
			require.Contains(t, c.Data, "text:"+datasets.DefaultDataDir+"/tinyshakespeare/input.txt=1")
			require.Contains(t, c.Data, "text:"+datasets.DefaultDataDir+"/wikitext2/wiki.test.raw=1")
			require.Contains(t, c.Data, "heldout=0.2")
			require.Equal(t, TrendEnglishSequences, c.HeldOutSequences)
		} else {
			require.Equal(t, Default().Data, c.Data)
		}
	}
	c := QuickTrendConfig(false)
	for name, f := range map[string]func(*Config){
		"not a validation step": func(c *Config) { c.TrendBudgets = []int{3, 8} },
		"not increasing":        func(c *Config) { c.TrendBudgets = []int{4, 2, 8} },
		"short of the end":      func(c *Config) { c.TrendBudgets = []int{2, 4} },
		"one budget":            func(c *Config) { c.TrendBudgets = []int{8} },
		"cosine":                func(c *Config) { c.Train.LRSchedule = train.LRCosine },
	} {
		cc := c
		f(&cc)
		require.Error(t, checkConfig(cc), name)
	}
	require.NoError(t, checkConfig(c))
}

// TestTrendResultFromScores: trendResult reads every run's score files at every budget, at both widths: the
// per-seed gaps are the files' paired gaps (named by training seed), the set's SE is theirs, and a linear gap
// planted as a power law per seed gives back its exponents and its +1 % crossing.
func TestTrendResultFromScores(t *testing.T) {
	c := QuickTrendConfig(false)
	c.Out = t.TempDir()
	c.Train.Steps, c.Train.EvalEvery, c.TrendBudgets = 1800, 75, slices.Clone(TrendBudgets)
	_, fp, err := trendSet(c)
	require.NoError(t, err)
	b := map[int]float64{1: 0.45, 2: 0.55}       // by seed index
	cross := map[int]float64{1: 3e6, 2: 4e6}     // +1 % crossings at tiny2x
	gapOf := func(w, k int, T float64) float64 { // linear mode: a power law through +1 % at cross
		return 0.01 * math.Pow(cross[k]*float64(w), b[k]) * math.Pow(T, -b[k]) // tiny's crossing at half tiny2x's tokens
	}
	var models []*ModelResult
	for _, r := range c.Runs {
		for k := 1; k <= c.seeds(); k++ {
			models = append(models, &ModelResult{RunSpec: r, Seed: k, Params: 1000 * int64(r.width())})
			for _, step := range c.TrendBudgets {
				T := float64(int64(step) * c.Train.TokensPerStep())
				sc := trendScores{Run: c.label(job{r, k}), Step: step, Tokens: int64(T), Set: fp, Sequences: c.HeldOutSequences,
					Losses: map[string][]float64{}}
				for _, mode := range schedulesOf(r.Variant) {
					if mode != "attention" && mode != "linear" {
						continue
					}
					l := make([]float64, c.HeldOutSequences)
					for i := range l {
						l[i] = 1 + 0.01*float64(i)
						switch {
						case r.Name == "oryx-tg" && mode == "linear":
							l[i] *= 1 + gapOf(r.width(), k, T)
						case r.Name == "oryx-tg":
							l[i] *= 1 + 0.02*float64(k) + 0.003*float64(i%3-1) // a gap with a per-sequence spread: a set SE
						}
					}
					sc.Losses[mode] = l
				}
				data, err := json.Marshal(sc)
				require.NoError(t, err)
				path := trendScoresPath(c, job{r, k}, step)
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, data, 0o644))
			}
		}
	}
	res, err := trendResult(c, models)
	require.NoError(t, err)
	require.Equal(t, []int{2, 3}, res.Seeds)
	require.Len(t, res.Widths, 2)
	for wi, tw := range res.Widths {
		w := []int{2, 1}[wi]
		require.Equal(t, w, tw.Width)
		require.Equal(t, int64(1000*w), tw.Params["oryx-tg"])
		require.Len(t, tw.Modes, 2)
		lin, att := tw.Modes[0], tw.Modes[1]
		require.Equal(t, "linear", lin.Mode)
		require.Equal(t, "attention", att.Mode)
		for i, pt := range lin.Points {
			T := float64(pt.Tokens)
			require.Equal(t, c.TrendBudgets[i], pt.Steps)
			require.Equal(t, []int{2, 3}, pt.est.Seeds)
			for j, k := range []int{1, 2} {
				require.InDelta(t, gapOf(w, k, T), pt.est.Values[j], 1e-12)
			}
			require.InDelta(t, 0, pt.est.SetSE, 1e-12, "the same gap on every sequence: no set error")
			require.InDelta(t, T/float64(1000*w), pt.TokensPerParam, 0.05)
		}
		for _, pt := range att.Points {
			require.Greater(t, pt.est.SetSE, 0.0)
			require.InDelta(t, 0.02, pt.est.Values[0], 1e-3)
			require.InDelta(t, 0.04, pt.est.Values[1], 1e-3)
		}
		pl := fitOf(t, lin.Fits, FormPowerLaw)
		for j, k := range []int{1, 2} {
			require.Equal(t, 1+k, pl.PerSeed[j].Seed)
			require.InDelta(t, b[k], pl.PerSeed[j].b, 1e-9)
			require.InEpsilon(t, cross[k]*float64(w), math.Exp(lnCross(FormPowerLaw, pl.PerSeed[j], MarginA)), 1e-6)
		}
		require.InEpsilon(t, math.Sqrt(cross[1]*cross[2])*float64(w), pl.Crossings[0].Tokens.(float64), 1e-4)
		// The attention gap is flat in T: no crossing, in either form.
		for _, f := range att.Fits {
			for _, cr := range f.Crossings {
				require.Equal(t, CrossUndetermined, cr.Status, cr.Words)
			}
		}
	}
	// A missing score file is an error that names it and says how to retrain.
	missing := trendScoresPath(c, job{c.Runs[1], 2}, 900)
	require.NoError(t, os.Remove(missing))
	_, err = trendResult(c, models)
	require.ErrorContains(t, err, missing)
	require.ErrorContains(t, err, "retrain")
}

// TestTrendMissingCorpus: the English trend with its corpora missing fails before any training with an error
// that names every missing file and says where the study expects each and where to get it.
func TestTrendMissingCorpus(t *testing.T) {
	c := TrendConfig(true)
	c.Out = t.TempDir()
	dir := filepath.Join(t.TempDir(), "data")
	c.Data = TrendEnglishData(dir)
	_, err := Run(context.Background(), c, testLog{t})
	require.Error(t, err)
	msg := err.Error()
	for _, w := range []string{filepath.Join(dir, "tinyshakespeare", "input.txt"), datasets.DefaultDataDir + "/tinyshakespeare/input.txt",
		"86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed", "1115394",
		filepath.Join(dir, "wikitext2", "wiki.test.raw"), datasets.DefaultDataDir + "/wikitext2/wiki.test.raw", "1290590"} {
		require.Contains(t, msg, w)
	}
	require.NoDirExists(t, filepath.Join(c.Out, "runs"), "nothing trained")
}

// englishText writes n lines of varied English-like text to a file in dir.
func englishText(t *testing.T, dir string, n int) string {
	words := strings.Fields("the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you were her she there")
	var b strings.Builder
	for i := range n {
		for j := range 8 + i%7 {
			b.WriteString(words[(i*7+j*j*3+i/3)%len(words)])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "line %d.\n", i)
	}
	path := filepath.Join(dir, "english.txt")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// TestTrendEnglishSetIsHeldOut: the English trend's scored set is the held-out tail of the text — every line
// it shows is a line after the cut (the last TrendHeldOutFraction of the file's bytes) — and the training data
// of its runs, over several epochs, shows none of those lines.
func TestTrendEnglishSetIsHeldOut(t *testing.T) {
	path := englishText(t, t.TempDir(), 600)
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	c := QuickTrendConfig(true)
	c.Data = fmt.Sprintf("mix:text:%s=1,heldout=%g", path, TrendHeldOutFraction)
	set, _, err := trendSet(c)
	require.NoError(t, err)
	require.Len(t, set, c.HeldOutSequences)
	cutLine := strings.Count(string(text[:int(float64(len(text))*(1-TrendHeldOutFraction))]), "\n") // the cut's line, or the one before
	tok := tokenizers.NewByteTokenizer()
	lineNumbers := func(seq []int32) []int {
		ids := make([]int, len(seq))
		for i, id := range seq {
			ids[i] = int(id)
		}
		var out []int
		for _, f := range strings.Split(tok.Decode(ids), "line ")[1:] {
			var n int
			if _, err := fmt.Sscanf(f, "%d.", &n); err == nil && strings.HasPrefix(f, fmt.Sprintf("%d.", n)) {
				out = append(out, n)
			}
		}
		return out
	}
	seen := 0
	for _, seq := range set {
		for _, n := range lineNumbers(seq) {
			require.GreaterOrEqual(t, n, cutLine, "a held-out sequence shows line %d, before the cut", n)
			seen++
		}
	}
	require.Greater(t, seen, 0)
	src, err := datasets.OpenTraining(datasets.DataSpec{Spec: c.Data}, tok, c.Train.SeqLen, c.Train.Seed, nil, io.Discard)
	require.NoError(t, err)
	trained := 0
	for range 40 { // ~ 4 epochs of the training part
		batch, err := src.Batch(8)
		require.NoError(t, err)
		for _, seq := range batch {
			for _, n := range lineNumbers(seq) {
				require.Less(t, n, cutLine+1, "a training sequence shows held-out line %d", n)
				trained++
			}
		}
	}
	require.Greater(t, trained, 0)
}

// checkTrendRun checks a quick trend's artefacts: trend.json's gaps are the pairedGap of the score files per
// seed, every budget has its scores, the fits and crossings are there, the report and the plots are written.
func checkTrendRun(t *testing.T, c Config, rep *Report) {
	require.NotNil(t, rep.Trend)
	r := rep.Trend
	require.Equal(t, c.TrendBudgets, r.Budgets)
	require.Len(t, r.Widths, len(slices.Compact(func() []int {
		var w []int
		for _, run := range c.Runs {
			w = append(w, run.width())
		}
		return w
	}())))
	_, fp, err := trendSet(c)
	require.NoError(t, err)
	require.Equal(t, fp, r.SetPrint)
	for _, tw := range r.Widths {
		require.Len(t, tw.Modes, 2)
		for _, tm := range tw.Modes {
			require.Len(t, tm.Points, len(c.TrendBudgets))
			for _, pt := range tm.Points {
				require.Len(t, pt.est.Values, c.seeds())
				for i, ts := range pt.est.Seeds {
					k := ts - int(c.Train.Seed) + 1 // the training seed's index
					cand := job{RunSpec{Name: "oryx-tg", Width: tw.Width}, k}
					ref := job{RunSpec{Name: map[string]string{"linear": "gdn", "attention": "transformer"}[tm.Mode], Width: tw.Width}, k}
					sa, err := readTrendScores(c, cand, pt.Steps, fp)
					require.NoError(t, err)
					sb, err := readTrendScores(c, ref, pt.Steps, fp)
					require.NoError(t, err)
					require.Equal(t, c.HeldOutSequences, sa.Sequences)
					require.Len(t, sb.Losses, 1, "a baseline has one mode")
					require.Len(t, sa.Losses, 2, "Oryx-TG has two")
					g, _ := pairedGap(sa.Losses[tm.Mode], sb.Losses[tm.Mode])
					require.InDelta(t, g, pt.est.Values[i], 1e-12)
				}
				require.Greater(t, pt.est.SetSE, 0.0)
				require.Contains(t, pt.Gap, "lower")
			}
			require.Len(t, tm.Fits, 2)
			for _, f := range tm.Fits {
				require.Len(t, f.PerSeed, c.seeds())
				require.Len(t, f.Crossings, len(TrendLevels))
				for _, cr := range f.Crossings {
					require.Contains(t, []string{CrossWithin, CrossExtrapolated, CrossUndetermined}, cr.Status)
					require.NotEmpty(t, cr.Words)
				}
			}
		}
	}
	for _, f := range []string{"trend.json", "report.md", "trend.png", "loss.png"} {
		require.FileExists(t, filepath.Join(c.Out, f))
	}
	md, err := os.ReadFile(filepath.Join(c.Out, "report.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "oryx-tg linear vs gdn linear")
	require.Contains(t, string(md), "Quick variant")
	data, err := os.ReadFile(filepath.Join(c.Out, "trend.json"))
	require.NoError(t, err)
	var back map[string]any
	require.NoError(t, json.Unmarshal(data, &back))
	require.Contains(t, back, "trend")
}

// TestQuickTrend: the trend at the quick budget on the synthetic mixture (the tiny width, one seed): every run
// scores the held-out set at every budget, trend.json's gaps are those of the score files, one seed gives no
// crossing, and a score file of another set is refused by name.
func TestQuickTrend(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: trains three quick runs")
	}
	c := QuickTrendConfig(false)
	c.Out = t.TempDir()
	c.Runs, c.Seeds = c.Runs[3:], 1 // the tiny width, one seed (~20 s of CPU): TestTrendResultFromScores reads two widths
	rep, err := Run(context.Background(), c, testLog{t})
	require.NoError(t, err)
	require.Len(t, rep.Models, 3)
	checkTrendRun(t, c, rep)
	require.False(t, rep.Trend.English)
	require.Contains(t, rep.Trend.Widths[0].Modes[0].Fits[1].Crossings[0].Words, "one seed")

	// A score file of another held-out set: refused, naming the file (the finished runs are not retrained).
	j := job{c.Runs[0], 1}
	path := trendScoresPath(c, j, c.TrendBudgets[1])
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var sc trendScores
	require.NoError(t, json.Unmarshal(data, &sc))
	sc.Set = "0123456789abcdef"
	data, err = json.Marshal(sc)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	c.Force = true
	_, err = Run(context.Background(), c, testLog{t})
	require.ErrorContains(t, err, path)
	require.ErrorContains(t, err, "remove")
}

// TestQuickTrendEnglish: the English trend at the quick budget on a small generated text file (nothing from
// the shared data): the held-out set is the file's held-out part (datasets.HeldOut), which no training
// sequence reads.
func TestQuickTrendEnglish(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: trains six quick runs")
	}
	c := QuickTrendConfig(true)
	c.Out = t.TempDir()
	c.Data = fmt.Sprintf("mix:text:%s=1,heldout=%g", englishText(t, t.TempDir(), 600), TrendHeldOutFraction)
	c.Runs = c.Runs[3:] // the tiny width: TestQuickTrend runs both
	rep, err := Run(context.Background(), c, testLog{t})
	require.NoError(t, err)
	require.Len(t, rep.Models, 6)
	checkTrendRun(t, c, rep)
	require.True(t, rep.Trend.English)
	require.Contains(t, rep.Trend.HeldOut, "datasets.HeldOut")
	md, err := os.ReadFile(filepath.Join(c.Out, "report.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "English")
}
