package tokenizers

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/oryx-go/oryx/internal/safefile"
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
	data, err := safefile.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizers: reading tokenizer: %w", err)
	}
	t, err := newSentencePiece(path, data)
	if err != nil {
		return nil, fmt.Errorf("tokenizers: tokenizer %s: %w", path, err)
	}
	return t, nil
}

// newSentencePiece builds the tokenizer of a tokenizer.model's bytes: parse the protobuf (parseSPModel),
// refuse what this implementation does not follow (spmModel.check), index the pieces (setPieces), then
// the whitespace rule and EOS. Errors name the field.
func newSentencePiece(path string, data []byte) (*SentencePieceTokenizer, error) {
	m, err := parseSPModel(data)
	if err != nil {
		return nil, err
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	t := &SentencePieceTokenizer{
		name:     strings.TrimSuffix(filepath.Base(path), ".model"),
		path:     path,
		pieces:   m.pieces,
		normal:   make(map[string]int32),
		reserved: make(map[string]int32),
		unkID:    -1,
		fallback: m.fallback,
		dummy:    m.addDummy,
		cache:    make(map[string][]int32),
	}
	if filepath.Base(path) == "tokenizer.model" {
		if dir := filepath.Base(filepath.Dir(path)); dir != "." && dir != string(filepath.Separator) {
			t.name = dir
		}
	}
	if err := t.setPieces(); err != nil {
		return nil, err
	}
	t.setSplitAtSpace()
	if m.eosID < 0 || m.eosID >= int64(len(t.pieces)) {
		return nil, fmt.Errorf("trainer_spec.eos_id %d is not a piece id (EOS is required)", m.eosID)
	}
	t.eos = int(m.eosID)
	return t, nil
}

// spmModel is what LoadSentencePiece reads of a ModelProto: the pieces and the trainer and normalizer
// options that matter, with sentencepiece_model.proto's defaults.
type spmModel struct {
	pieces []spmPiece

	// trainer_spec
	modelType uint64 // 1 UNIGRAM, 2 BPE, 3 WORD, 4 CHAR
	eosID     int64
	wsSuffix  bool // treat_whitespace_as_suffix
	fallback  bool // byte_fallback

	// normalizer_spec
	haveNormalizer bool
	normName       string
	charsmap       []byte // precompiled_charsmap
	addDummy       bool   // add_dummy_prefix
	removeExtra    bool   // remove_extra_whitespaces
	escapeWS       bool   // escape_whitespaces
}

// parseSPModel reads the fields of a ModelProto: pieces (1), trainer_spec (2), normalizer_spec (3).
func parseSPModel(data []byte) (*spmModel, error) {
	m := &spmModel{modelType: 1, eosID: 2, addDummy: true, removeExtra: true, escapeWS: true}
	w := &spmWire{b: data}
	for {
		field, wt, _, msg, ok := w.next()
		if !ok {
			break
		}
		switch {
		case field == 1 && wt == 2:
			p, err := parseSPPiece(msg)
			if err != nil {
				return nil, fmt.Errorf("piece %d: %v", len(m.pieces), err)
			}
			m.pieces = append(m.pieces, p)
		case field == 2 && wt == 2:
			if err := m.parseTrainerSpec(msg); err != nil {
				return nil, fmt.Errorf("trainer_spec: %v", err)
			}
		case field == 3 && wt == 2:
			m.haveNormalizer = true
			if err := m.parseNormalizerSpec(msg); err != nil {
				return nil, fmt.Errorf("normalizer_spec: %v", err)
			}
		}
	}
	if w.err != nil {
		return nil, fmt.Errorf("not a SentencePiece model (protobuf): %v", w.err)
	}
	if len(m.pieces) == 0 {
		return nil, errors.New("not a SentencePiece model: no pieces")
	}
	return m, nil
}

// parseSPPiece reads a SentencePiece message: piece (1), score (2), type (3).
func parseSPPiece(msg []byte) (spmPiece, error) {
	p := spmPiece{typ: spmNormal}
	pw := &spmWire{b: msg}
	for {
		f, wt, v, d, ok := pw.next()
		if !ok {
			break
		}
		switch {
		case f == 1 && wt == 2:
			p.piece = string(d)
		case f == 2 && wt == 5:
			p.score = math.Float32frombits(uint32(v))
		case f == 3 && wt == 0:
			p.typ = int32(v)
		}
	}
	return p, pw.err
}

// parseTrainerSpec reads the TrainerSpec fields model_type (3), treat_whitespace_as_suffix (24),
// byte_fallback (35) and eos_id (42).
func (m *spmModel) parseTrainerSpec(msg []byte) error {
	tw := &spmWire{b: msg}
	for {
		f, wt, v, _, ok := tw.next()
		if !ok {
			break
		}
		if wt != 0 {
			continue
		}
		switch f {
		case 3:
			m.modelType = v
		case 24:
			m.wsSuffix = v != 0
		case 35:
			m.fallback = v != 0
		case 42:
			m.eosID = int64(int32(v))
		}
	}
	return tw.err
}

// parseNormalizerSpec reads the NormalizerSpec fields name (1), precompiled_charsmap (2),
// add_dummy_prefix (3), remove_extra_whitespaces (4) and escape_whitespaces (5).
func (m *spmModel) parseNormalizerSpec(msg []byte) error {
	nw := &spmWire{b: msg}
	for {
		f, wt, v, d, ok := nw.next()
		if !ok {
			break
		}
		switch {
		case f == 1 && wt == 2:
			m.normName = string(d)
		case f == 2 && wt == 2:
			m.charsmap = d
		case f == 3 && wt == 0:
			m.addDummy = v != 0
		case f == 4 && wt == 0:
			m.removeExtra = v != 0
		case f == 5 && wt == 0:
			m.escapeWS = v != 0
		}
	}
	return nw.err
}

// check refuses a model this implementation does not follow: a model type other than BPE, a missing or
// non-identity normalizer, and the whitespace options it does not implement.
func (m *spmModel) check() error {
	switch m.modelType {
	case 2: // BPE
	case 1:
		return errors.New("unsupported trainer_spec.model_type UNIGRAM (only BPE)")
	case 3:
		return errors.New("unsupported trainer_spec.model_type WORD (only BPE)")
	case 4:
		return errors.New("unsupported trainer_spec.model_type CHAR (only BPE)")
	default:
		return fmt.Errorf("unsupported trainer_spec.model_type %d (only BPE = 2)", m.modelType)
	}
	switch {
	case !m.haveNormalizer:
		return errors.New("no normalizer_spec")
	case len(m.charsmap) > 0 || (m.normName != "identity" && m.normName != ""):
		return fmt.Errorf("unsupported normalizer_spec.name %q with a precompiled character map (only \"identity\")", m.normName)
	case m.removeExtra:
		return errors.New("unsupported normalizer_spec.remove_extra_whitespaces true (only false)")
	case !m.escapeWS:
		return errors.New("unsupported normalizer_spec.escape_whitespaces false (only true)")
	case m.wsSuffix:
		return errors.New("unsupported trainer_spec.treat_whitespace_as_suffix true (only false)")
	}
	return nil
}

// setPieces indexes the pieces by type: normal, user-defined and unused ones by text (the user-defined ones
// also matched before BPE), unknown, control and byte ones apart (the byte pieces <0xNN> by byte). It
// requires an unknown piece, and every byte piece when byte_fallback is set.
func (t *SentencePieceTokenizer) setPieces() error {
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
				return fmt.Errorf("duplicate piece %q (id %d)", p.piece, i)
			}
			t.normal[p.piece] = id
			if p.typ == spmUserDefined {
				userDef = append(userDef, p.piece)
				t.userDefID = append(t.userDefID, id)
			}
		case spmUnknown, spmControl, spmByte:
			if _, dup := t.reserved[p.piece]; dup {
				return fmt.Errorf("duplicate piece %q (id %d)", p.piece, i)
			}
			t.reserved[p.piece] = id
			if p.typ == spmUnknown {
				t.unkID = id
			}
			if p.typ == spmByte {
				var b uint
				if _, err := fmt.Sscanf(p.piece, "<0x%02X>", &b); err != nil || len(p.piece) != 6 || b > 255 {
					return fmt.Errorf("byte piece %d %q is not <0xNN>", i, p.piece)
				}
				p.b = byte(b)
				t.byteID[b] = id
			}
		default:
			return fmt.Errorf("piece %d %q has unknown type %d", i, p.piece, p.typ)
		}
	}
	if t.unkID < 0 {
		return errors.New("no unknown piece (type UNKNOWN)")
	}
	if t.fallback {
		for b, id := range t.byteID {
			if id < 0 {
				return fmt.Errorf("byte_fallback is set but there is no piece <0x%02X>", b)
			}
		}
	}
	if len(userDef) > 0 {
		t.userDefMat = newTokMatcher(userDef)
	}
	return nil
}

// setSplitAtSpace records whether no piece has a "▁" after a character other than "▁": then no merge
// crosses the start of a word, and words are encoded independently.
func (t *SentencePieceTokenizer) setSplitAtSpace() {
	t.splitAtSpace = true
	for piece := range t.normal {
		for k := 1; k < len(piece); k++ {
			if strings.HasPrefix(piece[k:], spmSpace) && !strings.HasSuffix(piece[:k], spmSpace) {
				t.splitAtSpace = false
			}
		}
	}
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
