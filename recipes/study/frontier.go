package study

// The attention-budget frontier of the study's Oryx-TG main model: MQAR accuracy against forward
// FLOPs per token for attention budgets F and the policies that place them (oryx/schedule/budget.go), measured by
// evalapi.RunFrontier after the models are evaluated and read as curves by evalapi.FrontierSummary; here: which
// run it reads, and its section of report.md.

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/evals/evalapi"
	"github.com/oryx-go/oryx/internal/jsonnum"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// FrontierDir is the frontier's directory under Config.Out: frontier.json, frontier.png (accuracy against
// gathered forward FLOPs per token) and frontier_fraction.png (against the realised attention fraction).
const FrontierDir = "frontier"

// frontierRun is the run the frontier reads: the first main multi-mixer model (Oryx-TG), or nil.
func frontierRun(runs []RunSpec) *RunSpec {
	for i, r := range runs {
		if r.Role == RoleMain && r.Variant.IsMultiMixer() {
			return &runs[i]
		}
	}
	return nil
}

// checkFrontier refuses a frontier configuration RunFrontier would refuse, before anything is trained.
func checkFrontier(c Config) error {
	if c.FrontierExamples < 0 {
		return fmt.Errorf("study: frontier examples %d must be ≥ 0 (0: no frontier)", c.FrontierExamples)
	}
	for _, b := range c.FrontierBudgets {
		if math.IsNaN(b) || b < 0 || b > 1 {
			return fmt.Errorf("study: frontier budget %v is not a fraction in [0, 1]", b)
		}
	}
	for _, p := range c.FrontierPolicies {
		if !slices.Contains(schedule.Policies, p) {
			return fmt.Errorf("study: frontier policy %q: want one of %v", p, schedule.Policies)
		}
	}
	return nil
}

// runFrontier measures the frontier of c's Oryx-TG main model (its trained run in c.Out) on MQAR: the
// evaluation's examples and pair counts trained on, at c.FrontierBudgets under c.FrontierPolicies
// (evalapi.RunFrontier; budgets 0 and 1 measured once). Without such a model, or with the frontier off in
// c, the result says why it was skipped.
func runFrontier(c Config, log io.Writer) (*evalapi.FrontierSummary, error) {
	res := &evalapi.FrontierSummary{Dir: FrontierDir, Task: evalapi.FrontierMQAR, Pairs: c.ClaimPairs, Examples: c.FrontierExamples,
		Budgets: c.FrontierBudgets, AllLinear: jsonnum.Float(math.NaN()), AllAttention: jsonnum.Float(math.NaN())}
	for _, p := range c.FrontierPolicies {
		res.Policies = append(res.Policies, string(p))
	}
	rs := frontierRun(c.Runs)
	switch {
	case rs == nil:
		res.Skipped = "no Oryx-TG main model among the runs (--runs)"
	case c.FrontierExamples == 0 || len(c.FrontierBudgets) == 0 || len(c.FrontierPolicies) == 0:
		res.Skipped = "off in the configuration (no examples, budgets or policies)"
	}
	if res.Skipped != "" {
		fmt.Fprintf(log, "\nfrontier: skipped: %s\n", res.Skipped)
		return res, nil
	}
	res.Run = rs.Name
	fmt.Fprintf(log, "\nfrontier: %s on MQAR (pairs %v, %d examples each) at budgets %v under %v\n", rs.Name, c.ClaimPairs,
		c.FrontierExamples, c.FrontierBudgets, res.Policies)
	start := time.Now()
	n := c.Train.SeqLen + 1
	f, err := evalapi.RunFrontier(evalapi.FrontierOptions{
		Checkpoint: c.jobDir(job{*rs, 1}), Tokenizer: "bytes", Tasks: []string{evalapi.FrontierMQAR},
		Budgets: c.FrontierBudgets, Policies: c.FrontierPolicies, Batch: 16, MaxLength: n, LMMaxLength: n,
		MQAR: evalapi.MQAROptions{SeqLen: c.Train.SeqLen, Vocab: datasets.MQARVocab, Offset: datasets.MQARTokenOffset,
			Pairs: c.ClaimPairs, Examples: c.FrontierExamples},
		Out: filepath.Join(c.Out, FrontierDir), Force: true, Log: log,
	})
	if err != nil {
		return nil, fmt.Errorf("frontier of %s: %w", rs.Name, err)
	}
	res.Seconds = time.Since(start).Seconds()
	res.Points = f.Points
	if err := res.Summarize(); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "frontier: %.1f s; %s\n", res.Seconds, strings.Join(res.Verdict(), "; "))
	return res, nil
}

