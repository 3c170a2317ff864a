package tokenizers

import (
	"bufio"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// tokTestDataDir finds shared/data/tokenizers by walking up from the working directory (the package
// directory under `go test`); "" if there is none.
func tokTestDataDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		cand := filepath.Join(dir, "shared", "data", "tokenizers")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// tokTestFile returns the path of shared/data/tokenizers/<rel>, skipping the test when it is absent.
func tokTestFile(tb testing.TB, rel string) string {
	tb.Helper()
	root := tokTestDataDir()
	if root == "" {
		tb.Skipf("shared/data/tokenizers not found above the working directory: skipping the test that needs %s", rel)
	}
	p := filepath.Join(root, rel)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("tokenizer file %s is absent (%v): skipping", p, err)
	}
	return p
}

var (
	neoxOnce sync.Once
	neoxTok  *BPETokenizer
	neoxErr  error
)

// tokTestNeoX loads the GPT-NeoX-20B tokenizer once (skipping when the file is absent).
func tokTestNeoX(tb testing.TB) *BPETokenizer {
	tb.Helper()
	p := tokTestFile(tb, "gpt-neox-20b/tokenizer.json")
	neoxOnce.Do(func() { neoxTok, neoxErr = LoadHFTokenizer(p) })
	if neoxErr != nil {
		tb.Fatalf("LoadHFTokenizer(%s): %v", p, neoxErr)
	}
	return neoxTok
}

type tokGolden struct {
	Text string `json:"text"`
	IDs  []int  `json:"ids"`
}

func tokReadGolden(tb testing.TB, path string) []tokGolden {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Skipf("golden file %s is absent (%v): skipping", path, err)
	}
	defer f.Close()
	var out []tokGolden
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var g tokGolden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	if len(out) == 0 {
		tb.Fatalf("%s: no golden lines", path)
	}
	return out
}

// neoxExpectedRoundTrip is what Decode(Encode(s)) must give for GPT-NeoX: s with each piece between the
// non-normalized added tokens ("<|endoftext|>", "<|padding|>") NFC-normalised.
func neoxExpectedRoundTrip(t *BPETokenizer, s string) string {
	var b strings.Builder
	t.splitAdded(s, t.rawMatch, t.rawIndex, func(piece string, id int) {
		if id >= 0 {
			b.WriteString(piece)
		} else {
			b.WriteString(tokNormalize(norm.NFC, piece))
		}
	})
	return b.String()
}

func TestBPEGoldenNeoX(t *testing.T) {
	tok := tokTestNeoX(t)
	golden := tokReadGolden(t, tokTestFile(t, "gpt-neox-20b/golden.jsonl"))
	exact := 0
	for i, g := range golden {
		got := tok.Encode(g.Text)
		if slices.Equal(got, g.IDs) {
			exact++
		} else {
			t.Errorf("line %d %q:\n got %v\nwant %v", i+1, g.Text, got, g.IDs)
		}
		if dec := tok.Decode(g.IDs); dec != norm.NFC.String(g.Text) {
			t.Errorf("line %d: Decode(golden ids) = %q, want NFC(text) %q", i+1, dec, norm.NFC.String(g.Text))
		}
	}
	t.Logf("GPT-NeoX golden: %d/%d lines exact", exact, len(golden))
}

