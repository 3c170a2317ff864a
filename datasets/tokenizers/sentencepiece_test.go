package tokenizers

import (
	"encoding/binary"
	"math"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"
)

var (
	llamaOnce sync.Once
	llamaTok  *SentencePieceTokenizer
	llamaErr  error
)

// tokTestLlama loads the Llama-2 tokenizer once (skipping when the file is absent).
func tokTestLlama(tb testing.TB) *SentencePieceTokenizer {
	tb.Helper()
	p := tokTestFile(tb, "llama2/tokenizer.model")
	llamaOnce.Do(func() { llamaTok, llamaErr = LoadSentencePiece(p) })
	if llamaErr != nil {
		tb.Fatalf("LoadSentencePiece(%s): %v", p, llamaErr)
	}
	return llamaTok
}

func TestSentencePieceGoldenLlama2(t *testing.T) {
	tok := tokTestLlama(t)
	golden := tokReadGolden(t, tokTestFile(t, "llama2/golden.jsonl"))
	exact := 0
	for i, g := range golden {
		got := tok.Encode(g.Text)
		if slices.Equal(got, g.IDs) {
			exact++
		} else {
			t.Errorf("line %d %q:\n got %v\nwant %v", i+1, g.Text, got, g.IDs)
		}
		if dec := tok.Decode(g.IDs); dec != g.Text {
			t.Errorf("line %d: Decode(golden ids) = %q, want %q", i+1, dec, g.Text)
		}
	}
	t.Logf("Llama-2 golden: %d/%d lines exact", exact, len(golden))
}

func TestSentencePieceLlama2Properties(t *testing.T) {
	tok := tokTestLlama(t)
	if tok.Name() != "llama2" || tok.VocabSize() != 32000 || tok.EOS() != 2 {
		t.Errorf("Name %q VocabSize %d EOS %d", tok.Name(), tok.VocabSize(), tok.EOS())
	}
	if p, _ := tok.Piece(2); p != "</s>" {
		t.Errorf("EOS piece %q, want </s>", p)
	}
	if got := tok.Encode(""); len(got) != 0 {
		t.Errorf("Encode(\"\") = %v", got)
	}
	// Byte fallback: a character that is not a piece becomes its bytes <0xNN> (ids 3 + byte).
	got := tok.Encode("🙂")
	if want := []int{29871, 3 + 0xf0, 3 + 0x9f, 3 + 0x99, 3 + 0x82}; !slices.Equal(got, want) {
		t.Errorf("Encode(🙂) = %v, want %v", got, want)
	}
	// Invalid UTF-8 is read as U+FFFD, one per byte.
	if got, want := tok.Encode("a\xffb"), tok.Encode("a\uFFFDb"); !slices.Equal(got, want) {
		t.Errorf("Encode(invalid) = %v, want %v", got, want)
	}
	// Control pieces decode as their text; a bad id as U+FFFD.
	if got := tok.Decode([]int{1, 15043, 2, -5}); got != "<s>Hello</s>\uFFFD" {
		t.Errorf("Decode = %q", got)
	}
}

func TestSentencePieceRoundTripRandom(t *testing.T) {
	tok := tokTestLlama(t)
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 3000; i++ {
		s := strings.ReplaceAll(tokRandomString(rng), spmSpace, "")
		ids := tok.Encode(s)
		for _, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("Encode(%q) gave id %d", s, id)
			}
		}
		if dec := tok.Decode(ids); dec != s {
			t.Fatalf("Decode(Encode(%q)) = %q", s, dec)
		}
	}
}

// TestSentencePieceWordSplit checks that encoding word by word (with the cache) gives the ids of encoding the
// whole normalised text at once, as sentencepiece does.
func TestSentencePieceWordSplit(t *testing.T) {
	tok := tokTestLlama(t)
	if !tok.splitAtSpace {
		t.Fatal("Llama-2 should allow word-by-word encoding")
	}
	texts := []string{tokBenchText()[:20000]}
	rng := rand.New(rand.NewSource(5))
	for i := 0; i < 2000; i++ {
		texts = append(texts, tokRandomString(rng)+" "+tokRandomString(rng))
	}
	for _, g := range tokReadGolden(t, tokTestFile(t, "llama2/golden.jsonl")) {
		texts = append(texts, g.Text)
	}
	for _, s := range texts {
		whole := tok.encodeChunk(tok.normalize(tokSanitizeUTF8(s)), nil)
		if s == "" {
			whole = []int{}
		}
		if got := tok.Encode(s); !slices.Equal(got, whole) {
			t.Fatalf("Encode(%q) word by word = %v, whole = %v", s, got, whole)
		}
	}
}

