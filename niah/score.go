package niah

import "strings"

// Scoring (RULER scripts/eval/synthetic/constants.py). The generation is greedy, at
// most MaxGenTokens tokens, with no stop string: it ends at EOS or at the budget. Cutting at EOS and decoding
// are the caller's job; Score takes the decoded text.

// Postprocess is RULER's postprocess_pred: strip, replace every character in [\x00-\x1f] with "\n", strip
// again (Python's str.strip: Unicode whitespace).
func Postprocess(generation string) string {
	s := pyStrip(generation)
	s = strings.Map(func(r rune) rune {
		if r <= 0x1f {
			return '\n'
		}
		return r
	}, s)
	return pyStrip(s)
}

// Score is RULER's string_match_all for one sample, as a fraction in [0, 1]: the share of sample.Answers
// that occur in the postprocessed generation, compared lower-cased (case-insensitive substring match).
// S-NIAH-1/2/3 and MK-NIAH-1 ask for one value, so a sample scores 0 or 1. A sample without answers scores 0.
// RULER reports the mean over samples × 100 (see Aggregate).
func Score(sample Sample, generation string) float64 {
	return StringMatchAll(sample.Answers, generation)
}

// StringMatchAll is Score on a list of reference values.
func StringMatchAll(refs []string, generation string) float64 {
	if len(refs) == 0 {
		return 0
	}
	pred := strings.ToLower(Postprocess(generation))
	found := 0
	for _, r := range refs {
		if strings.Contains(pred, strings.ToLower(r)) {
			found++
		}
	}
	return float64(found) / float64(len(refs))
}
