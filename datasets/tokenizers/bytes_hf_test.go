package tokenizers

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hfRoundTripCorpus is valid UTF-8 text that reaches every path of the byte tokenizer: ASCII, multi-byte
// characters, control bytes, the special tokens alone, inside words and back to back, and their prefixes.
var hfRoundTripCorpus = []string{
	"", "hello world", "  leading and trailing spaces  ", "tabs\tand\nnewlines\r\n", "Grüße, 世界! 🦊 naïve café",
	"a<|endoftext|>b", "<|endoftext|><|pad|><|endoftext|>", "<|endoftext", "<|pad", "<<|pad|>>", "x <|pad|> y",
	"\x00\x01\x7f", "don't stop ... it's 3.14 + 2 = 5.14", "ÿ¡¬®", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \u0301\u200d",
}

// TestByteTokenizerHFJSONLoads: the byte tokenizer's tokenizer.json (HFJSON) read back by LoadHFTokenizer
// encodes and decodes the corpus as ByteTokenizer does, with the same EOS and vocabulary size; HFJSON is
// deterministic and writes the special tokens unescaped.
func TestByteTokenizerHFJSONLoads(t *testing.T) {
	bt := NewByteTokenizer()
	data := bt.HFJSON()
	assert.Equal(t, data, bt.HFJSON(), "HFJSON must be deterministic")
	assert.Contains(t, string(data), `"content": "<|endoftext|>"`)
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	hf, err := LoadHFTokenizer(path)
	require.NoError(t, err)
	assert.Equal(t, bt.EOS(), hf.EOS())
	assert.Equal(t, bt.VocabSize(), hf.VocabSize())
	for _, s := range hfRoundTripCorpus {
		want := bt.Encode(s)
		got := hf.Encode(s)
		assert.Equal(t, want, got, "Encode(%q)", s)
		assert.Equal(t, bt.Decode(want), hf.Decode(got), "Decode of %q", s)
	}
	all := make([]int, 258)
	for i := range all {
		all[i] = i
	}
	assert.Equal(t, bt.Decode(all), hf.Decode(all))
	assert.True(t, slices.Equal(bt.Encode("<|pad|>"), []int{ByteTokenizerPad}))
	assert.Equal(t, map[int]string{256: "<|endoftext|>", 257: "<|pad|>"}, ByteTokenizerSpecials())
}
