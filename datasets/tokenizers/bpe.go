package tokenizers

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/internal/safefile"
)

// BPETokenizer is a Hugging Face byte-level BPE tokenizer read from a tokenizer.json (the GPT-2 family:
// GPT-NeoX-20B, Pythia, GPT-2, RoBERTa-style vocabularies). It gives exactly the ids of Hugging Face
// tokenizers' `encode(text, add_special_tokens=False)`:
//
//  1. Added tokens are split out of the text first: those with "normalized": false on the raw text, then,
//     after normalisation, those with "normalized": true on the normalised text, each time with the
//     leftmost-longest rule and the lstrip, rstrip and single_word flags.
//  2. The rest is normalised (NFC, NFD, NFKC, NFKD or a sequence of them; none for a null normalizer),
//     exactly per UAX #15 (see tokNormalize: no Stream-Safe CGJ insertion, unlike golang.org/x/text/norm).
//  3. It is pre-tokenized with the ByteLevel pre-tokenizer: the GPT-2 regex split (by a hand-written
//     matcher, see pretokNext) and, if add_prefix_space is set, a space put before each piece that does not
//     start with one.
//  4. Each pre-token's UTF-8 bytes are merged by BPE, lowest merge rank first (leftmost first among equal
//     ranks), with Hugging Face's priority-queue algorithm, and mapped to ids.
//
// Decode maps each id to its bytes (model tokens through the GPT-2 byte↔unicode alphabet, added tokens as their
// content) and concatenates them. It does not repair invalid UTF-8: decoding a part of a sequence that cuts a
// multi-byte character gives the bytes as they are (Hugging Face would put U+FFFD there), so that decoding
// consecutive chunks and concatenating gives the same string as decoding the whole. An id that has no token
// decodes to U+FFFD.
//
// Invalid UTF-8 in the input of Encode is read as U+FFFD, one per invalid byte (see tokSanitizeUTF8): a Go
// string may hold any bytes, a Rust &str cannot. Encode of valid UTF-8 text s round trips up to
// normalisation: Decode(Encode(s)) is s with each piece between non-normalized added tokens put through the
// normalizer; for GPT-NeoX (NFC) that is NFC(s), except that a special token's final ">" is not composed with
// a combining mark after it ("<|endoftext|>\u0338" stays as is). Added tokens with lstrip/rstrip drop the
// whitespace they strip, as in Hugging Face.
//
// The post_processor of the file is ignored: Encode never adds BOS/EOS or other special tokens. Methods are
// safe for concurrent use. Encode keeps a bounded cache of the BPE result per pre-token.
type BPETokenizer struct {
	name      string
	path      string
	vocabSize int
	eos       int

	vocab   map[string]int32   // model token as raw bytes → id
	byteID  [256]int32         // id of each single byte, -1 if the vocabulary lacks it
	merges  map[uint64]bpePair // (left id << 32 | right id) → merge
	unkID   int32              // -1 if none
	idBytes []string           // id → decoded bytes ("" with idKnown false: no token)
	idKnown []bool

	ignoreMerges   bool
	normalize      func(string) string // nil: no normalizer
	addPrefixSpace bool
	useRegex       bool

	added       []bpeAddedToken
	rawMatch    *tokMatcher // non-normalized added tokens, matched on the raw text
	rawIndex    []int       // pattern index → index into added
	normMatch   *tokMatcher // normalized added tokens, matched on the normalised text
	normIndex   []int
	cacheMu     sync.Mutex
	cache       map[string][]int32
	cacheMaxLen int
}

type bpePair struct {
	rank int32
	id   int32
}

type bpeAddedToken struct {
	id         int
	content    string
	singleWord bool
	lstrip     bool
	rstrip     bool
	normalized bool
	special    bool
}

const (
	bpeCacheEntries = 1 << 16 // the word cache is cleared when it reaches this many entries
	bpeCacheWordLen = 64      // longer pre-tokens are not cached
)

// hfTokenizerFile is the part of tokenizer.json that LoadHFTokenizer reads.
type hfTokenizerFile struct {
	AddedTokens  []hfAddedToken  `json:"added_tokens"`
	Normalizer   json.RawMessage `json:"normalizer"`
	PreTokenizer json.RawMessage `json:"pre_tokenizer"`
	Decoder      json.RawMessage `json:"decoder"`
	Model        hfModel         `json:"model"`
}