func TestBPENeoXProperties(t *testing.T) {
	tok := tokTestNeoX(t)
	if tok.Name() != "gpt-neox-20b" {
		t.Errorf("Name() = %q, want gpt-neox-20b", tok.Name())
	}
	if tok.VocabSize() != 50277 {
		t.Errorf("VocabSize() = %d, want 50277", tok.VocabSize())
	}
	if tok.EOS() != 0 {
		t.Errorf("EOS() = %d, want 0", tok.EOS())
	}
	if got := tok.Encode(""); len(got) != 0 {
		t.Errorf("Encode(\"\") = %v, want []", got)
	}
	if got := tok.Decode(nil); got != "" {
		t.Errorf("Decode(nil) = %q", got)
	}
	cases := []struct {
		text string
		want []int
	}{
		{"<|endoftext|>", []int{0}},
		{"<|padding|>", []int{1}},
		{"Hello<|endoftext|>world", []int{12092, 0, 10186}},
		{"Hello <|endoftext|> world", []int{12092, 209, 0, 1533}},
		{"<|endoftext|><|padding|><|endoftext|>", []int{0, 1, 0}},
		{"<|endoftext", nil},                                               // not an added token: ordinary BPE
		{"a" + strings.Repeat(" ", 30) + "b", []int{66, 50254, 50272, 67}}, // 24 + 6 spaces
		{"a" + strings.Repeat(" ", 25) + "b", []int{66, 50254, 270}},       // 24 spaces, then " b"
	}
	for _, c := range cases {
		got := tok.Encode(c.text)
		if c.want != nil && !slices.Equal(got, c.want) {
			t.Errorf("Encode(%q) = %v, want %v", c.text, got, c.want)
		}
		if dec := tok.Decode(got); dec != c.text {
			t.Errorf("Decode(Encode(%q)) = %q", c.text, dec)
		}
	}
	if got := tok.Encode("<|endoftext"); slices.Contains(got, 0) {
		t.Errorf("Encode(\"<|endoftext\") = %v contains EOS", got)
	}
	// Special added tokens are split out before NFC, as in Hugging Face: a combining character after
	// "<|endoftext|>" does not compose with its ">", so the round trip is piecewise NFC, not NFC of the whole.
	if got := tok.Decode(tok.Encode("<|endoftext|>\u0338")); got != "<|endoftext|>\u0338" || norm.NFC.String(got) != norm.NFC.String("<|endoftext|>\u0338") {
		t.Errorf("round trip of <|endoftext|>+U+0338 = %q", got)
	}
	// An id without a token decodes to U+FFFD.
	if got := tok.Decode([]int{12092, -1, 1 << 30}); got != "Hello\uFFFD\uFFFD" {
		t.Errorf("Decode with bad ids = %q", got)
	}
}

// TestBPEInvalidUTF8 checks the documented policy: each invalid byte is read as U+FFFD.
func TestBPEInvalidUTF8(t *testing.T) {
	tok := tokTestNeoX(t)
	for _, s := range []string{"\xff", "a\xffb", "caf\xc3", "\xc3\x28 x", "ok \xed\xa0\x80 surrogate", "\xe2\x82"} {
		// Not strings.ToValidUTF8: it replaces a run of invalid bytes by one U+FFFD; the policy is one per byte,
		// as ranging over the string reads it.
		var b strings.Builder
		for _, r := range s {
			b.WriteRune(r)
		}
		want := tok.Encode(b.String())
		got := tok.Encode(s)
		if !slices.Equal(got, want) {
			t.Errorf("Encode(%q) = %v, want %v (as the U+FFFD-replaced text)", s, got, want)
		}
		if dec := tok.Decode(got); dec != b.String() || !utf8.ValidString(dec) {
			t.Errorf("Decode(Encode(%q)) = %q, want %q", s, dec, b.String())
		}
	}
}

// TestBPEPartialDecode checks that decoding cuts of a sequence gives the raw bytes, so that decoding chunks and
// joining them is the same as decoding the whole.
func TestBPEPartialDecode(t *testing.T) {
	tok := tokTestNeoX(t)
	text := "héllo wörld 東京 🙂<|endoftext|>x"
	ids := tok.Encode(text)
	for cut := 0; cut <= len(ids); cut++ {
		if got := tok.Decode(ids[:cut]) + tok.Decode(ids[cut:]); got != text {
			t.Errorf("cut %d: %q", cut, got)
		}
	}
}

