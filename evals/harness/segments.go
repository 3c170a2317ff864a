package harness

// Segments splits a task's model positions into three parts, by each request's split point (the task's
// AttentionFrom, set whether or not the run is mixed):
//
//   - context: the positions before the split point (the haystack, the passage, the question stem of a
//     multiple-choice context up to its last token);
//   - question: the positions from the split point to the end of the prompt, and for a loglikelihood
//     request the continuation tokens fed to the model (the mixed setting runs this part in attention);
//   - generated: the generated tokens fed back to the model (generation requests only).
//
// A request without a split point (rolling windows) is all context. Tokens count positions as the model
// reported them (LLResult.Tokens, GenResult.TotalTokens). Attention counts are per part when they can be
// told from the model's totals (AttentionKnown): a request whose attention count is 0 or all its tokens,
// or a mixed request whose attention count equals its question and generated parts (the mixed rule). A
// fixed partial schedule (attention-last:N, ...) leaves them unknown: the totals are still in
// Result.AttentionTokens.
type Segments struct {
	ContextTokens      int64 `json:"context_tokens"`
	QuestionTokens     int64 `json:"question_tokens"`
	GeneratedTokens    int64 `json:"generated_tokens"`
	ContextAttention   int64 `json:"context_attention"`
	QuestionAttention  int64 `json:"question_attention"`
	GeneratedAttention int64 `json:"generated_attention"`
	// AttentionKnown tells whether the three attention counts are exact (see the type's doc); when false
	// they are 0.
	AttentionKnown bool `json:"attention_known"`
}

// add counts one request: n model positions of which prompt are prompt positions (the rest generated),
// split the split point (clamped to [0, prompt]), attn the model's attention count, mixed whether the
// model received the split point.
func (s *Segments) add(n, prompt, split, attn int, mixed bool) {
	prompt = min(max(prompt, 0), n)
	split = min(max(split, 0), prompt)
	ctx, q, gen := split, prompt-split, n-prompt
	s.ContextTokens += int64(ctx)
	s.QuestionTokens += int64(q)
	s.GeneratedTokens += int64(gen)
	if !s.AttentionKnown {
		return
	}
	switch {
	case attn == 0:
	case attn == n:
		s.ContextAttention += int64(ctx)
		s.QuestionAttention += int64(q)
		s.GeneratedAttention += int64(gen)
	case mixed && attn == q+gen:
		s.QuestionAttention += int64(q)
		s.GeneratedAttention += int64(gen)
	default:
		*s = Segments{ContextTokens: s.ContextTokens, QuestionTokens: s.QuestionTokens, GeneratedTokens: s.GeneratedTokens}
	}
}