// hfAddedToken is an entry of tokenizer.json's added_tokens.
type hfAddedToken struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	Lstrip     bool   `json:"lstrip"`
	Rstrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// hfModel is tokenizer.json's model.
type hfModel struct {
	Type                    string          `json:"type"`
	Vocab                   json.RawMessage `json:"vocab"`
	Merges                  json.RawMessage `json:"merges"`
	Dropout                 *float64        `json:"dropout"`
	UnkToken                *string         `json:"unk_token"`
	ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
	ByteFallback            bool            `json:"byte_fallback"`
	IgnoreMerges            bool            `json:"ignore_merges"`
}

// LoadHFTokenizer reads a Hugging Face tokenizer.json whose model is byte-level BPE (model.type "BPE" with the
// ByteLevel pre-tokenizer and decoder, as GPT-NeoX-20B's). Anything else is an error naming the file and the
// unsupported field and value: another model type (WordPiece, Unigram, WordLevel), another pre-tokenizer,
// decoder or normalizer, or BPE options that change the algorithm (dropout, continuing_subword_prefix,
// end_of_word_suffix, byte_fallback).
//
// EOS is the id of the token "<|endoftext|>" (an added token or a vocabulary entry); a file without it is an
// error. VocabSize is the largest id (vocabulary or added token) plus one. Name is the name of the directory
// holding the file when the file is called tokenizer.json (".../gpt-neox-20b/tokenizer.json" →
// "gpt-neox-20b"), else the file name without ".json".
func LoadHFTokenizer(path string) (*BPETokenizer, error) {
	f, err := readHFTokenizerFile(path)
	if err != nil {
		return nil, err
	}
	t, err := newBPETokenizer(path, f)
	if err != nil {
		return nil, fmt.Errorf("tokenizers: tokenizer %s: %w", path, err)
	}
	return t, nil
}

// readHFTokenizerFile reads and parses a tokenizer.json.
func readHFTokenizerFile(path string) (*hfTokenizerFile, error) {
	data, err := safefile.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizers: reading tokenizer: %w", err)
	}
	var f hfTokenizerFile
	if err := json.Unmarshal(data, &f); err != nil {
		// A syntax error quotes the offending character: report only its offset, so that pointing the loader
		// at a file that is not a tokenizer (a secret, say) echoes nothing of it.
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			err = fmt.Errorf("invalid JSON at byte %d", syn.Offset)
		}
		return nil, fmt.Errorf("tokenizers: tokenizer %s: not a Hugging Face tokenizer.json: %w", path, err)
	}
	return &f, nil
}

// newBPETokenizer builds the tokenizer of a parsed tokenizer.json, in the order its parts depend on each
// other: the model's options, the pre-tokenizer, decoder and normalizer, the vocabulary, the merges (over
// vocabulary ids), the added tokens (normalised by the normalizer) and EOS. Errors name the field.
func newBPETokenizer(path string, f *hfTokenizerFile) (*BPETokenizer, error) {
	if err := checkHFModel(f.Model); err != nil {
		return nil, err
	}
	t := &BPETokenizer{
		name:         hfTokenizerName(path),
		path:         path,
		unkID:        -1,
		ignoreMerges: f.Model.IgnoreMerges,
		useRegex:     true,
		cache:        make(map[string][]int32),
		cacheMaxLen:  bpeCacheWordLen,
	}
	if err := t.setPreTokenizer(f.PreTokenizer); err != nil {
		return nil, err
	}
	if err := checkHFDecoder(f.Decoder); err != nil {
		return nil, err
	}
	normalize, err := hfNormalizer(f.Normalizer, "normalizer")
	if err != nil {
		return nil, err
	}
	t.normalize = normalize
	tokToID, err := t.setVocab(f.Model, f.AddedTokens)
	if err != nil {
		return nil, err
	}
	if err := t.setMerges(f.Model.Merges, tokToID); err != nil {
		return nil, err
	}
	t.setAddedTokens(f.AddedTokens)
	if err := t.setEOS(tokToID); err != nil {
		return nil, err
	}
	return t, nil
}

