package recall

import "regexp"

// Contains is the JRT tasks' contains_score: 1 if any label, regex-escaped, is found case-insensitively
// (re.IGNORECASE) in prediction, else 0. The prediction is the raw decoded generation cut at the first
// "\n", not stripped. [choice] An empty label list scores 0 (Python's max() would raise). Case folding is
// Go's (?i) (Unicode simple folding), which agrees with Python's IGNORECASE outside a few special folds.
func Contains(prediction string, labels []string) float64 {
	for _, l := range labels {
		if regexp.MustCompile("(?i)" + regexp.QuoteMeta(l)).MatchString(prediction) {
			return 1
		}
	}
	return 0
}
