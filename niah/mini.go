package niah

import "github.com/oryx-go/oryx/datasets"

// ScoreMini scores a mini needle (datasets.MiniNeedle, the tiny models' compact needle task) as RULER scores
// its needles: 1 when the generation contains the value (case-insensitive substring), else 0.
func ScoreMini(s datasets.MiniNeedle, generation string) float64 {
	return StringMatchAll([]string{s.Value}, generation)
}
