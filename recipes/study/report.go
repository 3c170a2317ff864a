package study

import (
	"fmt"
	"math"
	"strings"

	"github.com/oryx-go/oryx/evals/evalrun"
	"github.com/oryx-go/oryx/internal/rundir"
)

// markdown renders report.md: the setting, the claims with their criteria, verdicts and numbers, the
// controls, and the per-run tables.
func markdown(c Config, rep *Report) string {
	var b strings.Builder
	tok := int64(c.Train.Steps) * c.Train.TokensPerStep()
	fmt.Fprintf(&b, "# Tiny study: Oryx claims in miniature\n\n")
	fmt.Fprintf(&b, "Backend %s, %s, %.1f minutes in all. Models: tiny preset (d 64, 2 layers, byte vocabulary), each trained "+
		"%d steps × %d tokens = %d tokens on `%s` (answer-only loss on the MQAR and needle rows), %s learning rate %.0e "+
		"after %d warm-up steps, validation every %d steps.\n\n",
		rep.Backend, rep.Date, rep.Seconds/60, c.Train.Steps, c.Train.TokensPerStep(), tok, c.Data, c.Train.LRSchedule,
		c.Train.LR, c.Train.WarmupSteps, c.Train.EvalEvery)
	if c.Quick {
		b.WriteString("**Quick variant (smoke test): the numbers below mean nothing.**\n\n")
	}
	if c.PureGoBudget {
		b.WriteString("**Pure-Go budget** (no XLA CPU plugin): three models at 200 steps, before the Transformer's MQAR transition " +
			"(~500 steps of this mixture on XLA CPU), so (b) and (c) cannot be measured here and (a) has no p = 1 / p = 0 " +
			"controls; install the plugin (`make xla-cpu`, needs pip) for the full study.\n\n")
	}
	b.WriteString("## Claims\n\nCriteria fixed before the runs (recipes/study/claims.go); the verdicts are machine-readable in study.json (`claims`).\n\n")
	b.WriteString("| claim | verdict | criterion | measured |\n|---|---|---|---|\n")
	for _, cl := range rep.Claims {
		fmt.Fprintf(&b, "| (%s) %s | **%s** | %s | %s |\n", cl.ID, cl.Statement, strings.ReplaceAll(cl.Verdict, "_", " "), cl.Criterion, cl.Summary)
	}
	b.WriteString("\n## Controls for (a)\n\nGap: (L − L_ref)/L_ref at the candidate's tokens. Tokens ratio: the tokens the reference " +
		"needed to reach the candidate's loss, over the candidate's tokens (about 0.5 means the candidate learnt as much as the " +
		"reference did with half the tokens; – means the reference never got there). The half-token rows are the baselines' own " +
		"curves at N/2, which with a constant learning rate is exactly a run of N/2 tokens.\n\n")
	b.WriteString("| comparison | loss | reference loss | gap | tokens ratio |\n|---|---|---|---|---|\n")
	for _, cp := range rep.Controls {
		ratio := "–"
		if !math.IsNaN(cp.TokensRatio) {
			ratio = fmt.Sprintf("%.2f", cp.TokensRatio)
		}
		fmt.Fprintf(&b, "| %s | %.4f | %.4f | %+.1f%% | %s |\n", cp.Name, cp.Loss, cp.RefLoss, 100*cp.Gap, ratio)
	}
	b.WriteString("\n## Per run and schedule\n\n| run | role | params | schedule | val loss | MQAR acc (pairs: acc) | needle score (length: score) | copy acc (length: acc) | attention tokens |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, m := range rep.Models {
		for _, s := range m.Schedules {
			var mq, nd, cp []string
			for _, p := range sortedKeys(s.MQARCells) {
				mq = append(mq, fmt.Sprintf("%d: %.1f%%", p, 100*s.MQARCells[p].Accuracy))
			}
			for _, l := range sortedKeys(s.Needle) {
				nd = append(nd, fmt.Sprintf("%d: %.0f%%", l, 100*s.Needle[l].Score))
			}
			for _, l := range sortedKeys(s.Copy) {
				cp = append(cp, fmt.Sprintf("%d: %.0f%%", l, 100*s.Copy[l].Score))
			}
			vl := "–"
			if !math.IsNaN(float64(s.ValLoss)) {
				vl = fmt.Sprintf("%.4f", float64(s.ValLoss))
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %s | %.1f%% |\n", m.Name, m.Role, m.Params, s.Schedule, vl,
				strings.Join(mq, ", "), strings.Join(nd, ", "), strings.Join(cp, ", "), 100*s.AttentionFraction)
		}
	}
	b.WriteString("\nMixed: every token in linear mode except the MQAR query keys, the needle prompt's last token and the answer, and the copy answer (from its \"=\"), which read in attention. " +
		"Its val loss is not measured (held-out text has no question); the multi-mixer runs' validation in block-random modes " +
		"(their training distribution) is a different schedule:")
	sep := " "
	for _, m := range rep.Models {
		if m.Summary == nil {
			continue
		}
		if v, ok := m.Summary.ValLoss[rundir.ValBlockRandom]; ok {
			fmt.Fprintf(&b, "%s%s %.4f", sep, m.Name, float64(v))
			sep = ", "
		}
	}
	if sep == " " {
		b.WriteString(" none")
	}
	b.WriteString(".\n\n")
	b.WriteString("## Switch test (c)\n\nMQAR accuracy with the key-value pairs read in one mode and the queries (from the first query-region position on) in the other.\n\n")
	b.WriteString("| run | pairs | attention | linear | attention→linear | linear→attention |\n|---|---|---|---|---|---|\n")
	for _, m := range rep.Models {
		if m.SwitchMQAR == nil {
			continue
		}
		for _, p := range sortedKeys(m.SwitchMQAR[evalrun.AttentionToLinear]) {
			fmt.Fprintf(&b, "| %s | %d | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n", m.Name, p, 100*m.sched("attention").MQARCells[p].Accuracy,
				100*m.sched("linear").MQARCells[p].Accuracy, 100*m.SwitchMQAR[evalrun.AttentionToLinear][p].Accuracy,
				100*m.SwitchMQAR[evalrun.LinearToAttention][p].Accuracy)
		}
	}
	b.WriteString(frontierMarkdown(c, rep))
	b.WriteString("\nTraining throughput: ")
	for i, m := range rep.Models {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.0f tokens/s", m.Name, m.Summary.TokensPerSec)
	}
	b.WriteString(".\n\nPlots: loss.png, mqar.png, switch.png, needle.png, copy.png, switch-*.png (per-position loss on text around a switch), frontier/frontier.png and frontier/frontier_fraction.png (the attention budget frontier). Leaderboard: leaderboard.json, leaderboard.md. Per-run results: results/.\n")
	return b.String()
}
