package datasets

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/safefile"
	"github.com/oryx-go/oryx/internal/seedrand"
)

// Real text: plain-text files (text:PATH) and parquet text columns (parquet:PATTERN#COLUMN), alone or as
// components of the mixture (mix:...,text:PATH=W,parquet:PATTERN#COLUMN=W,heldout=F). Each is split once,
// before tokenization, into a training part and a held-out part that share no byte:
//
//   - a plain-text file by byte range: its last F of bytes (heldout=F, default DefaultHeldOut = 0.1), the cut
//     moved forward to the next line start (or, when the tail holds no line break, back to the previous one),
//     so the held-out part is whole lines; every file of a glob is split on its own;
//   - a parquet column by document: the last ⌈F·N⌉ of each file's N rows (nulls included in N) are held out.
//
// Each part is tokenized on its own (a token never spans the cut): every document's ids followed by EOS — a
// document is a file's part for text files and a row for parquet (empty ones are skipped, as in Stream). The
// training part is cut into windows of T+1 tokens starting every T tokens (Stream's packing), drawn in a
// seeded random order per epoch; every epoch after the first starts its windows at a seeded offset in [0, T),
// so that repeated epochs see other window boundaries, and every epoch has the windows that fit after any
// offset, ⌊(L−T)/T⌋ of a part of L tokens (up to 2T tokens at the end go unused in an epoch). Training never reads the held-out part; the trainer's
// validation set, MixtureValidationSet and HeldOut read only the held-out part.
//
// Both parts are held in memory as int32 ids (4 bytes a token): fine for corpora of tens of MB; larger
// corpora belong in a pre-tokenized directory (`oryx tokenize`), which has no held-out split.

// DefaultHeldOut is the held-out fraction of text and parquet components without heldout=F.
const DefaultHeldOut = 0.1

// maxHeldOut bounds heldout=F: more would make the training part the smaller one.
const maxHeldOut = 0.5

// textItem is one real-text component of a spec.
type textItem struct {
	kind    string // "text" or "parquet"
	pattern string // a file or a glob
	column  string // parquet: the string column
	weight  float64
}

// spec is the item as written in a data spec (without its weight).
func (it textItem) spec() string {
	if it.kind == "parquet" {
		return "parquet:" + it.pattern + "#" + it.column
	}
	return "text:" + it.pattern
}

// parseTextItem parses the body of "text:BODY" or "parquet:BODY" (BODY = PATH, or PATTERN[#COLUMN]).
func parseTextItem(kind, body string) (textItem, error) {
	it := textItem{kind: kind, pattern: body, weight: 1}
	if kind == "parquet" {
		it.column = "text"
		if i := strings.LastIndexByte(body, '#'); i >= 0 {
			it.pattern, it.column = body[:i], body[i+1:]
			if it.column == "" {
				return it, fmt.Errorf("%s:%s: empty column after #", kind, body)
			}
		}
	}
	if it.pattern == "" {
		return it, fmt.Errorf("%s: needs a path (%s:PATH)", kind, kind)
	}
	return it, nil
}

// textParts is a text item split and tokenized.
type textParts struct {
	item                textItem
	train, held         []int32 // each document's ids, then EOS
	trainDocs, heldDocs int     // documents in each part
	trainBytes          int64   // UTF-8 bytes of the text in each part
	heldBytes           int64
	split               string // where each file was cut, for logs
	desc                string // the held-out part and where it is, for ValidationSet's description
}