// checkHFModel refuses a model other than byte-level BPE, or BPE options that change the algorithm.
func checkHFModel(m hfModel) error {
	switch m.Type {
	case "BPE":
	case "":
		if len(m.Merges) == 0 {
			return errors.New("model.type is missing and model has no merges (only model.type \"BPE\" is supported)")
		}
	default:
		return fmt.Errorf("unsupported model.type %q (only \"BPE\" with the ByteLevel pre-tokenizer is supported)", m.Type)
	}
	if m.Dropout != nil && *m.Dropout != 0 {
		return fmt.Errorf("unsupported model.dropout %v (only null or 0)", *m.Dropout)
	}
	if p := m.ContinuingSubwordPrefix; p != nil && *p != "" {
		return fmt.Errorf("unsupported model.continuing_subword_prefix %q (only null)", *p)
	}
	if s := m.EndOfWordSuffix; s != nil && *s != "" {
		return fmt.Errorf("unsupported model.end_of_word_suffix %q (only null)", *s)
	}
	if m.ByteFallback {
		return errors.New("unsupported model.byte_fallback true (byte-level BPE needs no byte fallback)")
	}
	return nil
}

// setPreTokenizer reads the ByteLevel pre-tokenizer's options (the only pre-tokenizer supported).
func (t *BPETokenizer) setPreTokenizer(raw json.RawMessage) error {
	var pre struct {
		Type           string `json:"type"`
		AddPrefixSpace bool   `json:"add_prefix_space"`
		UseRegex       *bool  `json:"use_regex"`
	}
	if len(raw) == 0 || string(raw) == "null" {
		return errors.New("unsupported pre_tokenizer null (only \"ByteLevel\")")
	}
	if err := json.Unmarshal(raw, &pre); err != nil {
		return fmt.Errorf("bad pre_tokenizer: %v", err)
	}
	if pre.Type != "ByteLevel" {
		return fmt.Errorf("unsupported pre_tokenizer.type %q (only \"ByteLevel\")", pre.Type)
	}
	t.addPrefixSpace = pre.AddPrefixSpace
	if pre.UseRegex != nil {
		t.useRegex = *pre.UseRegex
	}
	return nil
}

// checkHFDecoder refuses a decoder other than ByteLevel.
func checkHFDecoder(raw json.RawMessage) error {
	var dec struct {
		Type string `json:"type"`
	}
	if len(raw) == 0 || string(raw) == "null" {
		return errors.New("unsupported decoder null (only \"ByteLevel\")")
	}
	if err := json.Unmarshal(raw, &dec); err != nil {
		return fmt.Errorf("bad decoder: %v", err)
	}
	if dec.Type != "ByteLevel" {
		return fmt.Errorf("unsupported decoder.type %q (only \"ByteLevel\")", dec.Type)
	}
	return nil
}

// setVocab reads the vocabulary, in raw bytes, with the single-byte ids and the unknown token, and returns
// the byte-level token string → id map the merges are written in. The ids size the tables, so they are
// checked first (vocabIDs).
func (t *BPETokenizer) setVocab(m hfModel, addedTokens []hfAddedToken) (map[string]int32, error) {
	var vocab map[string]int
	if err := json.Unmarshal(m.Vocab, &vocab); err != nil || vocab == nil {
		return nil, errors.New("model.vocab is not a token → id object")
	}
	maxID, err := vocabIDs(vocab, addedTokens)
	if err != nil {
		return nil, err
	}
	byteToRune, runeToByte := byteLevelAlphabet()
	t.vocabSize = maxID + 1
	t.idBytes = make([]string, t.vocabSize)
	t.idKnown = make([]bool, t.vocabSize)
	t.vocab = make(map[string]int32, len(vocab))
	tokToID := make(map[string]int32, len(vocab)) // byte-level token string → id, for the merges
	for tok, id := range vocab {
		raw, ok := byteLevelDecodeToken(tok, runeToByte)
		if !ok {
			raw = tok // as Hugging Face's ByteLevel decoder: a token outside the alphabet decodes as itself
		}
		t.vocab[raw] = int32(id)
		tokToID[tok] = int32(id)
		t.idBytes[id] = raw
		t.idKnown[id] = true
	}
	for b := 0; b < 256; b++ {
		t.byteID[b] = -1
		if id, ok := tokToID[string(byteToRune[b])]; ok {
			t.byteID[b] = id
		}
	}
	if u := m.UnkToken; u != nil {
		id, ok := tokToID[*u]
		if !ok {
			return nil, fmt.Errorf("model.unk_token %q is not in the vocabulary", *u)
		}
		t.unkID = id
	}
	return tokToID, nil
}