// tokRandomString makes a random string from a mix of ASCII, whitespace, accents, combining marks, CJK,
// emoji and added-token fragments.
func tokRandomString(rng *rand.Rand) string {
	parts := []string{"a", "Z", "the", " ", "  ", "   ", "\t", "\n", "\r\n", "\u00a0", "'s", "'ll", "'", "9", "42",
		"é", "e\u0301", "\u0301", "\u0338", "Å", "ß", "東", "京", "🙂", "👩‍💻", "\u2028", "<|endoftext|>", "<|padding|>",
		"<|", "|>", "<", ">", ".", ",", "!?", "--", "\u200b", "\x00", "\x7f", "ﬁ", "Ⅳ", "٣", "\u3000"}
	n := rng.Intn(20)
	var b strings.Builder
	for i := 0; i < n; i++ {
		if rng.Intn(8) == 0 {
			b.WriteRune(rune(rng.Intn(0x2FFFF)))
		} else {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
	}
	return strings.ToValidUTF8(b.String(), "")
}

func TestBPERoundTripRandom(t *testing.T) {
	tok := tokTestNeoX(t)
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 5000; i++ {
		s := tokRandomString(rng)
		ids := tok.Encode(s)
		for _, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("Encode(%q) gave id %d outside [0, %d)", s, id, tok.VocabSize())
			}
		}
		dec := tok.Decode(ids)
		if want := neoxExpectedRoundTrip(tok, s); dec != want {
			t.Fatalf("Decode(Encode(%q)) = %q, want %q", s, dec, want)
		}
		if tokNormalize(norm.NFC, dec) != tokNormalize(norm.NFC, s) {
			t.Fatalf("NFC(Decode(Encode(%q))) = %q, want NFC(s)", s, dec)
		}
	}
}

// TestTokenizerNormalize checks tokNormalize: equal to golang.org/x/text/norm where norm is exact, and the
// textbook result (no CGJ) for runs of more than 30 combining marks.
func TestTokenizerNormalize(t *testing.T) {
	forms := map[string]norm.Form{"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD}
	rng := rand.New(rand.NewSource(4))
	marks := []rune{0x301, 0x323, 0x302, 0x308, 0x327, 0x338, 0x3099, 0x5b0, 0x334, 0x1161, 0x11a8, 0x0b3e, 0x0f72, 0x0f71}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for k := rng.Intn(12); k > 0; k-- {
			switch rng.Intn(3) {
			case 0:
				b.WriteRune(marks[rng.Intn(len(marks))])
			case 1:
				b.WriteRune(rune(rng.Intn(0x3000)))
			default:
				b.WriteString([]string{"a", "e", "A", "\u1100", "\uac00", "\u0b47", "\u212b", "\ufb01", "o", "\u1e0b"}[rng.Intn(10)])
			}
		}
		s := strings.ToValidUTF8(b.String(), "")
		for name, f := range forms {
			if got, want := tokNormalizeSlow(f, s), f.String(s); got != want {
				t.Fatalf("%s(%+q): slow path %+q, norm %+q", name, s, got, want)
			}
		}
	}
	long := "a" + strings.Repeat("\u0301", 40) + "b"
	if got, want := tokNormalize(norm.NFC, long), "\u00e1"+strings.Repeat("\u0301", 39)+"b"; got != want {
		t.Errorf("NFC of 40 acutes = %+q, want %+q", got, want)
	}
	mixed := "a" + strings.Repeat("\u0301\u0323", 20)
	if got, want := tokNormalize(norm.NFC, mixed), "\u1ea1"+strings.Repeat("\u0323", 19)+strings.Repeat("\u0301", 20); got != want {
		t.Errorf("NFC of 20×(acute, dot below) = %+q, want %+q", got, want)
	}
	if got, want := tokNormalize(norm.NFD, mixed), "a"+strings.Repeat("\u0323", 20)+strings.Repeat("\u0301", 20); got != want {
		t.Errorf("NFD of 20×(acute, dot below) = %+q, want %+q", got, want)
	}
	if got := tokNormalize(norm.NFC, "x\u034fy"); got != "x\u034fy" {
		t.Errorf("NFC keeps a CGJ of the input: %+q", got)
	}
}

