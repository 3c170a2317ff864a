package tokenizers

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Seeds shared by the fuzz tests (more are in testdata/fuzz/<FuzzName>/).
var tokFuzzSeeds = []string{
	"", "Hello world", "a    b", "a\n\n b", "trailing spaces   ", "<|endoftext|>Hello<|endoftext|>",
	"<|endoftext|>\u0338", "cafe\u0301 NFC", "héllo wörld 東京 🙂", "I can't believe it's 2026 -- 'll 'RE",
	"\t\r\n\u00a0\u2028\u3000 x", "\xff\xfe a \xc3", strings.Repeat(" ", 60) + "z",
	"Z" + strings.Repeat("\u0301\u0323\u0334", 15) + "a",
}

func FuzzByteTokenizer(f *testing.F) {
	for _, s := range tokFuzzSeeds {
		f.Add(s)
	}
	tok := NewByteTokenizer()
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s)
		if len(ids) > len(s) {
			t.Fatalf("Encode(%q) gave %d ids for %d bytes", s, len(ids), len(s))
		}
		for _, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("Encode(%q): id %d out of range", s, id)
			}
		}
		if dec := tok.Decode(ids); dec != s {
			t.Fatalf("Decode(Encode(%q)) = %q", s, dec)
		}
	})
}

// FuzzBPE checks, for GPT-NeoX-20B, that Encode never panics and gives ids in range, and that for valid UTF-8
// s, Decode(Encode(s)) is s NFC-normalised piecewise between the special added tokens (which equals NFC(s)
// except where NFC would compose a special token's last character with what follows, as in
// "<|endoftext|>\u0338"); in all cases NFC(Decode(Encode(s))) == NFC(s). Invalid UTF-8 is encoded as the text
// with U+FFFD for each invalid byte.
func FuzzBPE(f *testing.F) {
	tokTestFile(f, "gpt-neox-20b/tokenizer.json") // skips the whole fuzz test when the file is absent
	for _, s := range tokFuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tok := tokTestNeoX(t)
		ids := tok.Encode(s)
		for _, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("Encode(%q): id %d out of range", s, id)
			}
		}
		dec := tok.Decode(ids)
		valid := s
		if !utf8.ValidString(s) {
			valid = tokSanitizeUTF8(s)
			if again := tok.Encode(valid); !slices.Equal(again, ids) {
				t.Fatalf("Encode(%q) = %v, but Encode of its U+FFFD form = %v", s, ids, again)
			}
		}
		if want := neoxExpectedRoundTrip(tok, valid); dec != want {
			t.Fatalf("Decode(Encode(%q)) = %q, want %q", s, dec, want)
		}
		if nd, ns := tokNormalize(norm.NFC, dec), tokNormalize(norm.NFC, valid); nd != ns {
			t.Fatalf("NFC(Decode(Encode(%q))) = %q, want NFC(s) = %q", s, nd, ns)
		}
	})
}

// FuzzSentencePiece checks, for Llama-2, that Encode never panics, that encoding word by word gives the ids of
// encoding the whole text at once, and that Decode(Encode(s)) == s for valid UTF-8 s without "▁" (U+2581),
// which SentencePiece reads as a space.
func FuzzSentencePiece(f *testing.F) {
	tokTestFile(f, "llama2/tokenizer.model")
	for _, s := range tokFuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tok := tokTestLlama(t)
		ids := tok.Encode(s)
		for _, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("Encode(%q): id %d out of range", s, id)
			}
		}
		if s != "" {
			if whole := tok.encodeChunk(tok.normalize(tokSanitizeUTF8(s)), nil); !slices.Equal(ids, whole) {
				t.Fatalf("Encode(%q) word by word = %v, whole text = %v", s, ids, whole)
			}
		}
		if !utf8.ValidString(s) || strings.Contains(s, spmSpace) {
			return
		}
		if dec := tok.Decode(ids); dec != s {
			t.Fatalf("Decode(Encode(%q)) = %q", s, dec)
		}
	})
}