// vocabIDs checks the ids of the vocabulary and the added tokens before any table is sized by them —
// bounded, unique, dense enough — and returns the largest.
func vocabIDs(vocab map[string]int, addedTokens []hfAddedToken) (int, error) {
	maxID := -1
	owner := make(map[int]string, len(vocab)) // id → vocabulary token
	for tok, id := range vocab {
		if id < 0 || id >= guard.MaxVocab {
			return 0, fmt.Errorf("model.vocab: id %d for %q is out of range [0, %d)", id, tok, guard.MaxVocab)
		}
		if other, dup := owner[id]; dup {
			a, b := min(tok, other), max(tok, other) // a stable message, whatever the map order
			return 0, fmt.Errorf("model.vocab: %q and %q have the same id %d (ids must be unique)", a, b, id)
		}
		owner[id] = tok
		maxID = max(maxID, id)
	}
	added := make(map[int]string, len(addedTokens))
	for _, a := range addedTokens {
		if a.ID < 0 || a.ID >= guard.MaxVocab {
			return 0, fmt.Errorf("added_tokens: id %d for %q is out of range [0, %d)", a.ID, a.Content, guard.MaxVocab)
		}
		// An added token may repeat a vocabulary entry (Hugging Face files list "<|endoftext|>" in both), but
		// two added tokens of different content cannot share an id.
		if other, dup := added[a.ID]; dup && other != a.Content {
			return 0, fmt.Errorf("added_tokens: %q and %q have the same id %d (ids must be unique)", other, a.Content, a.ID)
		}
		added[a.ID] = a.Content
		maxID = max(maxID, a.ID)
	}
	if maxID < 0 {
		return 0, errors.New("empty vocabulary")
	}
	known := len(owner)
	for id := range added {
		if _, ok := owner[id]; !ok {
			known++
		}
	}
	if holes := maxID + 1 - known; holes > known+256 {
		return 0, fmt.Errorf("the ids are too sparse: %d tokens spread over ids 0..%d (%d unused ids); the vocabulary size "+
			"is the largest id + 1", known, maxID, holes)
	}
	return maxID, nil
}

// setMerges reads the merges — ["a b", ...] (older files) or [["a", "b"], ...] — as (left id, right id) →
// (rank, merged id).
func (t *BPETokenizer) setMerges(raw json.RawMessage, tokToID map[string]int32) error {
	var mergeStrings []string
	var mergePairs [][2]string
	if err := json.Unmarshal(raw, &mergeStrings); err != nil {
		if err2 := json.Unmarshal(raw, &mergePairs); err2 != nil {
			return errors.New("model.merges is neither a list of \"a b\" strings nor of [a, b] pairs")
		}
	} else {
		mergePairs = make([][2]string, len(mergeStrings))
		for i, m := range mergeStrings {
			a, b, ok := strings.Cut(m, " ")
			if !ok {
				return fmt.Errorf("model.merges[%d] %q is not two tokens separated by a space", i, m)
			}
			mergePairs[i] = [2]string{a, b}
		}
	}
	t.merges = make(map[uint64]bpePair, len(mergePairs))
	for rank, m := range mergePairs {
		a, okA := tokToID[m[0]]
		b, okB := tokToID[m[1]]
		c, okC := tokToID[m[0]+m[1]]
		if !okA || !okB || !okC {
			return fmt.Errorf("model.merges[%d] %q %q: a token or the merged token is not in the vocabulary", rank, m[0], m[1])
		}
		key := uint64(uint32(a))<<32 | uint64(uint32(b))
		if _, dup := t.merges[key]; !dup { // as Hugging Face: the first rank of a repeated merge counts
			t.merges[key] = bpePair{rank: int32(rank), id: c}
		}
	}
	return nil
}