// loadTextItem reads, splits and tokenizes it.
func loadTextItem(it textItem, tok tokenizers.Tokenizer, heldout float64) (*textParts, error) {
	p := &textParts{item: it}
	add := func(dst *[]int32, text string, docs *int, nbytes *int64, where string) error {
		*nbytes += int64(len(text))
		if text == "" {
			return nil
		}
		ids := tok.Encode(text)
		if len(ids) == 0 {
			return nil
		}
		for _, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				return fmt.Errorf("%s: tokenizer %s returned id %d of %s outside [0, VocabSize=%d)", it.spec(), tok.Name(), id, where, tok.VocabSize())
			}
			*dst = append(*dst, int32(id))
		}
		*dst = append(*dst, int32(tok.EOS()))
		*docs++
		return nil
	}
	switch it.kind {
	case "text":
		files, err := textFiles(it.pattern)
		if err != nil {
			return nil, err
		}
		var cuts []string
		for _, f := range files {
			// safefile: a FIFO or device (text:/dev/zero, a pipe a glob matches) is refused before anything
			// waits on it or reads without end, and a file larger than the memory before it is read.
			data, err := safefile.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("text file %s: %w", f, err)
			}
			if !utf8.Valid(data) {
				return nil, fmt.Errorf("text file %s: not UTF-8 text (the first invalid byte is at offset %d)", f, firstInvalidUTF8(data))
			}
			cut, err := heldOutCut(data, heldout)
			if err != nil {
				return nil, fmt.Errorf("text file %s: %w", f, err)
			}
			if err := add(&p.train, string(data[:cut]), &p.trainDocs, &p.trainBytes, "the training part of "+f); err != nil {
				return nil, err
			}
			if err := add(&p.held, string(data[cut:]), &p.heldDocs, &p.heldBytes, "the held-out part of "+f); err != nil {
				return nil, err
			}
			cuts = append(cuts, fmt.Sprintf("%s from byte %d of %d", f, cut, len(data)))
		}
		p.split = "held out: " + strings.Join(cuts, "; ")
		p.desc = fmt.Sprintf("held-out bytes of %s (%s)", it.spec(), strings.Join(cuts, "; "))
	case "parquet":
		set, err := hfparquet.Open(it.pattern)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "matches no files") {
				return nil, fmt.Errorf("%s: %w; %s", it.spec(), err, missingHint(it.pattern))
			}
			return nil, fmt.Errorf("%s: %w", it.spec(), err)
		}
		col, err := set.Strings(it.column)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", it.spec(), err)
		}
		defer col.Close()
		rows := set.FileRows()
		for {
			v, pos, err := col.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", it.spec(), err)
			}
			n := rows[pos.File]
			where := fmt.Sprintf("%s row %d", set.Files()[pos.File], pos.Row)
			if pos.Row >= n-heldRows(n, heldout) {
				err = add(&p.held, v, &p.heldDocs, &p.heldBytes, where)
			} else {
				err = add(&p.train, v, &p.trainDocs, &p.trainBytes, where)
			}
			if err != nil {
				return nil, err
			}
		}
		var parts []string
		for i, f := range set.Files() {
			parts = append(parts, fmt.Sprintf("%s rows %d–%d of %d", f, rows[i]-heldRows(rows[i], heldout), rows[i]-1, rows[i]))
		}
		p.split = "held out: " + strings.Join(parts, "; ")
		p.desc = fmt.Sprintf("held-out rows of %s (%s)", it.spec(), strings.Join(parts, "; "))
	default:
		return nil, fmt.Errorf("unknown text component kind %q", it.kind)
	}
	if len(p.train) == 0 {
		return nil, fmt.Errorf("%s: the training part holds no text (%d bytes)", it.spec(), p.trainBytes)
	}
	if len(p.held) == 0 {
		return nil, fmt.Errorf("%s: the held-out part holds no text (%d bytes); raise heldout= (now %g)", it.spec(), p.heldBytes, heldout)
	}
	return p, nil
}

// heldRows is how many of a parquet file's n rows are held out: ⌈f·n⌉.
func heldRows(n int64, f float64) int64 { return int64(math.Ceil(f * float64(n))) }

// heldOutCut returns where the held-out part of a text file starts: the first line start at or after
// ⌈(1−f)·len⌉, else the last line start before it; an error when the file has no line start inside it.
func heldOutCut(data []byte, f float64) (int, error) {
	n := len(data)
	if n == 0 {
		return 0, errors.New("empty file")
	}
	target := int(math.Ceil((1 - f) * float64(n)))
	target = max(1, min(target, n-1))
	// A line start p has data[p-1] == '\n'; search forward from target, then backward.
	if i := bytes.IndexByte(data[target-1:n-1], '\n'); i >= 0 {
		return target + i, nil
	}
	if i := bytes.LastIndexByte(data[:target-1], '\n'); i >= 0 {
		return i + 1, nil
	}
	return 0, fmt.Errorf("no line break to cut the held-out part at (%d bytes on one line); split the text into lines", n)
}

// firstInvalidUTF8 is the offset of the first byte of data that is not valid UTF-8.
func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// textFiles expands a text item's path: a file, or a glob (sorted; directories it matches are an error).
func textFiles(pattern string) ([]string, error) {
	if strings.ContainsAny(pattern, `*?[`) {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			return nil, fmt.Errorf("text:%s: bad glob: %w", pattern, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("text:%s: the glob matches no file; %s", pattern, missingHint(pattern))
		}
		sort.Strings(matches)
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && st.IsDir() {
				return nil, fmt.Errorf("text:%s: the glob matches the directory %s; give files (e.g. %s)", pattern, m, filepath.Join(m, "*.txt"))
			}
		}
		return matches, nil
	}
	st, err := os.Stat(pattern)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("text file %s not found; %s", pattern, missingHint(pattern))
	case err != nil:
		return nil, fmt.Errorf("text file %s: %w", pattern, err)
	case st.IsDir():
		return nil, fmt.Errorf("text file %s is a directory; give a file or a glob (e.g. text:%s)", pattern, filepath.Join(pattern, "*.txt"))
	}
	return []string{pattern}, nil
}

