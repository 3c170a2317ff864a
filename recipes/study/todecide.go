package study

// What would decide the rest. For a component the data leave inconclusive, the study says how far from its
// threshold an effect must be for this run to decide it (t·SE at the run's level: the smallest decidable
// effect), and how many seeds of the same configuration would decide the effect it measured — with the spread it
// was judged by (the seeds' own, or the one recorded from other seeds) and the held-out set's error, which more
// seeds do not shrink — and what those seeds cost in training time on this machine. The same arithmetic says
// when a question is beyond this scale: when the set's error alone, or a thousand seeds, cannot decide it.

import (
	"math"
)

// maxSeedsToDecide is how far the seed count is searched.
const maxSeedsToDecide = 1000

// ToDecide is what deciding an inconclusive component would take.
type ToDecide struct {
	// Distance is |estimate − threshold|: the effect the component measured, from its threshold.
	Distance float64 `json:"distance"`
	// DecidableNow is t_{Level, df}·SE of this run: the smallest distance this run could have decided.
	DecidableNow float64 `json:"decidable_now"`
	// SD is the per-seed spread the projection uses (the seeds' own, or the recorded one).
	SD float64 `json:"sd"`
	// SeedsNeeded is the smallest number of seeds whose bound at Level would clear the threshold if the
	// effect were Distance (0: not within maxSeedsToDecide; see Beyond).
	SeedsNeeded int `json:"seeds_needed"`
	// TrainingHours are SeedsNeeded × the training time of one seed's runs here (their sum: two at a time
	// take ~0.65× that wall time on 2 cores).
	TrainingHours float64 `json:"training_hours"`
	// Beyond says why no number of seeds decides it at this configuration ("" when SeedsNeeded > 0).
	Beyond string `json:"beyond,omitempty"`
}

// toDecide projects component c (inconclusive, with a spread) to the seeds that would decide it; nil when it
// is decided or has no spread to project with. seedSeconds is one seed's training time.
func toDecide(c component, o outcome, seedSeconds float64) *ToDecide {
	if o.verdict != Inconclusive || c.share != nil || c.forceFail != "" || math.IsNaN(c.est.Mean) || math.IsNaN(c.est.SE) {
		return nil
	}
	var sd float64
	switch c.est.From {
	case seFromSeeds:
		sd = c.est.SE * math.Sqrt(float64(len(c.est.Values)))
	case seFromRecorded:
		sd = c.est.Spread.SD
	default:
		return nil
	}
	lo, hi := o.lo, o.hi
	td := &ToDecide{Distance: math.Abs(c.est.Mean - c.threshold), SD: sd, DecidableNow: (hi - lo) / 2}
	if td.Distance == 0 {
		td.Beyond = "the estimate is on the threshold: no number of seeds decides an effect of 0"
		return td
	}
	if z := tQuantileF(Level, math.Inf(1)); z*c.est.SetSE >= td.Distance {
		td.Beyond = "the held-out set's error alone is larger than the effect: a larger set, not more seeds"
		return td
	}
	for n := 2; n <= maxSeedsToDecide; n++ {
		e := estimate{Mean: c.est.Mean, SE: sd / math.Sqrt(float64(n)), DF: n - 1, SetSE: c.est.SetSE}
		if tQuantileF(Level, e.dfEffective())*e.totalSE() < td.Distance {
			td.SeedsNeeded, td.TrainingHours = n, float64(n)*seedSeconds/3600
			return td
		}
	}
	td.Beyond = "more than 1,000 seeds"
	return td
}

// seedTrainingSeconds is the mean training time of one seed's runs (the sum over the runs of a seed).
func seedTrainingSeconds(c Config, models []*ModelResult) float64 {
	var sum float64
	for _, m := range models {
		if m != nil && m.Summary != nil {
			sum += m.Summary.ElapsedSec
		}
	}
	return sum / float64(c.seeds())
}

// addToDecide adds each inconclusive component's ToDecide to its claim's numbers ("to_decide").
func addToDecide(cls []Claim, seedSeconds float64) {
	for i := range cls {
		cl := &cls[i]
		if len(cl.components) == 0 {
			continue
		}
		_, outs := decideComponents(cl.components)
		for k, cp := range cl.components {
			td := toDecide(cp, outs[k], seedSeconds)
			if td == nil {
				continue
			}
			if n, ok := cl.Numbers[cp.key].(map[string]any); ok {
				n["to_decide"] = td
			}
		}
	}
}
