package tokenizers

import "strings"

// Ids of the special tokens of ByteTokenizer.
const (
	ByteTokenizerEOS = 256 // "<|endoftext|>"
	ByteTokenizerPad = 257 // "<|pad|>"
)

// ByteTokenizer is the embedded default tokenizer, needing no file: ids 0–255 are the bytes of the text's
// UTF-8 encoding, 256 is "<|endoftext|>" (EOS) and 257 is "<|pad|>"; VocabSize is 258 and Name "bytes".
//
// Encode treats the two special tokens as Hugging Face treats added tokens: their literal text anywhere in the
// input is split out first and encoded as the single id (so "a<|endoftext|>b" is [97, 256, 98]). Every other
// byte, valid UTF-8 or not, is its own id, so Decode(Encode(s)) == s for every string s.
//
// Decode writes ids 0–255 as the bytes they are, without checking the result: decoding part of a sequence
// that cuts a multi-byte character, or ids that never were UTF-8, gives a string that may be invalid UTF-8.
// Ids 256 and 257 decode to their token text; any other id decodes to U+FFFD.
//
// A ByteTokenizer has no state; its methods are safe for concurrent use.
type ByteTokenizer struct{}

var byteTokSpecials = [...]string{"<|endoftext|>", "<|pad|>"}

// NewByteTokenizer returns the byte-level tokenizer.
func NewByteTokenizer() *ByteTokenizer { return &ByteTokenizer{} }

// Encode returns one id per byte of text, with "<|endoftext|>" and "<|pad|>" as ids 256 and 257.
func (*ByteTokenizer) Encode(text string) []int {
	ids := make([]int, 0, len(text))
	for i := 0; i < len(text); i++ {
		if text[i] == '<' {
			if k, id := byteTokSpecialAt(text[i:]); k > 0 {
				ids = append(ids, id)
				i += k - 1
				continue
			}
		}
		ids = append(ids, int(text[i]))
	}
	return ids
}

func byteTokSpecialAt(s string) (length, id int) {
	for k, sp := range byteTokSpecials {
		if strings.HasPrefix(s, sp) {
			return len(sp), ByteTokenizerEOS + k
		}
	}
	return 0, 0
}

// Decode returns the bytes of ids 0–255 as they are (possibly invalid UTF-8), the special tokens as their
// text, and U+FFFD for ids outside [0, 258).
func (*ByteTokenizer) Decode(ids []int) string {
	b := make([]byte, 0, len(ids))
	for _, id := range ids {
		switch {
		case id >= 0 && id < 256:
			b = append(b, byte(id))
		case id >= ByteTokenizerEOS && id <= ByteTokenizerPad:
			b = append(b, byteTokSpecials[id-ByteTokenizerEOS]...)
		default:
			b = append(b, "\uFFFD"...)
		}
	}
	return string(b)
}

// VocabSize returns 258.
func (*ByteTokenizer) VocabSize() int { return 258 }

// EOS returns 256, the id of "<|endoftext|>".
func (*ByteTokenizer) EOS() int { return ByteTokenizerEOS }

// Name returns "bytes".
func (*ByteTokenizer) Name() string { return "bytes" }
