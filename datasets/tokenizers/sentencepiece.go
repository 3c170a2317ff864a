package tokenizers

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"
)

// SentencePieceTokenizer is a SentencePiece BPE model read from a tokenizer.model file (a serialized
// sentencepiece ModelProto), such as Llama-2's. It gives exactly the ids of sentencepiece's
// SentencePieceProcessor.Encode (without BOS/EOS):
//
//  1. Normalisation: only the "identity" normaliser is supported (no precompiled character map, no removal of
//     extra whitespace): a "▁" (U+2581) is put in front of non-empty text (add_dummy_prefix) and every space
//     U+0020 becomes "▁".
//  2. The text is split into characters (user-defined pieces are kept whole and never merged).
//  3. Adjacent symbols are merged repeatedly, the pair whose concatenation is a piece with the highest score
//     first (the leftmost among equal scores); merging a pair into an "unused" piece is undone afterwards
//     as sentencepiece does.
//  4. A symbol that is not a piece becomes its UTF-8 bytes as the byte pieces <0xNN> (byte_fallback), or the
//     unknown id when the model has no byte fallback.
//
// Decode concatenates the pieces with "▁" turned back into spaces, dropping the "▁" at the start of the first
// piece (the dummy prefix); byte pieces give their byte as is (so a partial sequence may decode to invalid
// UTF-8); control and unknown pieces (<s>, </s>, <unk>) are rendered as their piece text; an id outside the
// vocabulary gives U+FFFD. Decode(Encode(s)) == s for valid UTF-8 s without "▁" (U+2581): sentencepiece
// itself cannot tell a "▁" in the text from a space.
//
// Invalid UTF-8 in the input of Encode is read as U+FFFD, one per invalid byte (see tokSanitizeUTF8).
//
// EOS is trainer_spec.eos_id (2, "</s>", for Llama-2), VocabSize the number of pieces, and Name the name of the
// directory holding the file when it is called tokenizer.model, else the file name without ".model". Methods
// are safe for concurrent use. When no piece has a "▁" after another character (true of Llama-2), no merge
// can cross the start of a word, so Encode encodes word by word with a bounded cache, which gives the same
// ids as encoding the whole text at once.
type SentencePieceTokenizer struct {
	name       string
	path       string
	pieces     []spmPiece
	normal     map[string]int32 // normal, user-defined and unused pieces (the ones BPE may form)
	reserved   map[string]int32 // control, unknown and byte pieces
	byteID     [256]int32       // <0xNN> piece ids, -1 if absent
	unkID      int32
	eos        int
	fallback   bool
	dummy      bool
	userDefMat *tokMatcher // user-defined pieces, nil if none
	userDefID  []int32

	splitAtSpace bool // no piece has "▁" after another character: words are encoded independently
	cacheMu      sync.Mutex
	cache        map[string][]int32
}

// SentencePiece piece types (sentencepiece_model.proto).
const (
	spmNormal      = 1
	spmUnknown     = 2
	spmControl     = 3
	spmUserDefined = 4
	spmUnused      = 5
	spmByte        = 6
)

type spmPiece struct {
	piece string
	score float32
	typ   int32
	b     byte // the byte of a byte piece
}

// spmSpace is the meta symbol for a space.
const spmSpace = "\u2581"

// spmWire is a minimal protobuf wire-format reader.
type spmWire struct {
	b   []byte
	err error
}

func (w *spmWire) varint() uint64 {
	v, n := binary.Uvarint(w.b)
	if n <= 0 {
		w.err = errors.New("bad varint")
		w.b = nil
		return 0
	}
	w.b = w.b[n:]
	return v
}