// spmTestModel builds a small ModelProto by hand: pieces (text, score, type), a trainer_spec and a
// normalizer_spec given as raw fields.
func spmTestModel(pieces []spmPiece, trainer, normalizer []byte) []byte {
	var out []byte
	key := func(b []byte, field, wt int) []byte { return binary.AppendUvarint(b, uint64(field<<3|wt)) }
	bytesField := func(b []byte, field int, v []byte) []byte {
		b = key(b, field, 2)
		b = binary.AppendUvarint(b, uint64(len(v)))
		return append(b, v...)
	}
	for _, p := range pieces {
		var m []byte
		m = bytesField(m, 1, []byte(p.piece))
		m = key(m, 2, 5)
		m = binary.LittleEndian.AppendUint32(m, math.Float32bits(p.score))
		m = key(m, 3, 0)
		m = binary.AppendUvarint(m, uint64(p.typ))
		out = bytesField(out, 1, m)
	}
	out = bytesField(out, 2, trainer)
	out = bytesField(out, 3, normalizer)
	return out
}

// spmVarintFields encodes field=value varint pairs.
func spmVarintFields(kv ...int) []byte {
	var b []byte
	for i := 0; i+1 < len(kv); i += 2 {
		b = binary.AppendUvarint(b, uint64(kv[i]<<3))
		b = binary.AppendUvarint(b, uint64(kv[i+1]))
	}
	return b
}

func spmIdentityNormalizer(extra ...int) []byte {
	b := []byte{1<<3 | 2, 8}
	b = append(b, "identity"...)
	return append(b, spmVarintFields(append([]int{4, 0}, extra...)...)...)
}

func TestSentencePieceTinyModel(t *testing.T) {
	pieces := []spmPiece{
		{piece: "<unk>", typ: spmUnknown}, {piece: "<s>", typ: spmControl}, {piece: "</s>", typ: spmControl},
		{piece: "▁", score: -1, typ: spmNormal}, {piece: "a", score: -2, typ: spmNormal},
		{piece: "b", score: -3, typ: spmNormal}, {piece: "ab", score: -0.5, typ: spmNormal},
		{piece: "▁ab", score: -0.25, typ: spmNormal}, {piece: "<x>", typ: spmUserDefined},
	}
	// model_type BPE, no byte fallback: an unknown character is <unk>.
	p := tokWriteFile(t, "tokenizer.model", string(spmTestModel(pieces, spmVarintFields(3, 2), spmIdentityNormalizer())))
	tok, err := LoadSentencePiece(p)
	if err != nil {
		t.Fatal(err)
	}
	// "▁ab▁a<x>ab▁c": "ab" then "▁ab" merge; <x> is user-defined and kept whole; "c" is unknown.
	if got, want := tok.Encode("ab a<x>ab c"), []int{7, 3, 4, 8, 6, 3, 0}; !slices.Equal(got, want) {
		t.Errorf("Encode = %v, want %v", got, want)
	}
	if got := tok.Decode([]int{7, 3, 4, 8, 6, 3, 0}); got != "ab a<x>ab <unk>" {
		t.Errorf("Decode = %q", got)
	}
	if tok.VocabSize() != len(pieces) || tok.EOS() != 2 {
		t.Errorf("VocabSize %d EOS %d", tok.VocabSize(), tok.EOS())
	}

	cases := []struct {
		name    string
		trainer []byte
		norm    []byte
		want    string
	}{
		{"unigram", spmVarintFields(3, 1), spmIdentityNormalizer(), "model_type UNIGRAM"},
		{"default-type", nil, spmIdentityNormalizer(), "model_type UNIGRAM"},
		{"word", spmVarintFields(3, 3), spmIdentityNormalizer(), "model_type WORD"},
		{"nfkc", spmVarintFields(3, 2), append([]byte{1<<3 | 2, 8}, "nmt_nfkc"...), "normalizer_spec.name \"nmt_nfkc\""},
		{"extra-ws", spmVarintFields(3, 2), append([]byte{1<<3 | 2, 8}, "identity"...), "remove_extra_whitespaces"},
		{"suffix", spmVarintFields(3, 2, 24, 1), spmIdentityNormalizer(), "treat_whitespace_as_suffix"},
		{"fallback-no-bytes", spmVarintFields(3, 2, 35, 1), spmIdentityNormalizer(), "<0x00>"},
	}
	for _, c := range cases {
		p := tokWriteFile(t, c.name+".model", string(spmTestModel(pieces, c.trainer, c.norm)))
		_, err := LoadSentencePiece(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming the file and %q", c.name, err, c.want)
		}
	}
	for _, bad := range []string{"", "\xff\xff\xff", "not a protobuf at all, just text"} {
		p := tokWriteFile(t, "bad.model", bad)
		if _, err := LoadSentencePiece(p); err == nil {
			t.Errorf("LoadSentencePiece(%q): no error", bad)
		}
	}
	// Load dispatches .model files.
	if tok, err := Load(p); err != nil {
		t.Errorf("Load(%s): %v", p, err)
	} else if _, ok := tok.(*SentencePieceTokenizer); !ok {
		t.Errorf("Load(.model) is %T", tok)
	}
	if _, err := Load(tokWriteFile(t, "bad.model", "\xff")); err == nil {
		t.Error("Load(bad .model): no error")
	}
}

func BenchmarkSentencePieceEncode(b *testing.B) {
	tok := tokTestLlama(b)
	text := tokBenchText()
	if len(text) > 100_000 {
		text = text[:100_000]
	}
	ntok := len(tok.Encode(text))
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tok.Encode(text)
	}
	b.ReportMetric(float64(ntok)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}
