// Package lmeval implements the zero-shot language-modelling tasks of the papers' tables exactly as
// lm-evaluation-harness 0.4.x scores them (its lm_eval/api/task.py and the tasks' YAML files): wikitext (loglikelihood_rolling,
// word/byte perplexity, bits per byte), lambada_openai (perplexity, acc), and the multiple-choice tasks
// piqa, hellaswag, winogrande (partial scoring), arc_easy, arc_challenge, social_iqa and boolq.
//
// Importing the package registers the tasks with evals/harness under lm-eval's names, and the group "lm"
// (the GDN table's columns). Each task reads <DataRoot>/<dir>/<file> (<DataRoot>: --data-root or
// $ORYX_DATA, one folder per Hugging Face dataset, see DefaultPaths) unless harness.Config.Paths overrides it; a missing column is an error naming the file
// and the column.
//
// Rules shared by all tasks (harness.EncodePair): no BOS, the context's trailing whitespace moves to the
// continuation, continuation ids are taken from the whole string, an empty context scores from the prefix
// token. Multiple choice: one request per choice, continuation " " + choice; acc = [argmax ll == gold],
// acc_norm = [argmax ll/len(choice) == gold] with len in code points of the choice without the space.
//
// Mixed mode (harness.Options.Mixed): [choice] every loglikelihood request's AttentionFrom is its last
// context token, so that every position predicting an answer token reads in attention and the rest of the
// context in linear mode; wikitext's rolling windows are never switched (all linear). The attention share
// then depends on answer lengths (FakeModel counts on the real sets, before this one-token shift: piqa 62 %,
// hellaswag 36 %, winogrande 22 %, arc 11–14 %, social_iqa 9 %, lambada 0.5 %, boolq 0 %); every result
// records its own fraction.
//
// Metrics and standard errors follow lm-eval: acc and acc_norm are means with stderr
// sample_stddev/sqrt(n); LAMBADA's perplexity is exp(-mean ll) with lm-eval's bootstrap stderr
// (harness.BootstrapStderr, same draws as Python); word_perplexity, byte_perplexity and bits_per_byte have
// no stderr in lm-eval (reported as NaN / JSON null).
package lmeval
