package study

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/oryx-go/oryx/evals/evalapi"
	"github.com/oryx-go/oryx/internal/human"
	"github.com/oryx-go/oryx/recipes/train"
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
	b.WriteString("## Claims\n\nLevel, margins and thresholds fixed in code before the runs (recipes/study/verdict.go, claims.go); " +
		"the verdicts are machine-readable in study.json (`claims`). Each verdict is one of holds, fails, inconclusive (the data do " +
		fmt.Sprintf("not decide at the %.0f %% level) or not measurable (a precondition fails, with its reason), from one-sided ", 100*Level) +
		"Student-t bounds over seeds (a one-seed study: with the spread recorded from other seeds, else inconclusive). Each claim " +
		"as the paper states it, beside the study's first criteria (against the model's own attention mode, within 5 %). " +
		seedsSentence(c) + ".\n\n")
	b.WriteString("| claim | as the paper states it | verdict | criterion | measured |\n|---|---|---|---|---|\n")
	for _, cl := range rep.Claims {
		paper := "no (the study's first criterion)"
		if cl.AsPaperStates {
			paper = "yes"
		}
		fmt.Fprintf(&b, "| `%s`: %s | %s | **%s** | %s | %s |\n", cl.ID, cl.Statement, paper, strings.ReplaceAll(cl.Verdict, "_", " "),
			cl.Criterion, cl.Summary)
	}
	b.WriteString("\n## Controls for (a)\n\nGap: (L − L_ref)/L_ref at the candidate's tokens. Tokens ratio: the tokens the reference " +
		"needed to reach the candidate's loss, over the candidate's tokens (about 0.5 means the candidate learnt as much as the " +
		"reference did with half the tokens; – means the reference never got there). The half-token rows are the baselines' own " +
		"curves at N/2, which with a constant learning rate is exactly a run of N/2 tokens.\n\n")
	b.WriteString("| comparison | seed | loss | reference loss | gap | tokens ratio |\n|---|---|---|---|---|---|\n")
	for _, cp := range rep.Controls {
		ratio := "–"
		if !math.IsNaN(cp.TokensRatio) {
			ratio = fmt.Sprintf("%.2f", cp.TokensRatio)
		}
		fmt.Fprintf(&b, "| %s | %d | %.4f | %.4f | %+.1f%% | %s |\n", cp.Name, cp.Seed, cp.Loss, cp.RefLoss, 100*cp.Gap, ratio)
	}
	b.WriteString("\n## Per run and schedule\n\n| run | role | params | schedule | val loss | MQAR acc (pairs: acc) | needle score (length: score) | copy acc (length: acc) | attention tokens |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, m := range rep.Models {
		name := m.Name
		if c.seeds() > 1 {
			name = fmt.Sprintf("%s s%d", m.Name, m.Seed)
		}
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
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %s | %.1f%% |\n", name, m.Role, m.Params, s.Schedule, vl,
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
		if v, ok := m.Summary.ValLoss[train.ValBlockRandom]; ok {
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
		for _, p := range sortedKeys(m.SwitchMQAR[evalapi.AttentionToLinear]) {
			fmt.Fprintf(&b, "| %s | %d | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n", m.Name, p, 100*m.sched("attention").MQARCells[p].Accuracy,
				100*m.sched("linear").MQARCells[p].Accuracy, 100*m.SwitchMQAR[evalapi.AttentionToLinear][p].Accuracy,
				100*m.SwitchMQAR[evalapi.LinearToAttention][p].Accuracy)
		}
	}
	b.WriteString(frontierMarkdown(c, rep))
	b.WriteString(curvesMarkdown(c, rep))
	b.WriteString(throughputMarkdown(rep))
	b.WriteString("Plots: loss.png, mqar.png, mqar_curves.png (the recall learning curves), switch.png, needle.png, copy.png, switch-*.png (per-position loss on text around a switch), frontier/frontier.png and frontier/frontier_fraction.png (the attention budget frontier). Leaderboard: leaderboard.json, leaderboard.md. Per-run results: results/.\n")
	return b.String()
}