// setAddedTokens records the added tokens and builds their matchers: the non-normalized ones matched on the
// raw text, the normalized ones (normalised themselves) on the normalised text.
func (t *BPETokenizer) setAddedTokens(addedTokens []hfAddedToken) {
	var rawPatterns, normPatterns []string
	for _, a := range addedTokens {
		tok := bpeAddedToken{id: a.ID, content: a.Content, singleWord: a.SingleWord, lstrip: a.Lstrip,
			rstrip: a.Rstrip, normalized: a.Normalized, special: a.Special}
		t.added = append(t.added, tok)
		t.idBytes[a.ID] = a.Content
		t.idKnown[a.ID] = true
		if a.Normalized {
			p := a.Content
			if t.normalize != nil {
				p = t.normalize(p)
			}
			normPatterns = append(normPatterns, p)
			t.normIndex = append(t.normIndex, len(t.added)-1)
		} else {
			rawPatterns = append(rawPatterns, a.Content)
			t.rawIndex = append(t.rawIndex, len(t.added)-1)
		}
	}
	t.rawMatch = newTokMatcher(rawPatterns)
	t.normMatch = newTokMatcher(normPatterns)
}

// setEOS finds EOS: the id of "<|endoftext|>", an added token or else a vocabulary entry.
func (t *BPETokenizer) setEOS(tokToID map[string]int32) error {
	t.eos = -1
	for _, a := range t.added {
		if a.content == "<|endoftext|>" {
			t.eos = a.id
			return nil
		}
	}
	id, ok := tokToID["<|endoftext|>"]
	if !ok {
		return errors.New("no \"<|endoftext|>\" token for EOS")
	}
	t.eos = int(id)
	return nil
}

// hfTokenizerName is the Name of the tokenizer read from path.
func hfTokenizerName(path string) string {
	base := filepath.Base(path)
	if base == "tokenizer.json" {
		if dir := filepath.Base(filepath.Dir(path)); dir != "." && dir != string(filepath.Separator) {
			return dir
		}
	}
	return strings.TrimSuffix(base, ".json")
}

// maxNormalizerDepth bounds how deep Sequence normalizers nest (Hugging Face's tokenizers nest one level).
const maxNormalizerDepth = 32

// hfNormalizerSpec is a tokenizer.json normalizer, decoded once with everything nested in it: decoding each
// level again from its raw text cost time and memory quadratic in the depth (a 10 MB file nesting 1,000
// Sequences took 30-42 s and 4.8 GB).
type hfNormalizerSpec struct {
	Type        string              `json:"type"`
	Normalizers []*hfNormalizerSpec `json:"normalizers"`
}

// hfNormalizer returns the function of a tokenizer.json normalizer (nil for null), or an error naming the
// unsupported field.
func hfNormalizer(raw json.RawMessage, field string) (func(string) string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var n *hfNormalizerSpec
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, fmt.Errorf("bad %s: %v", field, err)
	}
	return n.function(field, 0)
}

// function is hfNormalizer's for a decoded normalizer at depth Sequences below the top (nil n: null).
func (n *hfNormalizerSpec) function(field string, depth int) (func(string) string, error) {
	if n == nil {
		return nil, nil
	}
	var form norm.Form
	switch n.Type {
	case "NFC":
		form = norm.NFC
	case "NFD":
		form = norm.NFD
	case "NFKC":
		form = norm.NFKC
	case "NFKD":
		form = norm.NFKD
	case "Sequence":
		if depth >= maxNormalizerDepth {
			return nil, fmt.Errorf("unsupported %s: Sequence normalizers nested deeper than %d levels", field, maxNormalizerDepth)
		}
		var fns []func(string) string
		for i, sub := range n.Normalizers {
			fn, err := sub.function(fmt.Sprintf("%s.normalizers[%d]", field, i), depth+1)
			if err != nil {
				return nil, err
			}
			if fn != nil {
				fns = append(fns, fn)
			}
		}
		return func(s string) string {
			for _, fn := range fns {
				s = fn(s)
			}
			return s
		}, nil
	default:
		return nil, fmt.Errorf("unsupported %s.type %q (only NFC, NFD, NFKC, NFKD, Sequence or null)", field, n.Type)
	}
	return func(s string) string { return tokNormalize(form, s) }, nil
}

// byteLevelDecodeToken maps a byte-level token (GPT-2 alphabet) to its raw bytes.
func byteLevelDecodeToken(tok string, runeToByte map[rune]byte) (string, bool) {
	b := make([]byte, 0, len(tok))
	for _, r := range tok {
		c, ok := runeToByte[r]
		if !ok {
			return "", false
		}
		b = append(b, c)
	}
	return string(b), true
}

// Name returns the tokenizer's name (see LoadHFTokenizer).
func (t *BPETokenizer) Name() string { return t.name }