// next returns the next field number, wire type and value (varint/fixed value, or bytes for wire type 2).
func (w *spmWire) next() (field int, wt int, v uint64, data []byte, ok bool) {
	if len(w.b) == 0 || w.err != nil {
		return 0, 0, 0, nil, false
	}
	key := w.varint()
	if w.err != nil {
		return 0, 0, 0, nil, false
	}
	field, wt = int(key>>3), int(key&7)
	switch wt {
	case 0:
		v = w.varint()
	case 1:
		if len(w.b) < 8 {
			w.err = errors.New("truncated fixed64")
			return 0, 0, 0, nil, false
		}
		v = binary.LittleEndian.Uint64(w.b)
		w.b = w.b[8:]
	case 2:
		n := w.varint()
		if w.err != nil || n > uint64(len(w.b)) {
			w.err = errors.New("truncated length-delimited field")
			return 0, 0, 0, nil, false
		}
		data = w.b[:n]
		w.b = w.b[n:]
	case 5:
		if len(w.b) < 4 {
			w.err = errors.New("truncated fixed32")
			return 0, 0, 0, nil, false
		}
		v = uint64(binary.LittleEndian.Uint32(w.b))
		w.b = w.b[4:]
	default:
		w.err = fmt.Errorf("unsupported wire type %d (field %d)", wt, field)
		return 0, 0, 0, nil, false
	}
	return field, wt, v, data, w.err == nil
}

