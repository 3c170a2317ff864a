package datasets

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
