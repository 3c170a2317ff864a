package harness

import (
	"errors"
	"fmt"
	"strings"
)

// ErrTooLong is wrapped by the error of a request that no truncation can fit into the task's max_length: a
// caller names its flag (evals: --lm-max-length, --max-length).
var ErrTooLong = errors.New("longer than max_length")

// TruncateLL applies lm-eval's left truncation to a loglikelihood request: the model input is
// (ctx+cont)[-(maxLen+1):][:-1], so at most the last maxLen+1 tokens of Context+Continuation are kept and
// the dropped ones come off the front of Context. truncated reports whether any token was dropped.
// AttentionFrom is shifted with the dropped tokens (clamped to 0) and normalised to the request's length
// when it is past the end (Never).
//
// A continuation longer than maxLen cannot be scored with any context (lm-eval would read logits from
// before the input) and is an error.
func TruncateLL(r LLRequest, maxLen int) (out LLRequest, truncated bool, err error) {
	if len(r.Context) == 0 {
		return r, false, fmt.Errorf("harness: loglikelihood request with an empty context (the task must apply the prefix-token rule)")
	}
	if len(r.Continuation) > maxLen {
		return r, false, fmt.Errorf("harness: continuation of %d tokens exceeds max_length %d: %w", len(r.Continuation), maxLen, ErrTooLong)
	}
	total := len(r.Context) + len(r.Continuation)
	out = r
	if drop := total - (maxLen + 1); drop > 0 {
		out.Context = r.Context[drop:]
		truncated = true
		if out.AttentionFrom != Never {
			out.AttentionFrom -= drop
		}
		total -= drop
	}
	out.AttentionFrom = max(0, min(out.AttentionFrom, total))
	return out, truncated, nil
}

// TruncateGen applies lm-eval's generate_until truncation: the context keeps its last maxLen-MaxTokens
// tokens. AttentionFrom is shifted with the dropped tokens (clamped to 0) and normalised to
// len(Context)+MaxTokens when it is past that (Never).
func TruncateGen(r GenRequest, maxLen int) (out GenRequest, truncated bool, err error) {
	if r.MaxTokens < 1 {
		return r, false, fmt.Errorf("harness: generation request with max_gen_toks %d (want >= 1)", r.MaxTokens)
	}
	keep := maxLen - r.MaxTokens
	if keep < 1 {
		return r, false, fmt.Errorf("harness: max_gen_toks %d leaves no room for a context in max_length %d", r.MaxTokens, maxLen)
	}
	if len(r.Context) == 0 {
		return r, false, fmt.Errorf("harness: generation request with an empty context (the task must apply the prefix-token rule)")
	}
	out = r
	if drop := len(r.Context) - keep; drop > 0 {
		out.Context = r.Context[drop:]
		truncated = true
		if out.AttentionFrom != Never {
			out.AttentionFrom -= drop
		}
	}
	out.AttentionFrom = max(0, min(out.AttentionFrom, len(out.Context)+out.MaxTokens))
	return out, truncated, nil
}

// CutAtStop cuts text at the earliest occurrence of any non-empty stop string, as lm-eval's
// `for term in until: s = s.split(term)[0]` does.
func CutAtStop(text string, until []string) string {
	for _, u := range until {
		if u == "" {
			continue
		}
		if i := strings.Index(text, u); i >= 0 {
			text = text[:i]
		}
	}
	return text
}
