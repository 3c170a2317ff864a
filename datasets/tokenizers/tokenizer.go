// Package tokenizers maps text to token ids and back, with exact ids against the reference implementations.
//
// The pieces, one concept per file:
//
//	tokenizer.go      the Tokenizer interface; tokenizer_load.go picks one from a spec (Load)
//	bytes_tok.go      the embedded byte-level default (no file needed)
//	bpe.go            Hugging Face tokenizer.json byte-level BPE (GPT-NeoX-20B), exact ids;
//	                  pretokenize.go its hand-written GPT-2 pre-tokenizer, tokenizer_norm.go NFC
//	sentencepiece.go  SentencePiece BPE (tokenizer.model, Llama-2), exact ids
//	minheap.go        the binary heap both BPE merge loops use
package tokenizers

// Tokenizer maps text to token ids and back.
type Tokenizer interface {
	// Encode returns the ids of text (no BOS/EOS added).
	Encode(text string) []int
	// Decode returns the text of ids (special tokens rendered as their content).
	Decode(ids []int) string
	// VocabSize is one more than the largest id Encode can return (added tokens included).
	VocabSize() int
	// EOS is the id put between documents when packing ("<|endoftext|>" for GPT-NeoX).
	EOS() int
	// Name identifies the tokenizer in metadata and errors (e.g. "gpt-neox-20b", "bytes").
	Name() string
}
