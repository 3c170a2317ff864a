// Package recall implements the recall-intensive retrieval tasks of the GDN paper (SWDE, FDA, SQuAD,
// TriviaQA, NQ, DROP) with the JRT protocol: the `based_*` tasks of the Just-Read-Twice fork of
// lm-evaluation-harness run with --cutting_context --context_length 2048 --answer_length 50 --context_key
// text (HazyResearch/prefix-linear-attention's lm-eval fork). It is not lm-eval's built-in swde/fda/squad_completion, whose numbers
// differ a lot.
//
// Per document:
//
//  1. Cutting (Cutter, the fork's truncate_context): an answer-centred window of
//     context_length - answer_length = 1998 tokens of the stripped text, in the model's tokenizer, decoded
//     back to text; documents whose answer values are empty or one character long are dropped (this
//     changes the denominator, reported as Result.Dropped).
//  2. The task's prompt (prompts.go), e.g. SWDE "<text>. Year:".
//  3. One greedy generation: until ["\n"], at most 48 tokens, the prompt left-truncated to
//     2048 - 48 = 2000 tokens (harness.Run truncates; Plan.MaxLength is 2048 whatever the model's own).
//  4. contains = max over labels of a case-insensitive search of the label in the generation cut at the
//     first "\n" (Contains); the task's metric is its mean over the kept documents, with lm-eval's mean
//     stderr ([choice]: the fork aggregates with np.mean, for which lm-eval prints no stderr).
//
// Mixed mode (harness.Options.Mixed): AttentionFrom is the first token of the question suffix, so the
// context runs linear and the suffix plus every generated token run in attention ([choice] per task, see
// prompts.go: SWDE/FDA the appended " Key:", TriviaQA/NQ/DROP the ". question" suffix, SQuAD the last
// sentence of its completion prompt).
//
// Not implemented: the SQuAD-v2 exact/F1 metrics of based_squad and based_triviaqa (and their extra
// " unanswerable" loglikelihood request); the papers report contains.
package recall
