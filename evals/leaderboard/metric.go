package leaderboard

import "strings"

// metricKind tells how a metric aggregates (lm-eval's aggregation name), whether higher is better, and
// whether it is a fraction (accuracies, contains, NIAH scores: shown in percent in the markdown table) or
// a value shown as is (perplexities, bits per byte, losses).
func metricKind(name string) (aggregation string, higherIsBetter, fraction bool) {
	base, _, _ := strings.Cut(name, "@") // score@1024, score@d50: as score
	switch {
	case base == "perplexity":
		return "perplexity", false, false
	case base == "word_perplexity" || base == "byte_perplexity":
		return "weighted_perplexity", false, false
	case base == "bits_per_byte":
		return "bits_per_byte", false, false
	case base == "loss" || strings.HasSuffix(base, "_loss") || strings.Contains(base, "perplexity"):
		return "mean", false, false
	}
	return "mean", true, true
}