// windowCount is how many windows of T+1 tokens starting every T tokens from off fit in n tokens.
func windowCount(n, off, T int) int {
	if n-off < T+1 {
		return 0
	}
	return (n - off - 1) / T
}

// textWindows draws the windows of one tokenized part of L tokens in a seeded random order per epoch (see the
// package notes above); its position is the number of windows drawn. Every epoch has the same number of
// windows, K = ⌊(L−T)/T⌋ (those that fit after the largest offset, T−1), so that a position maps to its epoch
// and place without replaying the epochs before it; epoch e's windows start at offset(e) + k·T, k < K.
type textWindows struct {
	name  string
	toks  []int32
	T     int
	k     int // windows per epoch
	seed  uint64
	drawn int64 // windows drawn so far

	epoch int64   // the current epoch
	off   int     // its first window's start
	perm  []int32 // its window order
}

// newTextWindows needs at least 2T tokens, so that every epoch has a window.
func newTextWindows(name string, toks []int32, T int, seed uint64) (*textWindows, error) {
	if len(toks) < 2*T {
		return nil, fmt.Errorf("%s has %d tokens, fewer than 2·seq_len = %d: too little text for seq_len %d", name, len(toks), 2*T, T)
	}
	w := &textWindows{name: name, toks: toks, T: T, k: windowCount(len(toks), T-1, T), seed: seed, epoch: -1}
	w.seek(0)
	return w, nil
}

// offset is where epoch e's first window starts: 0 for the first epoch, a seeded value in [0, T) after it.
func (w *textWindows) offset(e int64) int {
	if e == 0 {
		return 0
	}
	return int(seedrand.Mix64(w.seed, uint64(e)) % uint64(w.T))
}

func (w *textWindows) setEpoch(e int64) {
	if e == w.epoch {
		return
	}
	w.epoch, w.off = e, w.offset(e)
	if w.perm == nil {
		w.perm = make([]int32, w.k)
	}
	for i := range w.perm {
		w.perm[i] = int32(i)
	}
	rng := seedrand.NewPCG(w.seed, uint64(e))
	for i := w.k - 1; i > 0; i-- { // Fisher–Yates
		j := seedrand.UniformN(rng, i+1)
		w.perm[i], w.perm[j] = w.perm[j], w.perm[i]
	}
}

// seek goes to the position after n ≥ 0 windows drawn.
func (w *textWindows) seek(n int64) {
	w.drawn = n
	w.setEpoch(n / int64(w.k))
}

// next returns the next window (a fresh slice).
func (w *textWindows) next() []int32 {
	w.setEpoch(w.drawn / int64(w.k))
	i := int(w.perm[w.drawn%int64(w.k)])
	w.drawn++
	start := w.off + i*w.T
	return append([]int32(nil), w.toks[start:start+w.T+1]...)
}

// orderedWindows are the windows of toks of T+1 tokens starting every T tokens, in order.
func orderedWindows(toks []int32, T int) [][]int32 {
	out := make([][]int32, windowCount(len(toks), 0, T))
	for k := range out {
		out[k] = toks[k*T : k*T+T+1]
	}
	return out
}

// TextFiles returns the files the text and parquet components of a data spec read (globs and directories
// expanded, in the spec's order), none for a spec without such components: what a content key of the data
// must hash, since the spec's string stays the same when a file it names changes.
func TextFiles(spec string) ([]string, error) {
	if _, _, ok := cutTextKind(spec); !ok && !strings.HasPrefix(spec, "mix:") {
		return nil, nil
	}
	ms, err := parseMix(spec)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, it := range ms.texts {
		if it.kind == "text" {
			files, err := textFiles(it.pattern)
			if err != nil {
				return nil, err
			}
			out = append(out, files...)
			continue
		}
		set, err := hfparquet.Open(it.pattern)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", it.spec(), err)
		}
		out = append(out, set.Files()...)
	}
	return out, nil
}

// TextFilesDigest is the SHA-256 of the contents of every file TextFiles(spec) lists, in order (hex); "" for a
// spec that reads none. A key that must change when a data file's contents do (the study's evaluation cache)
// includes it.
func TextFilesDigest(spec string) (string, error) {
	files, err := TextFiles(spec)
	if err != nil || len(files) == 0 {
		return "", err
	}
	h := sha256.New()
	for _, f := range files {
		if err := safefile.HashInto(h, f, f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