// throughputMarkdown is the report's line of training throughputs.
func throughputMarkdown(rep *Report) string {
	var b strings.Builder
	b.WriteString("\nTraining throughput: ")
	for i, m := range rep.Models {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.0f tokens/s", filepath.Base(m.RunDir), m.Summary.TokensPerSec)
	}
	b.WriteString(".\n\n")
	return b.String()
}

// curvesMarkdown is the report's section on the recall learning curves: per run and schedule the final
// accuracy and the tokens to 50 % and 90 % (means over seeds; – if a seed never got there), the tokens Oryx-TG
// needs relative to the Transformer, and what the curves cost.
func curvesMarkdown(c Config, rep *Report) string {
	if c.CurveExamples == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Recall learning curves\n\nMQAR accuracy of a fixed subset (%d examples at each of %v pairs, seed %d, "+
		"disjoint from training and from the evaluation) in each mode, every %d steps and at the end; tokens to 50 %% and 90 %%: "+
		"the first crossing, interpolated between curve points (– never). %s.\n\n", c.CurveExamples, c.CurvePairs, mqarCurveSeed,
		c.curveSteps(), seedsSentence(c))
	b.WriteString("| run | schedule | final accuracy | tokens to 50 % | tokens to 90 % |\n|---|---|---|---|---|\n")
	to90 := map[string]float64{} // "<run> <schedule>" at the tiny width → mean tokens to 90 %
	var probeSec, trainSec float64
	for _, ms := range bySpec(rep.Models) {
		name := ms[0].Name
		if ms[0].width() > 1 {
			name += " " + ms[0].Size()
		}
		for _, m := range ms {
			trainSec += m.Summary.ElapsedSec
			for _, rc := range m.Curves {
				probeSec += rc.ProbeSeconds * float64(len(rc.Tokens))
				break // every schedule's curve holds the same probe time
			}
		}
		for _, s := range curveSchedules(ms[0].Curves) {
			var fin, t50, t90 []float64
			for _, m := range ms {
				if rc := m.Curves[s]; rc != nil && len(rc.Accuracy) > 0 {
					fin = append(fin, rc.Accuracy[len(rc.Accuracy)-1])
					t50, t90 = append(t50, float64(rc.TokensTo50)), append(t90, float64(rc.TokensTo90))
				}
			}
			f := overSeeds(fin, math.NaN(), seFromNone)
			a50, a90 := overSeeds(t50, math.NaN(), seFromNone), overSeeds(t90, math.NaN(), seFromNone)
			fmt.Fprintf(&b, "| %s | %s | %.1f%% | %s | %s |\n", name, s, 100*f.Mean, tokensOrDash(a50.Mean), tokensOrDash(a90.Mean))
			if ms[0].width() == c.mainWidth() {
				to90[ms[0].Name+" "+s] = a90.Mean
			}
		}
	}
	if t, ok := to90["transformer attention"]; ok && !math.IsNaN(t) {
		for _, s := range []string{"attention", evalapi.Mixed} {
			o, ok := to90["oryx-tg "+s]
			switch {
			case !ok:
			case math.IsNaN(o):
				fmt.Fprintf(&b, "\nOryx-TG (%s) did not reach 90 %% within the budget; the Transformer reached it at %s tokens.", s, human.Int(int64(t)))
			default:
				fmt.Fprintf(&b, "\nOryx-TG (%s) needs %.2f× the Transformer's tokens to reach 90 %% (%s vs %s).", s, o/t, human.Int(int64(o)), human.Int(int64(t)))
			}
		}
		b.WriteString("\n")
	}
	if trainSec > 0 {
		fmt.Fprintf(&b, "\nCost: the curve points took %.0f s of the %.0f s of training (%.1f %%).\n", probeSec, trainSec, 100*probeSec/trainSec)
	}
	b.WriteString("\n![recall learning curves](mqar_curves.png)\n")
	return b.String()
}

func tokensOrDash(t float64) string {
	if math.IsNaN(t) {
		return "–"
	}
	return human.Int(int64(t))
}
