// Package datasets turns Hugging Face parquet shards into tokenized, packed training sequences, and makes the
// synthetic corpora that tiny recipes and tests train on. It knows nothing of models (it does not import
// package oryx).
//
// The pieces, one concept per file:
//
//	tokenizer.go      the Tokenizer interface; tokenizer_load.go picks one from a spec
//	bytes_tok.go      the embedded byte-level default (no file needed)
//	bpe.go            Hugging Face tokenizer.json byte-level BPE (GPT-NeoX-20B), exact ids;
//	                  pretokenize.go its hand-written GPT-2 pre-tokenizer, tokenizer_norm.go NFC
//	sentencepiece.go  SentencePiece BPE (tokenizer.model, Llama-2), exact ids
//	parquet*.go       HF parquet reading: file, directory or glob; schema checks; streamed row groups;
//	                  guards against corrupt files; atomic writers
//	source.go         documents with resumable positions (in memory, parquet text column)
//	stream.go         documents → tokens (EOS between documents) → packed sequences of T+1, shuffled by
//	                  seed, sharded across data-parallel workers, with an exact resume cursor
//	pretokenized.go   text parquet → token parquet shards + manifest, and a token stream over them
//	mqar.go           multi-query associative recall (Zoology), deterministic by seed
//	synthlang.go      a small synthetic language mix so that LM loss means something on tiny models
//
// Bad input (empty or truncated parquet, wrong column type, invalid UTF-8, an unsupported tokenizer, a
// glob matching nothing) is an error that names the file, column and types; where skipping is the
// documented policy, skips are counted and logged, never silent.
package datasets