// VocabSize returns the largest id plus one.
func (t *BPETokenizer) VocabSize() int { return t.vocabSize }

// EOS returns the id of "<|endoftext|>".
func (t *BPETokenizer) EOS() int { return t.eos }

// Path returns the file the tokenizer was read from.
func (t *BPETokenizer) Path() string { return t.path }

// bpeScratch holds the buffers of one Encode call.
type bpeScratch struct {
	syms []bpeSymbol
	heap []bpeMerge
	ids  []int32
}

type bpeSymbol struct {
	id         int32
	prev, next int32
	size       int32 // bytes; 0 once merged into its left neighbour
}

type bpeMerge struct {
	rank, pos, id int32
}

// Encode returns the ids of text (no special tokens added). See BPETokenizer for the steps and the policy for
// invalid UTF-8.
func (t *BPETokenizer) Encode(text string) []int {
	text = tokSanitizeUTF8(text)
	out := make([]int, 0, len(text)/4+4)
	sc := &bpeScratch{}
	t.splitAdded(text, t.rawMatch, t.rawIndex, func(seg string, id int) {
		if id >= 0 {
			out = append(out, id)
			return
		}
		if t.normalize != nil {
			seg = t.normalize(seg)
		}
		t.splitAdded(seg, t.normMatch, t.normIndex, func(seg string, id int) {
			if id >= 0 {
				out = append(out, id)
				return
			}
			out = t.encodeSegment(seg, out, sc)
		})
	})
	return out
}

// splitAdded splits s on the added tokens of matcher m (index maps its patterns to t.added) as Hugging Face's
// AddedVocabulary.find_matches does, and calls fn with each piece in order: a text piece with id -1, or an
// added token with its id (the text then is its match in s).
func (t *BPETokenizer) splitAdded(s string, m *tokMatcher, index []int, fn func(piece string, id int)) {
	if m.empty() {
		if s != "" {
			fn(s, -1)
		}
		return
	}
	startOffset := 0
	for pos := 0; pos < len(s); {
		start, stop, p := m.find(s, pos)
		if p < 0 {
			break
		}
		pos = stop
		tok := &t.added[index[p]]
		if tok.singleWord {
			startSpace := start == 0 || !tokEndsWithWord(s[:start])
			stopSpace := stop == len(s) || !tokStartsWithWord(s[stop:])
			if !startSpace || !stopSpace {
				continue
			}
		}
		if start < startOffset {
			// Only possible after an rstrip token swallowed the start of this match; Hugging Face would give
			// overlapping pieces here. Keep the text once.
			continue
		}
		if tok.lstrip {
			start = max(len(strings.TrimRightFunc(s[:start], unicode.IsSpace)), startOffset)
		}
		if tok.rstrip {
			stop = len(s) - len(strings.TrimLeftFunc(s[stop:], unicode.IsSpace))
		}
		if start > startOffset {
			fn(s[startOffset:start], -1)
		}
		fn(s[start:stop], tok.id)
		startOffset = stop
	}
	if startOffset < len(s) {
		fn(s[startOffset:], -1)
	}
}

func tokIsAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

func tokEndsWithWord(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return s != "" && tokIsAlnum(r)
}

func tokStartsWithWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s != "" && tokIsAlnum(r)
}

// encodeSegment appends the ids of a normalised text piece (no added tokens in it).
func (t *BPETokenizer) encodeSegment(seg string, out []int, sc *bpeScratch) []int {
	if seg == "" {
		return out
	}
	if t.addPrefixSpace && seg[0] != ' ' {
		seg = " " + seg
	}
	if !t.useRegex {
		return t.encodeWord(seg, out, sc)
	}
	for i := 0; i < len(seg); {
		j := pretokNext(seg, i)
		out = t.encodeWord(seg[i:j], out, sc)
		i = j
	}
	return out
}

