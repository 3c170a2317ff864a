// Package niah generates RULER's needle-in-a-haystack tasks and scores them: S-NIAH-1/2/3 (niah_single_1/2/3)
// and MK-NIAH-1 (niah_multikey_1), the paper's NIAH table. RULER's own code is scripts/data/synthetic/niah.py and constants.py.
//
// The package needs a tokenizer (tokenizers.Tokenizer, the model's own: prompts are sized in its tokens), not a
// model: it imports neither oryx nor evals. The evaluation harness runs greedy generation on Sample.Prompt
// (at most MaxGenTokens tokens, no stop string, until EOS), decodes it and calls Score; Aggregate and
// Report.Markdown make the table.
//
// Exactness. Keys, values and depths come from a re-implementation of CPython's random module (package
// internal/pyrand), and sizing makes the same calls in the same order as RULER's generate_samples, so with
// the same seed, word lists, essays and token counts the samples are RULER's: the tests compare prompt hashes
// with RULER's code run under Python (with the byte tokenizer). The one deviation is the sentence splitter
// of essay haystacks (NLTK Punkt there, a rule here; see haystack.go), which can move a needle by a sentence.
//
// The pieces, one concept per file:
//
//	task.go           Task, the four tasks' RULER settings, ParseTask
//	templates.go      the needle and prompt templates, singularisation, the answer prefix
//	words.go          keys: the sorted adjective-noun set from the words parquet; words_fallback.go the
//	                  embedded fallback lists (used only without a words parquet)
//	haystack.go       the noise and essay haystacks, needle insertion, the sentence splitter
//	generate.go       Config, Sample, Generate: sizing to target lengths, RULER mode and depth sweeps
//	score.go          RULER's postprocessing and string_match_all
//	report.go         Result, per-(length, depth) aggregation, the markdown grid
//	mini.go           ScoreMini: the same scoring for the tiny models' mini needles (datasets.MiniNeedle)
//
// Data: the essays parquet (<data root>/ruler_essays/essays.parquet, column "text") is required by the
// essay tasks, and there is no fallback haystack; the words parquet (<data root>/ruler_words/words.parquet,
// columns kind and word) falls back to small embedded lists when not given.
package niah
