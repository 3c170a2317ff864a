package study

// study-scale (`make study-scale`, ScaleConfig): does the gap to the baselines shrink with width and tokens,
// as the paper's 1.4B result implies? The Transformer, GDN and Oryx-TG (p = 0.5) at two widths, several
// seeds each, trained for 1.5× the study's budget; claim (a)'s loss gaps and claim (b)'s retrieval ratio are
// read at each of Config.ScaleBudgets from the runs' validation curves and recall curves — with warm-up then
// a constant learning rate and the same data order, a run's first N steps are exactly an N-step run — as
// means over seeds with their standard errors. It also measures the one-seed spread claims.go records.

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/oryx-go/oryx/evals/evalapi"
	"github.com/oryx-go/oryx/internal/figure"
	"github.com/oryx-go/oryx/internal/human"
)

// ScaleResult is study-scale's section of scale.json.
type ScaleResult struct {
	Rows []ScaleRow `json:"rows"` // by width, then budget
}

// ScaleRow is one width at one budget. The statistics are over seeds (mean, standard error over seeds,
// the per-seed values; seedStat.json).
type ScaleRow struct {
	Size   string           `json:"size"` // tiny, tiny2x
	Width  int              `json:"width"`
	Params map[string]int64 `json:"params"` // by run name
	Steps  int              `json:"steps"`
	Tokens int64            `json:"tokens"`
	// Claim (a): the relative validation-loss gap (L_oryx − L_base)/L_base, paired by seed.
	GapAttention map[string]any `json:"gap_attention_vs_transformer"`
	GapLinear    map[string]any `json:"gap_linear_vs_gdn"`
	// Claim (b): the recall curves' subset accuracy (pooled over Config.CurvePairs) of mixed Oryx-TG and of
	// the Transformer, and their ratio (delta method, independent errors).
	MixedAccuracy       map[string]any `json:"mixed_accuracy"`
	TransformerAccuracy map[string]any `json:"transformer_accuracy"`
	AttentionAccuracy   map[string]any `json:"oryx_attention_accuracy"`
	RecallRatio         any            `json:"recall_ratio"`
	RecallRatioSE       any            `json:"recall_ratio_se"`

	gapA, gapL, ratio, ratioSE float64 // for the plot and the report
	seA, seL                   float64
}

// scaleResult reads the gaps of every width at every budget.
func scaleResult(c Config, models []*ModelResult) *ScaleResult {
	res := &ScaleResult{}
	widths := []int{}
	for _, r := range c.Runs {
		if len(widths) == 0 || widths[len(widths)-1] != r.width() {
			widths = append(widths, r.width())
		}
	}
	for _, w := range widths {
		tr, gdn, o := seedsOf(models, "transformer", w), seedsOf(models, "gdn", w), seedsOf(models, "oryx-tg", w)
		for _, steps := range c.ScaleBudgets {
			tokens := int64(steps) * c.Train.TokensPerStep()
			row := ScaleRow{Width: w, Steps: steps, Tokens: tokens, Params: map[string]int64{}}
			for _, ms := range [][]*ModelResult{tr, gdn, o} {
				if len(ms) > 0 {
					row.Size, row.Params[ms[0].Name] = ms[0].Size(), ms[0].Params
				}
			}
			ga := lossGaps(c, o, "attention", tr, "attention", float64(tokens))
			gl := lossGaps(c, o, "linear", gdn, "linear", float64(tokens))
			row.GapAttention, row.GapLinear = ga.json(), gl.json()
			row.gapA, row.seA, row.gapL, row.seL = ga.Mean, ga.SE, gl.Mean, gl.SE
			queries := c.CurveExamples * sum(c.CurvePairs)
			mixed := curveAccuracy(o, evalapi.Mixed, float64(tokens), queries)
			ref := curveAccuracy(tr, "attention", float64(tokens), queries)
			att := curveAccuracy(o, "attention", float64(tokens), queries)
			row.MixedAccuracy, row.TransformerAccuracy, row.AttentionAccuracy = mixed.json(), ref.json(), att.json()
			row.ratio, row.ratioSE = ratio(mixed.Mean, mixed.SE, ref.Mean, ref.SE)
			row.RecallRatio, row.RecallRatioSE = r4(row.ratio), r4(row.ratioSE)
			res.Rows = append(res.Rows, row)
		}
	}
	return res
}