// encodeWord appends the BPE ids of one pre-token.
func (t *BPETokenizer) encodeWord(w string, out []int, sc *bpeScratch) []int {
	if len(w) == 1 {
		if id := t.byteID[w[0]]; id >= 0 {
			return append(out, int(id))
		}
	}
	cacheable := len(w) <= t.cacheMaxLen
	if cacheable {
		t.cacheMu.Lock()
		ids, ok := t.cache[w]
		t.cacheMu.Unlock()
		if ok {
			for _, id := range ids {
				out = append(out, int(id))
			}
			return out
		}
	}
	if t.ignoreMerges {
		if id, ok := t.vocab[w]; ok {
			return append(out, int(id))
		}
	}
	ids := t.bpe(w, sc)
	for _, id := range ids {
		out = append(out, int(id))
	}
	if cacheable {
		c := make([]int32, len(ids))
		copy(c, ids)
		key := strings.Clone(w) // w points into the caller's text
		t.cacheMu.Lock()
		if len(t.cache) >= bpeCacheEntries {
			clear(t.cache)
		}
		t.cache[key] = c
		t.cacheMu.Unlock()
	}
	return out
}

// bpe merges the bytes of w by rank with Hugging Face's algorithm (Word::merge_all): a min-heap of candidate
// merges ordered by (rank, position), entries checked for staleness when popped. The result is in sc.ids.
func (t *BPETokenizer) bpe(w string, sc *bpeScratch) []int32 {
	syms := sc.syms[:0]
	for i := 0; i < len(w); i++ {
		id := t.byteID[w[i]]
		if id < 0 {
			// The vocabulary lacks this byte (for GPT-NeoX only bytes that never occur in valid UTF-8).
			// Hugging Face uses unk_token, or drops the byte when there is none.
			if t.unkID < 0 {
				continue
			}
			id = t.unkID
		}
		syms = append(syms, bpeSymbol{id: id, size: 1})
	}
	n := int32(len(syms))
	for i := range syms {
		syms[i].prev = int32(i) - 1
		syms[i].next = int32(i) + 1
	}
	if n > 0 {
		syms[n-1].next = -1
	}
	h := sc.heap[:0]
	for i := int32(0); i+1 < n; i++ {
		if m, ok := t.merges[uint64(uint32(syms[i].id))<<32|uint64(uint32(syms[i+1].id))]; ok {
			h = heapPush(h, bpeMerge{rank: m.rank, pos: i, id: m.id})
		}
	}
	for len(h) > 0 {
		var top bpeMerge
		top, h = heapPop(h)
		cur := &syms[top.pos]
		if cur.size == 0 || cur.next < 0 {
			continue
		}
		right := syms[cur.next]
		m, ok := t.merges[uint64(uint32(cur.id))<<32|uint64(uint32(right.id))]
		if !ok || m.id != top.id {
			continue // stale entry
		}
		cur.id = top.id
		cur.size += right.size
		syms[cur.next].size = 0
		cur.next = right.next
		if right.next >= 0 {
			syms[right.next].prev = top.pos
		}
		if cur.prev >= 0 {
			prev := syms[cur.prev]
			if m, ok := t.merges[uint64(uint32(prev.id))<<32|uint64(uint32(cur.id))]; ok {
				h = heapPush(h, bpeMerge{rank: m.rank, pos: cur.prev, id: m.id})
			}
		}
		if cur.next >= 0 {
			next := syms[cur.next]
			if m, ok := t.merges[uint64(uint32(cur.id))<<32|uint64(uint32(next.id))]; ok {
				h = heapPush(h, bpeMerge{rank: m.rank, pos: top.pos, id: m.id})
			}
		}
	}
	ids := sc.ids[:0]
	for i := range syms {
		if syms[i].size != 0 {
			ids = append(ids, syms[i].id)
		}
	}
	sc.syms, sc.heap, sc.ids = syms, h, ids
	return ids
}

// before orders the merge heap: lower rank first, then leftmost.
func (a bpeMerge) before(b bpeMerge) bool {
	return a.rank < b.rank || (a.rank == b.rank && a.pos < b.pos)
}

// Decode returns the text of ids: model tokens as their bytes, added tokens as their content, an id without
// a token as U+FFFD. The result is not checked for UTF-8 validity (see BPETokenizer).
func (t *BPETokenizer) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		if id < 0 || id >= t.vocabSize || !t.idKnown[id] {
			b.WriteString("\uFFFD")
			continue
		}
		b.WriteString(t.idBytes[id])
	}
	return b.String()
}

// Token returns the text (raw bytes) of id and whether id has a token.
func (t *BPETokenizer) Token(id int) (string, bool) {
	if id < 0 || id >= t.vocabSize || !t.idKnown[id] {
		return "", false
	}
	return t.idBytes[id], true
}