// LoadSentencePiece reads a SentencePiece tokenizer.model whose model_type is BPE and whose normalizer is
// "identity" (Llama-2's). Another model type (Unigram, word, char), a precompiled normalisation map, or
// options that this implementation does not follow (remove_extra_whitespaces, treat_whitespace_as_suffix,
// no whitespace escaping) are an error naming the file and the field.
func LoadSentencePiece(path string) (*SentencePieceTokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizers: reading tokenizer: %w", err)
	}
	fail := func(format string, args ...any) (*SentencePieceTokenizer, error) {
		return nil, fmt.Errorf("tokenizers: tokenizer %s: "+format, append([]any{path}, args...)...)
	}
	t := &SentencePieceTokenizer{
		name:     strings.TrimSuffix(filepath.Base(path), ".model"),
		path:     path,
		normal:   make(map[string]int32),
		reserved: make(map[string]int32),
		unkID:    -1,
	}
	if filepath.Base(path) == "tokenizer.model" {
		if dir := filepath.Base(filepath.Dir(path)); dir != "." && dir != string(filepath.Separator) {
			t.name = dir
		}
	}
	// Defaults of sentencepiece_model.proto.
	modelType := uint64(1) // UNIGRAM
	eosID := int64(2)
	var normName string
	var charsmap []byte
	addDummy, removeExtra, escapeWS, wsSuffix := true, true, true, false
	haveNormalizer := false

	w := &spmWire{b: data}
	for {
		field, wt, _, msg, ok := w.next()
		if !ok {
			break
		}
		switch {
		case field == 1 && wt == 2: // pieces
			p := spmPiece{typ: spmNormal}
			pw := &spmWire{b: msg}
			for {
				f, t2, v, d, ok := pw.next()
				if !ok {
					break
				}
				switch {
				case f == 1 && t2 == 2:
					p.piece = string(d)
				case f == 2 && t2 == 5:
					p.score = math.Float32frombits(uint32(v))
				case f == 3 && t2 == 0:
					p.typ = int32(v)
				}
			}
			if pw.err != nil {
				return fail("piece %d: %v", len(t.pieces), pw.err)
			}
			t.pieces = append(t.pieces, p)
		case field == 2 && wt == 2: // trainer_spec
			tw := &spmWire{b: msg}
			for {
				f, t2, v, _, ok := tw.next()
				if !ok {
					break
				}
				if t2 != 0 {
					continue
				}
				switch f {
				case 3:
					modelType = v
				case 24:
					wsSuffix = v != 0
				case 35:
					t.fallback = v != 0
				case 42:
					eosID = int64(int32(v))
				}
			}
			if tw.err != nil {
				return fail("trainer_spec: %v", tw.err)
			}
		case field == 3 && wt == 2: // normalizer_spec
			haveNormalizer = true
			nw := &spmWire{b: msg}
			for {
				f, t2, v, d, ok := nw.next()
				if !ok {
					break
				}
				switch {
				case f == 1 && t2 == 2:
					normName = string(d)
				case f == 2 && t2 == 2:
					charsmap = d
				case f == 3 && t2 == 0:
					addDummy = v != 0
				case f == 4 && t2 == 0:
					removeExtra = v != 0
				case f == 5 && t2 == 0:
					escapeWS = v != 0
				}
			}
			if nw.err != nil {
				return fail("normalizer_spec: %v", nw.err)
			}
		}
	}
	if w.err != nil {
		return fail("not a SentencePiece model (protobuf): %v", w.err)
	}
	if len(t.pieces) == 0 {
		return fail("not a SentencePiece model: no pieces")
	}
	switch modelType {
	case 2: // BPE
	case 1:
		return fail("unsupported trainer_spec.model_type UNIGRAM (only BPE)")
	case 3:
		return fail("unsupported trainer_spec.model_type WORD (only BPE)")
	case 4:
		return fail("unsupported trainer_spec.model_type CHAR (only BPE)")
	default:
		return fail("unsupported trainer_spec.model_type %d (only BPE = 2)", modelType)
	}
	if !haveNormalizer {
		return fail("no normalizer_spec")
	}
	if len(charsmap) > 0 || (normName != "identity" && normName != "") {
		return fail("unsupported normalizer_spec.name %q with a precompiled character map (only \"identity\")", normName)
	}
	if removeExtra {
		return fail("unsupported normalizer_spec.remove_extra_whitespaces true (only false)")
	}
	if !escapeWS {
		return fail("unsupported normalizer_spec.escape_whitespaces false (only true)")
	}
	if wsSuffix {
		return fail("unsupported trainer_spec.treat_whitespace_as_suffix true (only false)")
	}
	t.dummy = addDummy

	for i := range t.byteID {
		t.byteID[i] = -1
	}
	var userDef []string
	for i := range t.pieces {
		p := &t.pieces[i]
		id := int32(i)
		switch p.typ {
		case spmNormal, spmUserDefined, spmUnused:
			if _, dup := t.normal[p.piece]; dup {
				return fail("duplicate piece %q (id %d)", p.piece, i)
			}
			t.normal[p.piece] = id
			if p.typ == spmUserDefined {
				userDef = append(userDef, p.piece)
				t.userDefID = append(t.userDefID, id)
			}
		case spmUnknown, spmControl, spmByte:
			if _, dup := t.reserved[p.piece]; dup {
				return fail("duplicate piece %q (id %d)", p.piece, i)
			}
			t.reserved[p.piece] = id
			if p.typ == spmUnknown {
				t.unkID = id
			}
			if p.typ == spmByte {
				var b uint
				if _, err := fmt.Sscanf(p.piece, "<0x%02X>", &b); err != nil || len(p.piece) != 6 || b > 255 {
					return fail("byte piece %d %q is not <0xNN>", i, p.piece)
				}
				p.b = byte(b)
				t.byteID[b] = id
			}
		default:
			return fail("piece %d %q has unknown type %d", i, p.piece, p.typ)
		}
	}
	if t.unkID < 0 {
		return fail("no unknown piece (type UNKNOWN)")
	}
	if t.fallback {
		for b, id := range t.byteID {
			if id < 0 {
				return fail("byte_fallback is set but there is no piece <0x%02X>", b)
			}
		}
	}
	if len(userDef) > 0 {
		t.userDefMat = newTokMatcher(userDef)
	}
	t.splitAtSpace = true
	for piece := range t.normal {
		for k := 1; k < len(piece); k++ {
			if strings.HasPrefix(piece[k:], spmSpace) && !strings.HasSuffix(piece[:k], spmSpace) {
				t.splitAtSpace = false
			}
		}
	}
	t.cache = make(map[string][]int32)
	if eosID < 0 || eosID >= int64(len(t.pieces)) {
		return fail("trainer_spec.eos_id %d is not a piece id (EOS is required)", eosID)
	}
	t.eos = int(eosID)
	return t, nil
}

