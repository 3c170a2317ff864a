// Package datasets turns text corpora into tokenized, packed training sequences, and makes the synthetic
// corpora that tiny recipes and tests train on. It knows nothing of models (it does not import package oryx).
// Parquet reading and writing is package datasets/hfparquet; the tokenizers are package datasets/tokenizers.
//
// The pieces, one concept per file:
//
//	spec.go           the one data-spec parser (synth[:SEED], mix:..., a pre-tokenized directory, parquet)
//	                  every command's --data goes through: OpenTraining, OpenStream, ValidationSet
//	mixture.go        the tiny study's training mixture (mix:synth=W,mqar=W,needle=W): language, MQAR, needles
//	source.go         documents with resumable positions (in memory, parquet text column)
//	stream.go         documents → tokens (EOS between documents) → packed sequences of T+1, shuffled by
//	                  seed, sharded across data-parallel workers, with an exact resume cursor
//	pretokenized.go   text parquet → token parquet shards + manifest, and a token stream over them
//	mqar.go           multi-query associative recall (Zoology), deterministic by seed
//	synthlang.go      a small synthetic language mix so that LM loss means something on tiny models
//	minineedle.go     a compact needle-in-a-haystack corpus in that language for tiny models (scored by niah)
//
// Bad input (empty or truncated parquet, wrong column type, invalid UTF-8, an unsupported tokenizer, a
// glob matching nothing) is an error that names the file, column and types; where skipping is the
// documented policy, skips are counted and logged, never silent.
package datasets
