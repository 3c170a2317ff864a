package study

// The recall-gap attribution (`make study-attribution`, AttributionConfig): Oryx-TG runs at the study's
// budget and seed(s) that each change one thing — the mode-block length, the attention probability, what
// attention reads (the L2-normalised key GDN reads; the key before the conv and SiLU), the learning rate —
// evaluated on MQAR under every schedule, with the validation loss per mode and the recall curves' tokens to
// 50 % and 90 %. One hypothesis each about why Oryx-TG's recall lags the Transformer's.

import (
	"fmt"
	"math"
	"strings"

	"github.com/oryx-go/oryx/evals/evalapi"
	"github.com/oryx-go/oryx/internal/human"
	"github.com/oryx-go/oryx/recipes/train"
)

// AttributionResult is the attribution's section of attribution.json.
type AttributionResult struct {
	Reference string           `json:"reference"` // the unchanged run
	Rows      []AttributionRow `json:"rows"`      // in Config.Runs' order, the reference first
}

// AttributionRow is one run over its seeds (statistics: seedStat.json).
type AttributionRow struct {
	Run    string `json:"run"`
	Change string `json:"change"` // "" for the reference
	// MQAR accuracy of the evaluation (Config.MQARExamples per pair count, pooled over Config.ClaimPairs) by
	// schedule: attention, linear, mixed.
	MQAR map[string]map[string]any `json:"mqar"`
	// ValLoss is the final validation loss by validation mode (attention, linear, block_random).
	ValLoss map[string]map[string]any `json:"val_loss"`
	// TokensTo50 and TokensTo90 are the recall curves' first crossings by schedule (the mean over seeds;
	// null if a seed never got there).
	TokensTo50 map[string]map[string]any `json:"tokens_to_50"`
	TokensTo90 map[string]map[string]any `json:"tokens_to_90"`

	mqar, loss, to50, to90 map[string]seedStat
}

// attributionResult tabulates every run of the attribution.
func attributionResult(c Config, models []*ModelResult) *AttributionResult {
	res := &AttributionResult{}
	for _, r := range c.Runs {
		runs := seedsOf(models, r.Name, r.width())
		if len(runs) == 0 {
			continue
		}
		if r.Change == "" && res.Reference == "" {
			res.Reference = r.Name
		}
		row := AttributionRow{Run: r.Name, Change: r.Change, MQAR: map[string]map[string]any{}, ValLoss: map[string]map[string]any{},
			TokensTo50: map[string]map[string]any{}, TokensTo90: map[string]map[string]any{},
			mqar: map[string]seedStat{}, loss: map[string]seedStat{}, to50: map[string]seedStat{}, to90: map[string]seedStat{}}
		for _, s := range schedulesOf(r.Variant) {
			st, _ := accuracyOverSeeds(runs, mqarRead(c), s)
			row.mqar[s], row.MQAR[s] = st, st.json()
		}
		for _, mode := range train.ValModes {
			var vals []float64
			for _, m := range runs {
				if l, ok := m.Summary.ValLoss[mode]; ok {
					vals = append(vals, float64(l))
				}
			}
			if len(vals) > 0 {
				st := overSeeds(vals, math.NaN(), seFromNone)
				row.loss[mode], row.ValLoss[mode] = st, st.json()
			}
		}
		for _, s := range schedulesOf(r.Variant) {
			var v50, v90 []float64
			for _, m := range runs {
				if rc := m.Curves[s]; rc != nil {
					v50, v90 = append(v50, float64(rc.TokensTo50)), append(v90, float64(rc.TokensTo90))
				}
			}
			if len(v50) > 0 {
				s50, s90 := overSeeds(v50, math.NaN(), seFromNone), overSeeds(v90, math.NaN(), seFromNone)
				row.to50[s], row.TokensTo50[s], row.to90[s], row.TokensTo90[s] = s50, s50.json(), s90, s90.json()
			}
		}
		res.Rows = append(res.Rows, row)
	}
	return res
}