// Name returns the tokenizer's name (see LoadSentencePiece).
func (t *SentencePieceTokenizer) Name() string { return t.name }

// VocabSize returns the number of pieces.
func (t *SentencePieceTokenizer) VocabSize() int { return len(t.pieces) }

// EOS returns trainer_spec.eos_id ("</s>").
func (t *SentencePieceTokenizer) EOS() int { return t.eos }

// BOS returns the id of the beginning-of-sentence piece "<s>" (Llama-2: 1), or -1 if the model has none.
// Encode never adds it; lm-eval uses it as the prefix token of empty contexts.
func (t *SentencePieceTokenizer) BOS() int {
	if id, ok := t.reserved["<s>"]; ok {
		return int(id)
	}
	return -1
}

// Path returns the file the tokenizer was read from.
func (t *SentencePieceTokenizer) Path() string { return t.path }

type spmSymbol struct {
	start, end int32 // bytes of the normalised text; end == start once merged away
	prev, next int32
	freeze     bool
}

type spmCand struct {
	score       float32
	left, right int32
	size        int32
}

// before orders the candidate heap: higher score first, then leftmost.
func (a spmCand) before(b spmCand) bool {
	return a.score > b.score || (a.score == b.score && a.left < b.left)
}

// normalize applies the identity normaliser: dummy prefix and spaces as "▁".
func (t *SentencePieceTokenizer) normalize(text string) string {
	if text == "" {
		return ""
	}
	var b strings.Builder
	b.Grow(len(text) + 3*strings.Count(text, " ") + 3)
	if t.dummy {
		b.WriteString(spmSpace)
	}
	for {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			b.WriteString(text)
			break
		}
		b.WriteString(text[:i])
		b.WriteString(spmSpace)
		text = text[i+1:]
	}
	return b.String()
}

// Encode returns the ids of text (no BOS/EOS). See SentencePieceTokenizer for the steps.
func (t *SentencePieceTokenizer) Encode(text string) []int {
	s := t.normalize(tokSanitizeUTF8(text))
	out := make([]int, 0, len(s)/3+1)
	if s == "" {
		return out
	}
	if !t.splitAtSpace {
		return t.encodeChunk(s, out)
	}
	// No piece holds a "▁" after another character, so no merge crosses the start of a word: encode word by
	// word (a chunk starts at each "▁" that follows something other than "▁"), with a cache.
	start := 0
	for i := 1; i < len(s); i++ {
		if s[i] == spmSpace[0] && strings.HasPrefix(s[i:], spmSpace) && !strings.HasSuffix(s[:i], spmSpace) {
			out = t.encodeCached(s[start:i], out)
			start = i
		}
	}
	return t.encodeCached(s[start:], out)
}

// encodeCached appends the ids of one word, through the cache.
func (t *SentencePieceTokenizer) encodeCached(w string, out []int) []int {
	if len(w) > bpeCacheWordLen {
		return t.encodeChunk(w, out)
	}
	t.cacheMu.Lock()
	ids, ok := t.cache[w]
	t.cacheMu.Unlock()
	if ok {
		for _, id := range ids {
			out = append(out, int(id))
		}
		return out
	}
	n := len(out)
	out = t.encodeChunk(w, out)
	c := make([]int32, len(out)-n)
	for i, id := range out[n:] {
		c[i] = int32(id)
	}
	key := strings.Clone(w)
	t.cacheMu.Lock()
	if len(t.cache) >= bpeCacheEntries {
		clear(t.cache)
	}
	t.cache[key] = c
	t.cacheMu.Unlock()
	return out
}