func sum(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}

// lossGaps is the relative loss gap of cand (mode cm) against ref (mode rm) at tokens, per seed (the runs
// paired by seed), over seeds.
func lossGaps(c Config, cand []*ModelResult, cm string, ref []*ModelResult, rm string, tokens float64) seedStat {
	var gaps []float64
	for _, a := range cand {
		for _, b := range ref {
			if b.Seed != a.Seed {
				continue
			}
			ca, ok1 := a.curve(c, cm)
			cb, ok2 := b.curve(c, rm)
			if !ok1 || !ok2 {
				continue
			}
			la, lb := ca.at(tokens), cb.at(tokens)
			gaps = append(gaps, (la-lb)/lb)
		}
	}
	return overSeeds(gaps, math.NaN(), seFromNone)
}

// curveAccuracy is the recall curves' pooled accuracy under sched at tokens over the runs (one run: the
// binomial standard error of the subset's queries).
func curveAccuracy(runs []*ModelResult, sched string, tokens float64, queries int) seedStat {
	var vals []float64
	for _, m := range runs {
		if rc := m.Curves[sched]; rc != nil {
			vals = append(vals, rc.at(tokens))
		}
	}
	se := math.NaN()
	if len(vals) == 1 && queries > 0 {
		se = math.Sqrt(vals[0] * (1 - vals[0]) / float64(queries))
	}
	return overSeeds(vals, se, seFromBinomial)
}

// writeScalePlot draws scale.png: claim (a)'s gaps and claim (b)'s recall ratio against training tokens, one
// line per width (and mode), ±1 standard error over seeds.
func writeScalePlot(c Config, r *ScaleResult) error {
	gap := &figure.Panel{Title: "(a) validation-loss gap of Oryx-TG to its baseline", X: figure.Axis{Label: "training tokens"},
		Y: figure.Axis{Label: "(L_oryx − L_base) / L_base"}, HRefs: []figure.Ref{{At: 0, Label: "no gap"}}, Dodge: true}
	rec := &figure.Panel{Title: "(b) mixed Oryx-TG / Transformer recall (curve subset)", X: figure.Axis{Label: "training tokens"},
		Y: figure.Axis{Label: "accuracy ratio", Min: ptr(0)}, HRefs: []figure.Ref{{At: RecoverMin, Label: fmt.Sprintf("%.1f", RecoverMin)}},
		Dodge: true}
	byWidth := map[int][]ScaleRow{}
	var widths []int
	for _, row := range r.Rows {
		if _, ok := byWidth[row.Width]; !ok {
			widths = append(widths, row.Width)
		}
		byWidth[row.Width] = append(byWidth[row.Width], row)
	}
	for i, w := range widths {
		rows := byWidth[w]
		var x, ga, sa, gl, sl, rr, sr []float64
		for _, row := range rows {
			x = append(x, float64(row.Tokens))
			ga, sa, gl, sl = append(ga, row.gapA), append(sa, row.seA), append(gl, row.gapL), append(sl, row.seL)
			rr, sr = append(rr, row.ratio), append(sr, row.ratioSE)
		}
		size := rows[0].Size
		gap.Lines = append(gap.Lines,
			figure.Line{Name: "attention vs Transformer, " + size, X: x, Y: ga, YErr: sa, Color: 0, Marker: 1 + i, Dash: figure.Dash(i % 2)},
			figure.Line{Name: "linear vs GDN, " + size, X: x, Y: gl, YErr: sl, Color: 1, Marker: 1 + i, Dash: figure.Dash(i % 2)})
		rec.Lines = append(rec.Lines, figure.Line{Name: size, X: x, Y: rr, YErr: sr, Color: 2 + i, Marker: 1 + i, Dash: figure.Dash(i % 2)})
	}
	fig := figure.Figure{Title: fmt.Sprintf("study-scale: gaps against width and tokens (±1 SE over seeds: %d)", c.seeds()), Cols: 2,
		Panels: []*figure.Panel{gap, rec}}
	return fig.WritePNG(filepath.Join(c.Out, "scale.png"))
}

