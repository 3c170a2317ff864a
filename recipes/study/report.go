package study

import (
	"fmt"
	"math"
	"strings"
)

// markdown renders report.md: the setting, the claims with their numbers, and the per-model table.
func markdown(c Config, rep *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Tiny study: Oryx claims in miniature\n\n")
	fmt.Fprintf(&b, "Backend %s, %s, %.1f minutes. Models: tiny preset (d 64, 2 layers, byte vocabulary), %d steps × %d tokens = %d tokens each on `%s`.\n\n",
		rep.Backend, rep.Date, rep.Seconds/60, c.Train.Steps, c.Train.TokensPerStep(), int64(c.Train.Steps)*c.Train.TokensPerStep(), c.Data)
	if c.Quick {
		b.WriteString("**Quick variant (smoke test): the numbers below mean nothing.**\n\n")
	}
	b.WriteString("## Claims\n\n| claim | measured | holds |\n|---|---|---|\n")
	for _, cl := range rep.Claims {
		h := "not measurable"
		if cl.Holds != nil {
			h = map[bool]string{true: "yes", false: "**no**"}[*cl.Holds]
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", cl.Statement, cl.Measured, h)
	}
	b.WriteString("\n## Per model and schedule\n\n| model | params | schedule | val loss | MQAR acc (pairs: acc) | needle score (length: score) | copy acc (length: acc) | attention tokens |\n|---|---|---|---|---|---|---|---|\n")
	for _, m := range rep.Models {
		for _, s := range m.Schedules {
			var mq, nd, cp []string
			for _, l := range sortedKeys(s.Copy) {
				cp = append(cp, fmt.Sprintf("%d: %.0f%%", l, 100*s.Copy[l].Score))
			}
			for _, p := range sortedKeys(s.MQAR) {
				mq = append(mq, fmt.Sprintf("%d: %.1f%%", p, 100*s.MQAR[p].Accuracy))
			}
			for _, l := range sortedKeys(s.Needle) {
				nd = append(nd, fmt.Sprintf("%d: %.0f%%", l, 100*s.Needle[l].Score))
			}
			vl := "–"
			if !math.IsNaN(s.ValLoss) {
				vl = fmt.Sprintf("%.4f", s.ValLoss)
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %.1f%% |\n", m.Variant, m.Params, s.Schedule, vl,
				strings.Join(mq, ", "), strings.Join(nd, ", "), strings.Join(cp, ", "), 100*s.AttentionFraction)
		}
	}
	b.WriteString("\nMixed: every token in linear mode except the MQAR query keys, the needle question and answer, and the copy answer (from its \"=\"), which read in attention. ")
	b.WriteString("Training throughput: ")
	for i, m := range rep.Models {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.0f tokens/s", m.Variant, m.Summary.TokensPerSec)
	}
	b.WriteString(".\n\nPlots: loss.png, mqar.png, needle.png, copy.png, switch-*.png. Leaderboard: leaderboard.json, leaderboard.md. Per-run results: results/.\n")
	return b.String()
}
