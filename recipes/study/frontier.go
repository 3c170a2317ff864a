package study

// The attention-budget frontier of the study's Oryx-TG main model: MQAR accuracy against forward
// FLOPs per token for attention budgets F and the policies that place them (oryx/budget.go), measured by
// evalrun.RunFrontier after the models are evaluated.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/evals/evalrun"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
)

// FrontierDir is the frontier's directory under Config.Out: frontier.json, frontier.png (accuracy against
// gathered forward FLOPs per token) and frontier_fraction.png (against the realised attention fraction).
const FrontierDir = "frontier"

// FrontierTolerance is how close to the all-attention accuracy a policy must come to "recover" it: within
// one percentage point.
const FrontierTolerance = 0.01

// FrontierResult is the frontier's section of study.json.
type FrontierResult struct {
	Run     string `json:"run"`               // the model read (runs/<Run>-tiny); "" when skipped
	Skipped string `json:"skipped,omitempty"` // why there is no frontier
	Dir     string `json:"dir"`               // FrontierDir under the study's out directory
	Task    string `json:"task"`              // mqar: the evaluation's examples (seed 77), pooled over Pairs
	// Pairs are the pair counts pooled (Config.ClaimPairs: those trained on); Examples the examples per count.
	Pairs    []int     `json:"pairs"`
	Examples int       `json:"examples"`
	Budgets  []float64 `json:"budgets"`
	Policies []string  `json:"policies"`
	// ByPolicy is each policy's curve, in Policies' order.
	ByPolicy []FrontierCurve `json:"by_policy"`
	// AllLinear and AllAttention are the points at F = 0 and F = 1 (NaN, null, if not among the budgets):
	// the same schedule under every policy.
	AllLinear    rundir.Float `json:"all_linear"`
	AllAttention rundir.Float `json:"all_attention"`
	// Points are frontier.json's points.
	Points  []evalrun.FrontierPoint `json:"points"`
	Seconds float64                 `json:"elapsed_s"`
}

// FrontierCurve is one policy through the budgets.
type FrontierCurve struct {
	Policy string `json:"policy"`
	// Accuracy, AttentionFraction and MFLOPsPerToken (gathered forward MFLOP per token, both passes of the
	// entropy policy counted) at each budget, in Budgets' order.
	Accuracy          []float64 `json:"accuracy"`
	AttentionFraction []float64 `json:"attention_fraction"`
	MFLOPsPerToken    []float64 `json:"mflops_per_token"`
	// RecoversAt is the smallest budget below 1 whose accuracy is within FrontierTolerance of the
	// all-attention accuracy (null: none below 1, or no F = 1 point).
	RecoversAt *float64 `json:"recovers_at"`
	// BestAt are the budgets 0 < F < 1 at which this policy has the highest accuracy of the policies (a tie
	// counts for each).
	BestAt []float64 `json:"best_at"`
}

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
		if !slices.Contains(oryx.Policies, p) {
			return fmt.Errorf("study: frontier policy %q: want one of %v", p, oryx.Policies)
		}
	}
	return nil
}

// runFrontier measures the frontier of c's Oryx-TG main model (its trained run in c.Out) on MQAR: the
// evaluation's examples and pair counts trained on, at c.FrontierBudgets under c.FrontierPolicies
// (evalrun.RunFrontier; budgets 0 and 1 measured once). Without such a model, or with the frontier off in
// c, the result says why it was skipped.
func runFrontier(c Config, log io.Writer) (*FrontierResult, error) {
	res := &FrontierResult{Dir: FrontierDir, Task: evalrun.FrontierMQAR, Pairs: c.ClaimPairs, Examples: c.FrontierExamples,
		Budgets: c.FrontierBudgets, AllLinear: rundir.Float(math.NaN()), AllAttention: rundir.Float(math.NaN())}
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
	f, err := evalrun.RunFrontier(evalrun.FrontierOptions{
		Checkpoint: runDir(c, rs.Name), Tokenizer: "bytes", Tasks: []string{evalrun.FrontierMQAR},
		Budgets: c.FrontierBudgets, Policies: c.FrontierPolicies, Batch: 16, MaxLength: n, LMMaxLength: n,
		MQAR: evalrun.MQAROptions{SeqLen: c.Train.SeqLen, Vocab: datasets.MQARVocab, Offset: datasets.MQARTokenOffset,
			Pairs: c.ClaimPairs, Examples: c.FrontierExamples},
		Out: filepath.Join(c.Out, FrontierDir), Force: true, Log: log,
	})
	if err != nil {
		return nil, fmt.Errorf("frontier of %s: %w", rs.Name, err)
	}
	res.Seconds = time.Since(start).Seconds()
	res.Points = f.Points
	if err := res.summarize(); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "frontier: %.1f s; %s\n", res.Seconds, strings.Join(res.verdict(), "; "))
	return res, nil
}

