// Package datasets will read Hugging Face parquet shards, tokenize (GPT-NeoX byte-level BPE), pack and
// stream resumable training sequences, and generate synthetic recall corpora (MQAR). Not implemented yet:
// issue 4 brings it.
package datasets
