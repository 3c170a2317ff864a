package harness

import "fmt"

// RollingWindows returns the requests of lm-eval's loglikelihood_rolling over tokens: disjoint windows
// with context length 1 (utils.get_rolling_token_windows followed by make_disjoint_window, docs/evals.md §2):
//
//   - the first window has Context [prefix] and Continuation tokens[:min(maxLen, len)] (its model input is
//     [prefix] + tokens[:maxLen-1]);
//   - each later window predicts the next ≤ maxLen tokens, tokens[end-p:end], and its Context is
//     tokens[end-maxLen-1 : end-p], so that its model input is the maxLen tokens ending just before its
//     last predicted token, with no other history.
//
// Every token is predicted exactly once, and len(Context)+len(Continuation)-1 == maxLen for every window
// but a first window shorter than maxLen. The document log-likelihood is the sum over the windows.
// AttentionFrom is Never (the rolling evaluation runs fully in the model's configured schedule: all linear
// for the mixed schedule). An empty token list gives no window (lm-eval scores such a document 0).
func RollingWindows(tokens []int, prefix, maxLen int) ([]LLRequest, error) {
	if maxLen < 1 {
		return nil, fmt.Errorf("harness: rolling windows need max_length >= 1, got %d", maxLen)
	}
	if len(tokens) == 0 {
		return nil, nil
	}
	first := min(maxLen, len(tokens))
	out := []LLRequest{{Context: []int{prefix}, Continuation: tokens[:first:first], AttentionFrom: Never}}
	for predicted := first; predicted < len(tokens); {
		p := min(len(tokens)-predicted, maxLen)
		end := predicted + p
		// lm-eval: a = tokens[end-maxLen-1 : end-1], b = tokens[end-p : end]; disjoint: a[:len(a)-(len(b)-1)].
		a := tokens[end-maxLen-1 : end-1]
		ctx := a[: len(a)-(p-1) : len(a)-(p-1)]
		out = append(out, LLRequest{Context: ctx, Continuation: tokens[end-p : end : end], AttentionFrom: Never})
		predicted = end
	}
	return out, nil
}
