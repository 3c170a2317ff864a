// Package datasets turns Hugging Face parquet shards into tokenized, packed training sequences, and makes the
// synthetic corpora that tiny recipes and tests train on. It knows nothing of models (it does not import
// package oryx).
//
// The pieces, one concept per file:
//
//	tokenizer.go     the Tokenizer interface and the embedded byte-level default (no file needed)
//	bpe.go           Hugging Face tokenizer.json byte-level BPE (GPT-NeoX-20B), exact ids
//	sentencepiece.go SentencePiece BPE (tokenizer.model, Llama-2)
//	parquet.go       HF parquet reading: file, directory or glob; schema checks; streamed row groups
//	stream.go        documents → tokens (EOS between documents) → packed sequences of T+1, shuffled by
//	                 seed, sharded across data-parallel workers, with an exact resume cursor
//	mqar.go          multi-query associative recall (Zoology), deterministic by seed
//	synthlang.go     a small synthetic language mix so that LM loss means something on tiny models
//
// Bad input (empty or truncated parquet, wrong column type, invalid UTF-8, an unsupported tokenizer, a
// glob matching nothing) is an error that names the file, column and types; where skipping is the
// documented policy, skips are counted and logged, never silent.
package datasets
