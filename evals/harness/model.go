package harness

import (
	"math"

	"github.com/oryx-go/oryx/datasets/tokenizers"
)

// Never is an AttentionFrom value meaning "no token is forced into attention by the task": the request
// runs under whatever schedule the model was configured with (for the mixed schedule: all linear). Any
// value at or past the end of the request means the same; Run normalises it to exactly the end (for an
// LLRequest len(Context)+len(Continuation), for a GenRequest len(Context)+MaxTokens).
const Never = math.MaxInt

// LLRequest is one loglikelihood request, already tokenized per lm-eval rules: the model scores
// Continuation given Context.
//
// When the model receives it (from Run), it is already left-truncated: len(Context) >= 1 and
// len(Context)+len(Continuation)-1 <= Model.MaxLength(). The model's input is Context+Continuation without
// its last token; the score is the sum of the log-softmax (over the model's full output width, padded
// vocabulary rows included) of each continuation token at the position before it.
type LLRequest struct {
	// Context and Continuation are token ids. Context is non-empty (lm-eval's prefix-token rule applied by
	// the task, see EncodePair). Continuation may be empty only for an empty continuation string (score 0).
	Context, Continuation []int
	// AttentionFrom is the token index into Context+Continuation from which the "mixed" schedule runs
	// tokens in attention mode; len(Context)+len(Continuation) (or Never) means never. The task sets it per
	// its documented rule; Run shifts it with the left truncation.
	AttentionFrom int
}

// LLResult is the model's answer to one LLRequest.
type LLResult struct {
	// LogLikelihood is the sum over continuation tokens of log p(token | everything before it).
	LogLikelihood float64
	// IsGreedy is true when every continuation token is the argmax of its distribution.
	IsGreedy bool
	// AttentionTokens and Tokens count the input positions the model ran (len(Context)+len(Continuation)-1
	// for a plain forward pass) and, of those, the ones it ran in attention mode, under the schedule it
	// actually used. Run sums them into Result.AttentionFraction.
	AttentionTokens, Tokens int
}

// GenRequest is one greedy-generation request (lm-eval generate_until).
//
// When the model receives it (from Run), Context is already left-truncated to
// Model.MaxLength()-MaxTokens tokens (or the task's own max length, see Plan.MaxLength) and is non-empty.
type GenRequest struct {
	// Context is the prompt's token ids (no BOS: lm-eval ≤ 0.4.9 encodes without special tokens).
	Context []int
	// AttentionFrom is the token index into Context+generated tokens from which the "mixed" schedule runs
	// tokens in attention mode: a value <= len(Context) puts the prompt's tail and every generated token in
	// attention; len(Context)+MaxTokens (or Never) means never.
	AttentionFrom int
	// Until are stop strings: generation may stop once the decoded text contains one. The model also stops
	// at its tokenizer's EOS. Run cuts the returned text at the first occurrence of any of them (CutAtStop),
	// so a model that generates past a stop string is still scored correctly.
	Until []string
	// MaxTokens is the most tokens to generate (lm-eval max_gen_toks).
	MaxTokens int
}

// GenResult is the model's answer to one GenRequest.
type GenResult struct {
	// Text is the decoded generation (without the prompt and without EOS); Run cuts it at the first stop
	// string.
	Text string
	// Tokens are the generated ids.
	Tokens []int
	// AttentionTokens and TotalTokens count the positions the model ran (prompt plus the generated tokens
	// fed back) and, of those, the ones in attention mode.
	AttentionTokens, TotalTokens int
}

// Model is what the harness evaluates. The implementation over the Oryx engine lives elsewhere;
// harnesstest.FakeModel is a deterministic one for tests.
type Model interface {
	// Tokenizer is the model's tokenizer: every task tokenizes with it.
	Tokenizer() tokenizers.Tokenizer
	// MaxLength is the most tokens one model call takes (lm-eval max_length: 2048 for the mamba_ssm
	// wrapper). Run truncates every request to it.
	MaxLength() int
	// PrefixToken is BOS if the tokenizer has one, else EOS (lm-eval prefix_token_id): the context of an
	// empty-context request and of the first rolling window. NeoX: 0; Llama-2: 1.
	PrefixToken() int
	// LogLikelihood scores reqs (all of a task at once: the model batches and orders them as it likes) and
	// returns one result per request, in order. progress, when non-nil, is called with the number of
	// requests done so far.
	LogLikelihood(reqs []LLRequest, progress func(done int)) ([]LLResult, error)
	// GenerateUntil generates greedily for each request and returns one result per request, in order.
	GenerateUntil(reqs []GenRequest, progress func(done int)) ([]GenResult, error)
}
