package frontier

// A frontier read as curves: from the points RunFrontier measured, each policy's curve through the budgets,
// where it recovers the all-attention accuracy, which policy leads at each budget and what the entropy
// policy's linear pass costs. The tiny study (recipes/study) reports it.

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/oryx-go/oryx/internal/jsonnum"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// Tolerance is how close to the all-attention accuracy a policy must come to "recover" it: within
// one percentage point.
const Tolerance = 0.01

// Summary is a frontier read as one curve per policy through the budgets (the tiny study's section
// "frontier" of study.json): where each policy recovers the all-attention accuracy, which policy is best at
// each budget, and what the entropy policy's extra pass costs.
type Summary struct {
	Run     string `json:"run"`               // the model read; "" when skipped
	Skipped string `json:"skipped,omitempty"` // why there is no frontier
	Dir     string `json:"dir"`               // frontier.json and the plots, relative to the report holding this
	Task    string `json:"task"`              // TaskMQAR: the evaluation's examples (seed 77), pooled over Pairs
	// Pairs are the MQAR pair counts pooled; Examples the examples per count.
	Pairs    []int     `json:"pairs"`
	Examples int       `json:"examples"`
	Budgets  []float64 `json:"budgets"`
	Policies []string  `json:"policies"`
	// ByPolicy is each policy's curve, in Policies' order.
	ByPolicy []Curve `json:"by_policy"`
	// AllLinear and AllAttention are the points at F = 0 and F = 1 (NaN, null, if not among the budgets):
	// the same schedule under every policy.
	AllLinear    jsonnum.Float `json:"all_linear"`
	AllAttention jsonnum.Float `json:"all_attention"`
	// Points are frontier.json's points.
	Points  []Point `json:"points"`
	Seconds float64 `json:"elapsed_s"`
}

// Curve is one policy through the budgets.
type Curve struct {
	Policy string `json:"policy"`
	// Accuracy, AttentionFraction and MFLOPsPerToken (gathered forward MFLOP per token, both passes of the
	// entropy policy counted) at each budget, in Budgets' order.
	Accuracy          []float64 `json:"accuracy"`
	AttentionFraction []float64 `json:"attention_fraction"`
	MFLOPsPerToken    []float64 `json:"mflops_per_token"`
	// RecoversAt is the smallest budget below 1 whose accuracy is within Tolerance of the
	// all-attention accuracy (null: none below 1, or no F = 1 point).
	RecoversAt *float64 `json:"recovers_at"`
	// BestAt are the budgets 0 < F < 1 at which this policy has the highest accuracy of the policies (a tie
	// counts for each).
	BestAt []float64 `json:"best_at"`
}

// Summarize fills the curves from the points.
func (r *Summary) Summarize() error {
	find := func(pol string, b float64) *Point {
		for i := range r.Points {
			if p := &r.Points[i]; p.Task == r.Task && p.Policy == pol && p.Budget == b {
				return p
			}
		}
		return nil
	}
	r.ByPolicy = nil
	for _, pol := range r.Policies {
		cv := Curve{Policy: pol, BestAt: []float64{}}
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
	r.AllLinear, r.AllAttention = jsonnum.Float(math.NaN()), jsonnum.Float(math.NaN())
	if k := slices.Index(r.Budgets, 0); k >= 0 {
		r.AllLinear = jsonnum.Float(r.ByPolicy[0].Accuracy[k])
	}
	if k := slices.Index(r.Budgets, 1); k >= 0 {
		r.AllAttention = jsonnum.Float(r.ByPolicy[0].Accuracy[k])
	}
	att := float64(r.AllAttention)
	for i := range r.ByPolicy {
		cv := &r.ByPolicy[i]
		for k, b := range r.Budgets {
			if b < 1 && !math.IsNaN(att) && cv.Accuracy[k] >= att-Tolerance && (cv.RecoversAt == nil || b < *cv.RecoversAt) {
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
func (r *Summary) intermediate(k int) bool { return r.Budgets[k] > 0 && r.Budgets[k] < 1 }

// Verdict says, from the curves, which policy wins: the policy with the highest accuracy at the budgets
// between 0 and 1, where each recovers the all-attention accuracy, and which curve the entropy policy's is
// nearest to.
func (r *Summary) Verdict() []string {
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
			out = append(out, fmt.Sprintf("highest accuracy at every budget between 0 and 1 (%s): %s", BudgetList(inner),
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
				per = append(per, fmt.Sprintf("F = %s: %s", BudgetList([]float64{b}), strings.Join(who, ", ")))
			}
			out = append(out, "highest accuracy by budget: "+strings.Join(per, "; "))
		}
	}
	if !math.IsNaN(float64(r.AllAttention)) {
		var rec []string
		for _, cv := range r.ByPolicy {
			at := "not below F = 1"
			if cv.RecoversAt != nil {
				at = "at F = " + BudgetList([]float64{*cv.RecoversAt})
			}
			rec = append(rec, cv.Policy+" "+at)
		}
		out = append(out, fmt.Sprintf("all-attention accuracy (%.1f%%) recovered within %.0f point: %s", 100*r.AllAttention,
			100*Tolerance, strings.Join(rec, ", ")))
	}
	if k := slices.Index(r.Policies, string(schedule.PolicyEntropy)); k >= 0 && len(inner) > 0 && len(r.Policies) > 1 {
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

// Costs are the gathered MFLOP per token at F = 0 and F = 1 and what the entropy policy adds at the first
// budget between them (false if any is missing).
func (r *Summary) Costs() (lo, hi, ent float64, ok bool) {
	k0, k1 := slices.Index(r.Budgets, 0), slices.Index(r.Budgets, 1)
	ke, kl := slices.Index(r.Policies, string(schedule.PolicyEntropy)), slices.Index(r.Policies, string(schedule.PolicyLast))
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