func TestBPEConcurrentEncode(t *testing.T) {
	tok := tokTestNeoX(t)
	golden := tokReadGolden(t, tokTestFile(t, "gpt-neox-20b/golden.jsonl"))
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 20; k++ {
				for _, g := range golden {
					if got := tok.Encode(g.Text); !slices.Equal(got, g.IDs) {
						t.Errorf("concurrent Encode(%q) = %v", g.Text, got)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// tokWriteFile writes content to name in a temporary directory and returns its path.
func tokWriteFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// tinyHFTokenizer is a small valid byte-level BPE tokenizer.json; fields are replaced in the tests.
const tinyHFTokenizer = `{
  "version": "1.0",
  "added_tokens": [
    {"id": 0, "content": "<|endoftext|>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}
  ],
  "normalizer": NORMALIZER,
  "pre_tokenizer": PRETOKENIZER,
  "post_processor": null,
  "decoder": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true},
  "model": {"type": MODELTYPE, "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
    "end_of_word_suffix": null, "fuse_unk": false,
    "vocab": {"<|endoftext|>": 0, "a": 1, "b": 2, "Ġ": 3, "ab": 4, "Ġab": 5},
    "merges": MERGES}
}`

func tinyHF(replacements ...string) string {
	defaults := map[string]string{
		"NORMALIZER":   `{"type": "NFC"}`,
		"PRETOKENIZER": `{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true}`,
		"MODELTYPE":    `"BPE"`,
		"MERGES":       `["a b", "Ġ ab"]`,
	}
	for i := 0; i+1 < len(replacements); i += 2 {
		defaults[replacements[i]] = replacements[i+1]
	}
	s := tinyHFTokenizer
	for k, v := range defaults {
		s = strings.ReplaceAll(s, k, v)
	}
	return s
}

func TestBPETinyFile(t *testing.T) {
	for _, merges := range []string{`["a b", "Ġ ab"]`, `[["a", "b"], ["Ġ", "ab"]]`} {
		p := tokWriteFile(t, "tiny.json", tinyHF("MERGES", merges))
		tok, err := LoadHFTokenizer(p)
		if err != nil {
			t.Fatalf("merges %s: %v", merges, err)
		}
		if got, want := tok.Encode("ab ab<|endoftext|>b a"), []int{4, 5, 0, 2, 3, 1}; !slices.Equal(got, want) {
			t.Errorf("merges %s: Encode = %v, want %v", merges, got, want)
		}
		if tok.Name() != "tiny" || tok.VocabSize() != 6 || tok.EOS() != 0 {
			t.Errorf("Name %q VocabSize %d EOS %d", tok.Name(), tok.VocabSize(), tok.EOS())
		}
	}
	// add_prefix_space puts a space before each text piece.
	p := tokWriteFile(t, "tokenizer.json", tinyHF("PRETOKENIZER", `{"type": "ByteLevel", "add_prefix_space": true}`))
	tok, err := LoadHFTokenizer(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tok.Encode("ab<|endoftext|>ab"), []int{5, 0, 5}; !slices.Equal(got, want) {
		t.Errorf("add_prefix_space: Encode = %v, want %v", got, want)
	}
	if tok.Name() != filepath.Base(filepath.Dir(p)) {
		t.Errorf("Name() = %q, want the directory name", tok.Name())
	}
}

// TestBPEAddedTokenFlags checks lstrip, rstrip and single_word as Hugging Face's AddedVocabulary applies them.
func TestBPEAddedTokenFlags(t *testing.T) {
	added := func(flags string) string {
		return strings.Replace(tinyHF(), `"special": true}`, `"special": true},
    {"id": 6, "content": "<mask>", "normalized": false, "special": true, `+flags+`}`, 1)
	}
	cases := []struct {
		flags, text string
		want        []int
	}{
		{`"lstrip": false, "rstrip": false, "single_word": false`, "ab <mask>ab", []int{4, 3, 6, 4}},
		{`"lstrip": true, "rstrip": false, "single_word": false`, "ab <mask>ab", []int{4, 6, 4}},
		{`"lstrip": true, "rstrip": false, "single_word": false`, "<|endoftext|> <mask>", []int{0, 6}},
		{`"lstrip": false, "rstrip": true, "single_word": false`, "ab<mask> ab", []int{4, 6, 4}},
		{`"lstrip": false, "rstrip": false, "single_word": true`, "ab <mask> ab", []int{4, 3, 6, 5}},
		{`"lstrip": false, "rstrip": false, "single_word": true`, "<mask>", []int{6}},
		{`"lstrip": false, "rstrip": false, "single_word": true`, "b<mask>", []int{2, 1}}, // not a word: "<mask>" goes to BPE; of its bytes only "a" is in the vocabulary
	}
	for _, c := range cases {
		tok, err := LoadHFTokenizer(tokWriteFile(t, "tiny.json", added(c.flags)))
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.Encode(c.text); !slices.Equal(got, c.want) {
			t.Errorf("%s: Encode(%q) = %v, want %v", c.flags, c.text, got, c.want)
		}
	}
}

func TestBPEUnsupportedFiles(t *testing.T) {
	cases := []struct {
		name, content, want string
	}{
		{"wordpiece", tinyHF("MODELTYPE", `"WordPiece"`), `model.type "WordPiece"`},
		{"unigram", tinyHF("MODELTYPE", `"Unigram"`), `model.type "Unigram"`},
		{"pretok", tinyHF("PRETOKENIZER", `{"type": "Whitespace"}`), `pre_tokenizer.type "Whitespace"`},
		{"pretok-null", tinyHF("PRETOKENIZER", `null`), `pre_tokenizer null`},
		{"normalizer", tinyHF("NORMALIZER", `{"type": "BertNormalizer"}`), `normalizer.type "BertNormalizer"`},
		{"normalizer-seq", tinyHF("NORMALIZER", `{"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Lowercase"}]}`),
			`normalizer.normalizers[1].type "Lowercase"`},
		{"bad-merge", tinyHF("MERGES", `["a c"]`), `model.merges[0]`},
		{"no-eos", strings.Replace(strings.Replace(tinyHF(), `"<|endoftext|>"`, `"<s>"`, -1), `"<|endoftext|>"`, `"<s>"`, -1), `no "<|endoftext|>"`},
		{"not-json", `{"model": `, `not a Hugging Face tokenizer.json`},
	}
	for _, c := range cases {
		p := tokWriteFile(t, c.name+".json", c.content)
		_, err := LoadHFTokenizer(p)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not name the file and %s", c.name, err, c.want)
		}
	}
	if _, err := LoadHFTokenizer(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file: no error")
	}
}

func TestByteTokenizer(t *testing.T) {
	tok := NewByteTokenizer()
	var _ Tokenizer = tok
	if tok.VocabSize() != 258 || tok.EOS() != 256 || tok.Name() != "bytes" {
		t.Fatalf("VocabSize %d EOS %d Name %q", tok.VocabSize(), tok.EOS(), tok.Name())
	}
	cases := []struct {
		text string
		want []int
	}{
		{"", []int{}},
		{"hi", []int{104, 105}},
		{"é", []int{0xc3, 0xa9}},
		{"a<|endoftext|>b", []int{97, 256, 98}},
		{"<|endoftext|><|pad|>", []int{256, 257}},
		{"<|endoftext", []int{60, 124, 101, 110, 100, 111, 102, 116, 101, 120, 116}},
		{"<<|pad|>", []int{60, 257}},
		{"\xff\x00", []int{255, 0}},
	}
	for _, c := range cases {
		got := tok.Encode(c.text)
		if !slices.Equal(got, c.want) {
			t.Errorf("Encode(%q) = %v, want %v", c.text, got, c.want)
		}
		if dec := tok.Decode(got); dec != c.text {
			t.Errorf("Decode(Encode(%q)) = %q", c.text, dec)
		}
	}
	// Partial sequences decode to the raw bytes, possibly invalid UTF-8.
	if got := tok.Decode([]int{0xc3}); got != "\xc3" {
		t.Errorf("Decode([0xc3]) = %q", got)
	}
	if got := tok.Decode([]int{-1, 258, 65}); got != "\uFFFD\uFFFDA" {
		t.Errorf("Decode(bad ids) = %q", got)
	}
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 2000; i++ {
		b := make([]byte, rng.Intn(40))
		rng.Read(b)
		s := string(b)
		if rng.Intn(3) == 0 {
			s += "<|endoftext|>" + tokRandomString(rng)
		}
		if dec := tok.Decode(tok.Encode(s)); dec != s {
			t.Fatalf("round trip %q -> %q", s, dec)
		}
	}
}

func TestLoadTokenizer(t *testing.T) {
	for _, spec := range []string{"", "bytes"} {
		tok, err := Load(spec)
		if err != nil {
			t.Fatalf("Load(%q): %v", spec, err)
		}
		if tok.Name() != "bytes" {
			t.Errorf("Load(%q).Name() = %q", spec, tok.Name())
		}
	}
	for _, spec := range []string{"gpt2", "tokenizer.txt", "/no/such/dir/vocab.bin"} {
		_, err := Load(spec)
		if err == nil || !strings.Contains(err.Error(), ".json") || !strings.Contains(err.Error(), "bytes") {
			t.Errorf("Load(%q): error %v does not list the accepted forms", spec, err)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing .json: no error")
	}
	p := tokWriteFile(t, "tiny.json", tinyHF())
	tok, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tok.(*BPETokenizer); !ok {
		t.Errorf("Load(.json) is %T", tok)
	}
}

// tokBenchText returns English text for the benchmarks: tinyshakespeare when present, else a repeated
// paragraph.
func tokBenchText() string {
	if root := tokTestDataDir(); root != "" {
		if b, err := os.ReadFile(filepath.Join(filepath.Dir(root), "tinyshakespeare", "input.txt")); err == nil {
			return string(b)
		}
	}
	para := "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of " +
		"foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the season of Light, " +
		"it was the season of Darkness, it was the spring of hope, it was the winter of despair.\n\n"
	return strings.Repeat(para, 2000)
}

// BenchmarkBPEEncode reports GPT-NeoX encoding throughput in tokens/s (per goroutine: run with -cpu 1 for the
// per-core figure).
func BenchmarkBPEEncode(b *testing.B) {
	tok := tokTestNeoX(b)
	text := tokBenchText()
	ntok := len(tok.Encode(text))
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tok.Encode(text)
	}
	b.ReportMetric(float64(ntok)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkBPEEncodeCold measures encoding with an empty word cache (worst case: every pre-token is merged).
func BenchmarkBPEEncodeCold(b *testing.B) {
	tok := tokTestNeoX(b)
	text := tokBenchText()
	if len(text) > 200_000 {
		text = text[:200_000]
	}
	ntok := len(tok.Encode(text))
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tok.cacheMu.Lock()
		clear(tok.cache)
		tok.cacheMu.Unlock()
		tok.Encode(text)
	}
	b.ReportMetric(float64(ntok)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

func BenchmarkByteTokenizerEncode(b *testing.B) {
	tok := NewByteTokenizer()
	text := tokBenchText()
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		tok.Encode(text)
	}
}

// nestedSequence is a normalizer of depth Sequences around an NFC, each level carrying pad bytes of text in
// a field the reader ignores.
func nestedSequence(depth, pad int) string {
	text := strings.Repeat("x", pad)
	var b strings.Builder
	for range depth {
		b.WriteString(`{"type": "Sequence", "comment": "` + text + `", "normalizers": [`)
	}
	b.WriteString(`{"type": "NFC"}`)
	b.WriteString(strings.Repeat("]}", depth))
	return b.String()
}

// TestBPENormalizerNestedSequence: a tokenizer.json nesting Sequence normalizers 1,000 deep (10 MB with 10 KB
// of text per level took 30-42 s and 4.8 GB, each level decoded again from a copy of its text) is refused,
// naming the file and the depth; a nesting within the bound is decoded once (memory linear in the file, not
// in its size times its depth) and normalizes as its innermost NFC.
func TestBPENormalizerNestedSequence(t *testing.T) {
	p := tokWriteFile(t, "deep.json", tinyHF("NORMALIZER", nestedSequence(1000, 1024)))
	_, err := LoadHFTokenizer(p)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "nested deeper than 32 levels") {
		t.Fatalf("1,000 nested Sequences: error %v, want one naming %s and the depth bound", err, p)
	}

	raw := nestedSequence(maxNormalizerDepth, 64<<10) // 2 MB
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn, err := hfNormalizer(json.RawMessage(raw), "normalizer")
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(2*len(raw)) {
		t.Errorf("reading a %d-byte normalizer %d deep allocated %d bytes: more than twice its size", len(raw), maxNormalizerDepth, alloc)
	}
	if got := fn("e\u0301"); got != "\u00e9" {
		t.Errorf("nested NFC of e + combining acute = %q, want é", got)
	}
}
