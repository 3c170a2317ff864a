package harness

import (
	"unicode/utf8"

	"github.com/oryx-go/oryx/datasets/tokenizers"
)

// EncodePair returns the context and continuation ids of lm-eval's loglikelihood(context, continuation)
// request (HF causal-LM path, lm-eval ≤ 0.4.9, docs/evals.md §2):
//
//  1. An empty context gives ctx = [prefix] and cont = enc(continuation) (the prefix token is BOS if the
//     tokenizer has one, else EOS: Model.PrefixToken).
//  2. Otherwise the context's trailing whitespace (Python str.rstrip) moves to the front of the
//     continuation; whole = enc(context+continuation), ctx = enc(context), cont = whole[len(ctx):]. The
//     continuation ids come from the whole string because a token can straddle the boundary.
//
// No BOS is added (add_special_tokens=False).
//
// [choice] lm-eval checks for the empty context before moving whitespace, so an all-whitespace context
// encodes to no context token at all (a request lm-eval would score with a garbage logit row). Here that
// case gets ctx = [prefix] too, so every request has a context. When enc(context) is not a prefix of
// whole, cont is still whole[len(ctx):], exactly as lm-eval slices.
func EncodePair(tok tokenizers.Tokenizer, prefix int, context, continuation string) (ctx, cont []int) {
	if context == "" {
		return []int{prefix}, tok.Encode(continuation)
	}
	if trimmed := PyRStrip(context); len(trimmed) < len(context) {
		continuation = context[len(trimmed):] + continuation
		context = trimmed
	}
	whole := tok.Encode(context + continuation)
	ctx = tok.Encode(context)
	if len(ctx) >= len(whole) {
		cont = []int{}
	} else {
		cont = whole[len(ctx):]
	}
	if len(ctx) == 0 {
		ctx = []int{prefix}
	}
	return ctx, cont
}

// EncodeContext returns the ids of a generation prompt: enc(prompt) without BOS (lm-eval ≤ 0.4.9
// tok_batch_encode with add_special_tokens=False), or [prefix] when the prompt encodes to nothing.
// [choice] lm-eval would generate from an empty context; the prefix token is the harness's stand-in.
func EncodeContext(tok tokenizers.Tokenizer, prefix int, prompt string) []int {
	ids := tok.Encode(prompt)
	if len(ids) == 0 {
		return []int{prefix}
	}
	return ids
}

// SplitPoint returns the index of the first token of ids = enc(full) that belongs to full[byteOffset:]: the
// length of the longest common prefix of enc(full[:byteOffset]) and ids. Tasks use it to place a
// request's AttentionFrom at the start of a text suffix (the question, the answer). A token that straddles
// the offset counts as part of the suffix.
func SplitPoint(tok tokenizers.Tokenizer, ids []int, full string, byteOffset int) int {
	if byteOffset <= 0 {
		return 0
	}
	if byteOffset >= len(full) {
		return len(ids)
	}
	for byteOffset > 0 && !utf8.RuneStart(full[byteOffset]) {
		byteOffset--
	}
	head := tok.Encode(full[:byteOffset])
	n := 0
	for n < len(head) && n < len(ids) && head[n] == ids[n] {
		n++
	}
	return n
}

// EncodeChoices is EncodePair(tok, prefix, context, c) for every c in continuations, encoding the context
// once: every pair shares ctx (multiple-choice tasks).
func EncodeChoices(tok tokenizers.Tokenizer, prefix int, context string, continuations []string) (ctx []int, conts [][]int) {
	conts = make([][]int, len(continuations))
	if context == "" {
		for i, c := range continuations {
			conts[i] = tok.Encode(c)
		}
		return []int{prefix}, conts
	}
	moved := ""
	if trimmed := PyRStrip(context); len(trimmed) < len(context) {
		moved, context = context[len(trimmed):], trimmed
	}
	ctx = tok.Encode(context)
	for i, c := range continuations {
		whole := tok.Encode(context + moved + c)
		if len(ctx) >= len(whole) {
			conts[i] = []int{}
		} else {
			conts[i] = whole[len(ctx):]
		}
	}
	if len(ctx) == 0 {
		ctx = []int{prefix}
	}
	return ctx, conts
}
