package niah

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/oryx-go/oryx/datasets/hfparquet"
)

// Haystacks (RULER scripts/data/synthetic/niah.py).
//
// Noise: NoiseSentence repeated num_haystack times, the needles inserted as extra pieces, everything joined
// with "\n".
//
// Essay:
//  1. the essays are concatenated with no separator, in row order (the parquet rows are in sorted file-name
//     order, the order RULER concatenates them);
//  2. words = re.sub(r"\s+", " ", text).split(" ") (Python semantics: Unicode whitespace, and a leading or
//     trailing space gives an empty word); text = " ".join(words[:num_haystack]), the words repeated when
//     num_haystack exceeds them (RULER's current niah.py);
//  3. the text (stripped) is split into sentences; needle i goes before sentence int(n_sents · depth_i), and
//     the pieces (sentence runs and needles) are joined with " ". Empty runs are kept, so a needle at depth 0
//     makes the context start with " " and one at depth 1 makes it end with " ", as in RULER.
//
// [deviation] RULER splits sentences with NLTK Punkt (sent_tokenize). This package uses splitSentences, a
// rule: a sentence ends after a run of '.', '!' or '?' (optionally followed by closing quotes or brackets)
// that is followed by a space. Punkt also refuses to split after known abbreviations and initials ("Mr.",
// "e.g.", "J. Smith"), so the sentence count, and hence the exact sentence a depth maps to, can differ
// slightly; the needle still always goes between two sentences, and the text around it is unchanged.

// EssaysColumn is the column of an essays parquet that holds each essay's text
// (<data root>/ruler_essays/essays.parquet has title and text, one row per essay file).
const EssaysColumn = "text"

// essayHaystack is RULER's essay haystack: the word list of the concatenated essays.
type essayHaystack struct {
	words  []string
	source string
}

var essayCache pathCache[*essayHaystack]

// loadEssays reads the essays parquet at path (cached per path): the EssaysColumn of every row, concatenated
// in row order with no separator, then split into RULER's haystack words. A missing file or column, or a
// null text, is an error naming the file and column.
func loadEssays(path string) (*essayHaystack, error) {
	return essayCache.get(path, func() (*essayHaystack, error) { return readEssays(path) })
}

// readEssays does loadEssays' reading.
func readEssays(path string) (*essayHaystack, error) {
	set, err := hfparquet.Open(path)
	if err != nil {
		return nil, fmt.Errorf("niah: essays: %w", err)
	}
	rows, err := set.Rows(EssaysColumn)
	if err != nil {
		return nil, fmt.Errorf("niah: essays: %w", err)
	}
	defer rows.Close()
	var sb strings.Builder
	for {
		row, err := rows.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("niah: essays: %w", err)
		}
		text, err := row.Str(EssaysColumn)
		if err != nil {
			return nil, fmt.Errorf("niah: essays: %w", err)
		}
		sb.WriteString(text)
	}
	h := &essayHaystack{words: haystackWords(sb.String()), source: path}
	if len(h.words) == 0 || (len(h.words) == 1 && h.words[0] == "") {
		return nil, fmt.Errorf("niah: essays: %s: column %q holds no text", path, EssaysColumn)
	}
	return h, nil
}

// haystackWords is re.sub(r"\s+", " ", text).split(" ").
func haystackWords(text string) []string {
	var sb strings.Builder
	sb.Grow(len(text))
	inSpace := false
	for _, r := range text {
		if pyIsSpace(r) {
			if !inSpace {
				sb.WriteByte(' ')
			}
			inSpace = true
			continue
		}
		inSpace = false
		sb.WriteRune(r)
	}
	return strings.Split(sb.String(), " ")
}

// text returns " ".join(words[:n]), cycling through the words when n exceeds them.
func (h *essayHaystack) text(n int) string {
	if n <= len(h.words) {
		return strings.Join(h.words[:n], " ")
	}
	ws := make([]string, 0, n)
	for len(ws) < n {
		ws = append(ws, h.words[:min(len(h.words), n-len(ws))]...)
	}
	return strings.Join(ws, " ")
}

// splitSentences is the stand-in for NLTK's sent_tokenize (see the deviation note above) on text whose
// whitespace is single spaces: a sentence ends after [.!?]+ and any closing quotes or brackets, when a space
// follows; the space is dropped, so strings.Join(sentences, " ") == text.
func splitSentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		if c := text[i]; c != '.' && c != '!' && c != '?' {
			continue
		}
		j := i + 1
		for j < len(text) && strings.IndexByte(".!?", text[j]) >= 0 {
			j++
		}
		for j < len(text) && strings.IndexByte("\"')]", text[j]) >= 0 {
			j++
		}
		for _, q := range []string{"”", "’"} { // closing curly quotes
			if strings.HasPrefix(text[j:], q) {
				j += len(q)
			}
		}
		if j < len(text) && text[j] == ' ' {
			out = append(out, text[start:j])
			start = j + 1
		}
		i = j - 1
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// pyStrip is Python's str.strip().
func pyStrip(s string) string { return strings.TrimFunc(s, pyIsSpace) }

// context inserts needles into the first n haystack words: needle i goes before sentence
// int(n_sents · fracs[i]) (clamped to [0, n_sents]); needles at the same sentence keep their order. This is
// RULER's loop over insertion_positions, which pairs the sorted positions with the needles in order.
func (h *essayHaystack) context(n int, needles []string, fracs []float64) string {
	sents := splitSentences(pyStrip(h.text(n)))
	pos := make([]int, len(needles))
	order := make([]int, len(needles))
	for i, f := range fracs {
		pos[i] = min(max(int(float64(len(sents))*f), 0), len(sents))
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return pos[a] - pos[b] })
	pieces := make([]string, 0, 2*len(needles)+1)
	last := 0
	for _, i := range order {
		pieces = append(pieces, strings.Join(sents[last:pos[i]], " "), needles[i])
		last = pos[i]
	}
	pieces = append(pieces, strings.Join(sents[last:], " "))
	return strings.Join(pieces, " ")
}

// noiseContext is RULER's noise haystack: n copies of NoiseSentence; the needles, taken in order of
// decreasing index (stable), are each inserted before piece idx[i] of the growing list (Python's
// list.insert, idx clamped to [0, n]); the pieces are joined with "\n". So needle i ends up after idx[i]
// noise sentences.
func noiseContext(n int, needles []string, idx []int) string {
	pieces := make([]string, n, n+len(needles))
	for i := range pieces {
		pieces[i] = NoiseSentence
	}
	order := make([]int, len(needles))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return idx[b] - idx[a] })
	for _, i := range order {
		at := min(max(idx[i], 0), len(pieces))
		pieces = slices.Insert(pieces, at, needles[i])
	}
	return strings.Join(pieces, "\n")
}