// summarize fills the curves from the points.
func (r *FrontierResult) summarize() error {
	find := func(pol string, b float64) *evalrun.FrontierPoint {
		for i := range r.Points {
			if p := &r.Points[i]; p.Task == r.Task && p.Policy == pol && p.Budget == b {
				return p
			}
		}
		return nil
	}
	r.ByPolicy = nil
	for _, pol := range r.Policies {
		cv := FrontierCurve{Policy: pol, BestAt: []float64{}}
		for _, b := range r.Budgets {
			p := find(pol, b)
			if p == nil {
				return fmt.Errorf("frontier: no point for %s at budget %v", pol, b)
			}
			cv.Accuracy = append(cv.Accuracy, p.Value)
			cv.AttentionFraction = append(cv.AttentionFraction, p.AttentionFraction)
			cv.MFLOPsPerToken = append(cv.MFLOPsPerToken, p.FLOPsGatheredPerToken/1e6)
		}
		r.ByPolicy = append(r.ByPolicy, cv)
	}
	if len(r.ByPolicy) == 0 {
		return errors.New("frontier: no policy")
	}
	r.AllLinear, r.AllAttention = rundir.Float(math.NaN()), rundir.Float(math.NaN())
	if k := slices.Index(r.Budgets, 0); k >= 0 {
		r.AllLinear = rundir.Float(r.ByPolicy[0].Accuracy[k])
	}
	if k := slices.Index(r.Budgets, 1); k >= 0 {
		r.AllAttention = rundir.Float(r.ByPolicy[0].Accuracy[k])
	}
	att := float64(r.AllAttention)
	for i := range r.ByPolicy {
		cv := &r.ByPolicy[i]
		for k, b := range r.Budgets {
			if b < 1 && !math.IsNaN(att) && cv.Accuracy[k] >= att-FrontierTolerance && (cv.RecoversAt == nil || b < *cv.RecoversAt) {
				cv.RecoversAt = &b
			}
		}
	}
	for k, b := range r.Budgets {
		if b == 0 || b == 1 {
			continue
		}
		best := math.Inf(-1)
		for _, cv := range r.ByPolicy {
			best = max(best, cv.Accuracy[k])
		}
		for i := range r.ByPolicy {
			if r.ByPolicy[i].Accuracy[k] == best {
				r.ByPolicy[i].BestAt = append(r.ByPolicy[i].BestAt, b)
			}
		}
	}
	return nil
}

// intermediate reports whether budget k of r is strictly between 0 and 1.
func (r *FrontierResult) intermediate(k int) bool { return r.Budgets[k] > 0 && r.Budgets[k] < 1 }