// frontierMarkdown is report.md's frontier section.
func frontierMarkdown(c Config, rep *Report) string {
	var b strings.Builder
	b.WriteString("\n## Attention budget frontier\n\n")
	r := rep.Frontier
	if r == nil || r.Skipped != "" {
		why := "not run"
		if r != nil {
			why = r.Skipped
		}
		fmt.Fprintf(&b, "Skipped: %s.\n", why)
		return b.String()
	}
	fmt.Fprintf(&b, "%s read with `budget:F:POLICY` schedules (oryx/schedule/budget.go; `evals frontier`): exactly round(F·T) of each "+
		"example's T tokens in attention, the rest in linear mode, placed by the policy — last: the last F·T tokens; question: "+
		"the query keys first (the task's split; a larger budget goes on to the positions just before them); random: seeded random positions (control); entropy: a "+
		"linear pass scores every position by the entropy of its readout and the F·T most uncertain are recomputed in attention "+
		"(two passes, both counted in its FLOPs). Task: MQAR, the evaluation's first %d examples per pair count (%s pairs, "+
		"pooled); %.1f s. Data: %s/frontier.json.\n\n", r.Run, r.Examples, joinInts(r.Pairs), r.Seconds, r.Dir)
	fmt.Fprintf(&b, "![attention budget frontier](%s/frontier.png)\n\n", r.Dir)
	b.WriteString("MQAR accuracy at each budget F (bold: the highest at that budget; F = 0 and 1 are all-linear and all-attention " +
		"under every policy, measured once):\n\n| policy |")
	for _, f := range r.Budgets {
		fmt.Fprintf(&b, " F = %s |", evalapi.BudgetList([]float64{f}))
	}
	fmt.Fprintf(&b, " recovers all-attention (±%.0f pt) at |\n|---|", 100*evalapi.FrontierTolerance)
	b.WriteString(strings.Repeat("---|", len(r.Budgets)+1) + "\n")
	for _, cv := range r.ByPolicy {
		fmt.Fprintf(&b, "| %s |", cv.Policy)
		for k, f := range r.Budgets {
			cell := fmt.Sprintf("%.1f%%", 100*cv.Accuracy[k])
			if slices.Contains(cv.BestAt, f) {
				cell = "**" + cell + "**"
			}
			b.WriteString(" " + cell + " |")
		}
		at := "only F = 1"
		if cv.RecoversAt != nil {
			at = "F = " + evalapi.BudgetList([]float64{*cv.RecoversAt})
		}
		fmt.Fprintf(&b, " %s |\n", at)
	}
	b.WriteString("\n")
	for _, v := range r.Verdict() {
		fmt.Fprintf(&b, "- %s.\n", strings.ToUpper(v[:1])+v[1:])
	}
	if lo, hi, ent, ok := r.Costs(); ok {
		fmt.Fprintf(&b, "- Cost: %.3f forward MFLOP per token (gathered: attention only where it is run) at F = 0, %.3f at F = 1; "+
			"entropy's linear pass adds %.3f at the budgets between.\n", lo, hi, ent)
	}
	if lin, att, ok := pooledMQAR(c, rep, r.Run); ok && c.FrontierExamples == c.MQARExamples {
		fmt.Fprintf(&b, "- Check: the same examples read under the plain schedules above give all-linear %.1f%% and all-attention "+
			"%.1f%% (pooled over %s pairs); the frontier's F = 0 and F = 1 points: %.1f%% and %.1f%%.\n", 100*lin, 100*att,
			joinInts(r.Pairs), 100*r.AllLinear, 100*r.AllAttention)
	}
	return b.String()
}

// pooledMQAR is a model's MQAR accuracy under the linear and attention schedules pooled over the claims'
// pair counts (weighted by queries, as the frontier pools).
func pooledMQAR(c Config, rep *Report, run string) (lin, att float64, ok bool) {
	for _, m := range rep.Models {
		if m.Name != run || m.Seed > 1 { // the frontier reads the first seed's run
			continue
		}
		pool := func(sched string) (float64, bool) {
			s := m.sched(sched)
			var a, q float64
			for _, p := range c.ClaimPairs {
				cell, ok := s.MQARCells[p]
				if !ok {
					return 0, false
				}
				a += cell.Accuracy * float64(cell.Queries)
				q += float64(cell.Queries)
			}
			return a / max(q, 1), q > 0
		}
		l, ok1 := pool("linear")
		a, ok2 := pool("attention")
		return l, a, ok1 && ok2
	}
	return 0, 0, false
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