// encodeChunk appends the ids of normalised text s by SentencePiece BPE.
func (t *SentencePieceTokenizer) encodeChunk(s string, out []int) []int {
	// Split into characters, user-defined pieces whole.
	syms := make([]spmSymbol, 0, len(s))
	for i := 0; i < len(s); {
		n, freeze := 0, false
		if t.userDefMat != nil {
			if end, p := t.userDefMat.longestAt(s, i); p >= 0 {
				n, freeze = end-i, true
			}
		}
		if n == 0 {
			_, n = utf8.DecodeRuneInString(s[i:])
		}
		syms = append(syms, spmSymbol{start: int32(i), end: int32(i + n), prev: int32(len(syms)) - 1,
			next: int32(len(syms)) + 1, freeze: freeze})
		i += n
	}
	syms[len(syms)-1].next = -1

	var revMerge map[string][2]string // merged unused piece → its two parts
	h := make([]spmCand, 0, len(syms))
	addPair := func(l, r int32) {
		if l < 0 || r < 0 || syms[l].freeze || syms[r].freeze {
			return
		}
		piece := s[syms[l].start:syms[r].end]
		id, ok := t.normal[piece]
		if !ok {
			return
		}
		h = heapPush(h, spmCand{score: t.pieces[id].score, left: l, right: r, size: int32(len(piece))})
		if t.pieces[id].typ == spmUnused {
			if revMerge == nil {
				revMerge = make(map[string][2]string)
			}
			revMerge[piece] = [2]string{s[syms[l].start:syms[l].end], s[syms[r].start:syms[r].end]}
		}
	}
	for i := 1; i < len(syms); i++ {
		addPair(int32(i-1), int32(i))
	}
	for len(h) > 0 {
		var top spmCand
		top, h = heapPop(h)
		l, r := &syms[top.left], &syms[top.right]
		if l.end == l.start || r.end == r.start || (l.end-l.start)+(r.end-r.start) != top.size {
			continue // stale
		}
		l.end = r.end
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = top.left
		}
		r.end = r.start
		addPair(l.prev, top.left)
		addPair(top.left, l.next)
	}

	var emit func(piece string)
	emit = func(piece string) {
		id, ok := t.reserved[piece]
		if !ok {
			id, ok = t.normal[piece]
		}
		if ok && t.pieces[id].typ == spmUnused {
			if parts, found := revMerge[piece]; found {
				emit(parts[0])
				emit(parts[1])
				return
			}
		}
		if !ok || id == t.unkID {
			if t.fallback {
				for i := 0; i < len(piece); i++ {
					out = append(out, int(t.byteID[piece[i]]))
				}
				return
			}
			id = t.unkID
		}
		out = append(out, int(id))
	}
	for i := range syms {
		if syms[i].end > syms[i].start {
			emit(s[syms[i].start:syms[i].end])
		}
	}
	return out
}

// Decode returns the text of ids (see SentencePieceTokenizer).
func (t *SentencePieceTokenizer) Decode(ids []int) string {
	var b strings.Builder
	first := true // no text written yet: a leading "▁" is the dummy prefix
	for _, id := range ids {
		if id < 0 || id >= len(t.pieces) {
			b.WriteString("\uFFFD")
			first = false
			continue
		}
		p := &t.pieces[id]
		switch p.typ {
		case spmControl, spmUnknown:
			b.WriteString(p.piece)
			continue
		case spmByte:
			b.WriteByte(p.b)
			first = false
			continue
		}
		piece := p.piece
		if first && t.dummy {
			piece = strings.TrimPrefix(piece, spmSpace)
		}
		first = false
		b.WriteString(strings.ReplaceAll(piece, spmSpace, " "))
	}
	return b.String()
}

// Piece returns the piece text of id and whether id is a piece.
func (t *SentencePieceTokenizer) Piece(id int) (string, bool) {
	if id < 0 || id >= len(t.pieces) {
		return "", false
	}
	return t.pieces[id].piece, true
}