// verdict says, from the curves, which policy wins: the policy with the highest accuracy at the budgets
// between 0 and 1, where each recovers the all-attention accuracy, and which curve the entropy policy's is
// nearest to.
func (r *FrontierResult) verdict() []string {
	var out []string
	var inner []float64
	for k, b := range r.Budgets {
		if r.intermediate(k) {
			inner = append(inner, b)
		}
	}
	if len(inner) > 0 {
		var leaders []string
		for _, cv := range r.ByPolicy {
			if len(cv.BestAt) == len(inner) {
				leaders = append(leaders, cv.Policy)
			}
		}
		switch {
		case len(leaders) > 0:
			out = append(out, fmt.Sprintf("highest accuracy at every budget between 0 and 1 (%s): %s", evalrun.BudgetList(inner),
				strings.Join(leaders, ", ")))
		default:
			var per []string
			for _, b := range inner {
				var who []string
				for _, cv := range r.ByPolicy {
					if slices.Contains(cv.BestAt, b) {
						who = append(who, cv.Policy)
					}
				}
				per = append(per, fmt.Sprintf("F = %s: %s", evalrun.BudgetList([]float64{b}), strings.Join(who, ", ")))
			}
			out = append(out, "highest accuracy by budget: "+strings.Join(per, "; "))
		}
	}
	if !math.IsNaN(float64(r.AllAttention)) {
		var rec []string
		for _, cv := range r.ByPolicy {
			at := "not below F = 1"
			if cv.RecoversAt != nil {
				at = "at F = " + evalrun.BudgetList([]float64{*cv.RecoversAt})
			}
			rec = append(rec, cv.Policy+" "+at)
		}
		out = append(out, fmt.Sprintf("all-attention accuracy (%.1f%%) recovered within %.0f point: %s", 100*r.AllAttention,
			100*FrontierTolerance, strings.Join(rec, ", ")))
	}
	if k := slices.Index(r.Policies, string(oryx.PolicyEntropy)); k >= 0 && len(inner) > 0 && len(r.Policies) > 1 {
		nearest, gap := "", math.Inf(1)
		for j, cv := range r.ByPolicy {
			if j == k {
				continue
			}
			var d float64
			for i := range r.Budgets {
				if r.intermediate(i) {
					d += math.Abs(cv.Accuracy[i] - r.ByPolicy[k].Accuracy[i])
				}
			}
			if d /= float64(len(inner)); d < gap {
				nearest, gap = cv.Policy, d
			}
		}
		out = append(out, fmt.Sprintf("entropy's curve is nearest to %s's (mean |difference| %.1f points over those budgets)", nearest, 100*gap))
	}
	return out
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
	fmt.Fprintf(&b, "%s read with `budget:F:POLICY` schedules (oryx/budget.go; `evals frontier`): exactly round(F·T) of each "+
		"example's T tokens in attention, the rest in linear mode, placed by the policy — last: the last F·T tokens; question: "+
		"the query keys first (the task's split; a larger budget goes on to the positions just before them); random: seeded random positions (control); entropy: a "+
		"linear pass scores every position by the entropy of its readout and the F·T most uncertain are recomputed in attention "+
		"(two passes, both counted in its FLOPs). Task: MQAR, the evaluation's first %d examples per pair count (%s pairs, "+
		"pooled); %.1f s. Data: %s/frontier.json.\n\n", r.Run, r.Examples, joinInts(r.Pairs), r.Seconds, r.Dir)
	fmt.Fprintf(&b, "![attention budget frontier](%s/frontier.png)\n\n", r.Dir)
	b.WriteString("MQAR accuracy at each budget F (bold: the highest at that budget; F = 0 and 1 are all-linear and all-attention " +
		"under every policy, measured once):\n\n| policy |")
	for _, f := range r.Budgets {
		fmt.Fprintf(&b, " F = %s |", evalrun.BudgetList([]float64{f}))
	}
	fmt.Fprintf(&b, " recovers all-attention (±%.0f pt) at |\n|---|", 100*FrontierTolerance)
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
			at = "F = " + evalrun.BudgetList([]float64{*cv.RecoversAt})
		}
		fmt.Fprintf(&b, " %s |\n", at)
	}
	b.WriteString("\n")
	for _, v := range r.verdict() {
		fmt.Fprintf(&b, "- %s.\n", strings.ToUpper(v[:1])+v[1:])
	}
	if lo, hi, ent, ok := r.costs(); ok {
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

// costs are the gathered MFLOP per token at F = 0 and F = 1 and what the entropy policy adds at the first
// budget between them (false if any is missing).
func (r *FrontierResult) costs() (lo, hi, ent float64, ok bool) {
	k0, k1 := slices.Index(r.Budgets, 0), slices.Index(r.Budgets, 1)
	ke, kl := slices.Index(r.Policies, string(oryx.PolicyEntropy)), slices.Index(r.Policies, string(oryx.PolicyLast))
	if k0 < 0 || k1 < 0 {
		return 0, 0, 0, false
	}
	lo, hi = r.ByPolicy[0].MFLOPsPerToken[k0], r.ByPolicy[0].MFLOPsPerToken[k1]
	for k := range r.Budgets {
		if r.intermediate(k) && ke >= 0 && kl >= 0 {
			return lo, hi, r.ByPolicy[ke].MFLOPsPerToken[k] - r.ByPolicy[kl].MFLOPsPerToken[k], true
		}
	}
	return 0, 0, 0, false
}

// pooledMQAR is a model's MQAR accuracy under the linear and attention schedules pooled over the claims'
// pair counts (weighted by queries, as the frontier pools).
func pooledMQAR(c Config, rep *Report, run string) (lin, att float64, ok bool) {
	for _, m := range rep.Models {
		if m.Name != run {
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
