package tokenizers

import (
	"fmt"
	"strings"
)

// Load returns the tokenizer a spec names:
//
//	"" or "bytes"       the embedded ByteTokenizer (no file)
//	path ending .json    a Hugging Face byte-level BPE tokenizer.json (LoadHFTokenizer), e.g. GPT-NeoX-20B's
//	path ending .model   a SentencePiece BPE model (LoadSentencePiece), e.g. Llama-2's tokenizer.model
//
// Anything else is an error listing these forms.
func Load(spec string) (Tokenizer, error) {
	lower := strings.ToLower(spec)
	switch {
	case spec == "" || spec == "bytes":
		return NewByteTokenizer(), nil
	case strings.HasSuffix(lower, ".json"):
		return LoadHFTokenizer(spec)
	case strings.HasSuffix(lower, ".model"):
		return LoadSentencePiece(spec)
	}
	return nil, fmt.Errorf("tokenizers: unknown tokenizer %q: want \"\" or \"bytes\" (the byte tokenizer), "+
		"a path to a Hugging Face tokenizer.json (\".json\", byte-level BPE) or a path to a SentencePiece "+
		"tokenizer.model (\".model\", BPE)", spec)
}