// scaleMarkdown renders study-scale's report.md.
func scaleMarkdown(c Config, rep *Report) string {
	var b strings.Builder
	r := rep.Scale
	fmt.Fprintf(&b, "# study-scale: the claims' gaps against width and tokens\n\n")
	fmt.Fprintf(&b, "Backend %s, %s, %.1f minutes in all. The Transformer, GDN and Oryx-TG (p = 0.5) at %s, %d seeds each (training "+
		"seeds %d..%d: data order, initial weights, mode schedules), trained %d steps × %d tokens on `%s` with %d warm-up steps then "+
		"a constant learning rate %.0e: a run's first N steps are exactly an N-step run, so each budget below is read from the same "+
		"runs (validation loss every %d steps; the recall curves' subset, %d examples at each of %v pairs, every %d steps).\n\n",
		rep.Backend, rep.Date, rep.Seconds/60, sizesOf(c), c.seeds(), c.trainSeed(1), c.trainSeed(c.seeds()), c.Train.Steps,
		c.Train.TokensPerStep(), c.Data, c.Train.WarmupSteps, c.Train.LR, c.Train.EvalEvery, c.CurveExamples, c.CurvePairs, c.curveSteps())
	if c.Quick {
		b.WriteString("**Quick variant (smoke test): the numbers below mean nothing.**\n\n")
	}
	b.WriteString("Gaps: (L_oryx − L_base)/L_base, mean ± SE over seeds (paired by seed). Recall: mixed Oryx-TG / Transformer accuracy " +
		"on the curve subset, ratio ± SE (delta method). The claims' verdicts with their level and margins are the study's and the " +
		"decomposition's (verdict.go); this table shows the trends.\n\n")
	b.WriteString("| size | params (T / GDN / Oryx-TG) | steps | tokens | (a) attention vs Transformer | (a) linear vs GDN | mixed Oryx-TG | Transformer | Oryx-TG attention | (b) ratio |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "| %s | %s / %s / %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", row.Size, human.Int(row.Params["transformer"]),
			human.Int(row.Params["gdn"]), human.Int(row.Params["oryx-tg"]), row.Steps, human.Int(row.Tokens), pctStat(row.GapAttention, true),
			pctStat(row.GapLinear, true), pctStat(row.MixedAccuracy, false), pctStat(row.TransformerAccuracy, false),
			pctStat(row.AttentionAccuracy, false), plusMinus(row.ratio, row.ratioSE))
	}
	b.WriteString("\n![gaps against width and tokens](scale.png)\n\n")
	b.WriteString(curvesMarkdown(c, rep))
	b.WriteString(throughputMarkdown(rep))
	return b.String()
}

// sizesOf lists the sizes of c's runs ("tiny and tiny2x").
func sizesOf(c Config) string {
	var out []string
	for _, r := range c.Runs {
		if len(out) == 0 || out[len(out)-1] != r.Size() {
			out = append(out, r.Size())
		}
	}
	return strings.Join(out, " and ")
}

// pctStat formats a seedStat's json as "mean ± SE" in percent (signed for gaps).
func pctStat(st map[string]any, signed bool) string {
	mean, ok := st["mean"].(float64)
	if !ok {
		return "–"
	}
	f := "%.1f%%"
	if signed {
		f = "%+.2f%%"
	}
	s := fmt.Sprintf(f, 100*mean)
	if se, ok := st["se"].(float64); ok {
		s += fmt.Sprintf(" ± %.2f", 100*se)
	}
	return s
}

func plusMinus(v, se float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	if math.IsNaN(se) {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.2f ± %.2f", v, se)
}