// attributionMarkdown renders the attribution's report.md: one row per run, its change, and the measures.
func attributionMarkdown(c Config, rep *Report) string {
	var b strings.Builder
	r := rep.Attribution
	fmt.Fprintf(&b, "# Recall-gap attribution: single-change Oryx-TG runs\n\n")
	fmt.Fprintf(&b, "Backend %s, %s, %.1f minutes in all. Oryx-TG (tiny, mixed training) at the study's budget: %d steps × %d tokens on "+
		"`%s`, %d warm-up steps then a constant learning rate %.0e, mode blocks of %d tokens at attention probability %.2g, "+
		"%s; each run below changes one thing. MQAR: the evaluation's %d examples at each of %v pairs (pooled); val loss: the "+
		"held-out synthetic language at the end; tokens to 50 %% / 90 %%: the recall curves (%d examples at each of %v pairs, "+
		"every %d steps), interpolated, – if never.\n\n",
		rep.Backend, rep.Date, rep.Seconds/60, c.Train.Steps, c.Train.TokensPerStep(), c.Data, c.Train.WarmupSteps, c.Train.LR,
		c.Train.BlockLen, referenceProb(c), seedsSentence(c), c.MQARExamples, c.ClaimPairs, c.CurveExamples,
		c.CurvePairs, c.curveSteps())
	if c.Quick {
		b.WriteString("**Quick variant (smoke test): the numbers below mean nothing.**\n\n")
	}
	b.WriteString("| run | change | MQAR attention | MQAR mixed | MQAR linear | val loss attention / linear / block-random | tokens to 50 % (attention / mixed) | tokens to 90 % (attention / mixed) |\n|---|---|---|---|---|---|---|---|\n")
	for _, row := range r.Rows {
		change := row.Change
		if change == "" {
			change = "none (reference)"
		}
		acc := func(s string) string {
			st, ok := row.mqar[s]
			if !ok {
				return "–"
			}
			out := fmt.Sprintf("%.1f%%", 100*st.Mean)
			if !math.IsNaN(st.SE) {
				out += fmt.Sprintf(" ± %.1f", 100*st.SE)
			}
			return out
		}
		loss := func(mode string) string {
			if st, ok := row.loss[mode]; ok {
				return fmt.Sprintf("%.4f", st.Mean)
			}
			return "–"
		}
		tok := func(m map[string]seedStat, s string) string {
			if st, ok := m[s]; ok && !math.IsNaN(st.Mean) {
				return human.Int(int64(st.Mean))
			}
			return "–"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s / %s / %s | %s / %s | %s / %s |\n", row.Run, change, acc("attention"),
			acc(evalapi.Mixed), acc("linear"), loss(train.ValAttention), loss(train.ValLinear), loss(train.ValBlockRandom),
			tok(row.to50, "attention"), tok(row.to50, evalapi.Mixed), tok(row.to90, "attention"), tok(row.to90, evalapi.Mixed))
	}
	b.WriteString("\nThe thresholds are the study's (claims.go); nothing here is a verdict: each row is read against the reference " +
		"row, and a difference smaller than about twice the accuracies' standard errors is not a difference.\n\n")
	b.WriteString(curvesMarkdown(c, rep))
	b.WriteString(throughputMarkdown(rep))
	return b.String()
}

// seedsSentence says which seeds the runs used.
func seedsSentence(c Config) string {
	if c.seeds() == 1 {
		return fmt.Sprintf("training seed %d (one seed: no spread measured)", c.trainSeed(1))
	}
	return fmt.Sprintf("training seeds %d..%d (means ± SE over %d seeds)", c.trainSeed(1), c.trainSeed(c.seeds()), c.seeds())
}

// referenceProb is the attention probability of the attribution's reference run (the one without a change).
func referenceProb(c Config) float64 {
	for _, r := range c.Runs {
		if r.Change == "" {
			return r.AttentionProb
		}
	}
	return c.Train.AttentionProb
}
