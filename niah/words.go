package niah

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/internal/pyrand"
)

// Keys. RULER draws a key (type_needle_k "words") with random.choice(words), where
//
//	words = sorted(set(f"{adj}-{noun}" for adj in adjs for noun in nouns))
//
// over wonderwords' adjectivelist.txt and nounlist.txt (912 and 6782 lines, each rstripped): 6,171,620
// distinct keys. wordSet holds that sorted list without building six million strings: a key is a pair
// (adjective, noun) and the pairs are emitted in the order of the joined strings (see newWordSet).

// WordsColumns are the columns a words parquet must have: kind ("adjective" or "noun") and word, one row per
// line of wonderwords' lists, in file order (<data root>/ruler_words/words.parquet).
var WordsColumns = []string{"kind", "word"}

// wordSet is sorted(set(adj + "-" + noun)) as pairs of indices into adjs and nouns.
type wordSet struct {
	adjs, nouns []string
	pairs       []uint32 // adjective index << 16 | noun index
	source      string   // file it came from, or "fallback"
}

func (w *wordSet) len() int { return len(w.pairs) }

func (w *wordSet) word(i int) string {
	p := w.pairs[i]
	return w.adjs[p>>16] + "-" + w.nouns[p&0xffff]
}

// choice is random.choice(words).
func (w *wordSet) choice(r *pyrand.Rand) string { return w.word(r.Randbelow(w.len())) }

// newWordSet builds the sorted set of adjective-noun keys. Python compares str by code point, which for
// valid UTF-8 is Go's byte order. Sorting the adjectives by adj+"-" and taking the nouns in order for each
// gives the sorted list, except inside a family of adjectives where one's adj+"-" is a prefix of another's
// ("blue-" and "blue-eyed-"): such a family is contiguous in that order, and its pairs are sorted (and
// deduplicated: "blue" + "eyed-x" and "blue-eyed" + "x" are one key) as full strings.
func newWordSet(adjs, nouns []string, source string) (*wordSet, error) {
	adjs, nouns = sortedUnique(adjs, "-"), sortedUnique(nouns, "")
	if len(adjs) == 0 || len(nouns) == 0 {
		return nil, fmt.Errorf("niah: word list %s: %d adjectives and %d nouns; need at least one of each", source, len(adjs), len(nouns))
	}
	if len(adjs) > 1<<16 || len(nouns) > 1<<16 {
		return nil, fmt.Errorf("niah: word list %s: %d adjectives and %d nouns; at most 65536 of each", source, len(adjs), len(nouns))
	}
	w := &wordSet{adjs: adjs, nouns: nouns, source: source, pairs: make([]uint32, 0, len(adjs)*len(nouns))}
	str := func(p uint32) string { return adjs[p>>16] + "-" + nouns[p&0xffff] }
	for a := 0; a < len(adjs); {
		// The family led by adjs[a]: the following adjectives that start with adjs[a] + "-".
		lead := adjs[a] + "-"
		end := a + 1
		for end < len(adjs) && strings.HasPrefix(adjs[end]+"-", lead) {
			end++
		}
		if end == a+1 {
			for n := range nouns {
				w.pairs = append(w.pairs, uint32(a)<<16|uint32(n))
			}
			a = end
			continue
		}
		fam := make([]uint32, 0, (end-a)*len(nouns))
		for i := a; i < end; i++ {
			for n := range nouns {
				fam = append(fam, uint32(i)<<16|uint32(n))
			}
		}
		slices.SortStableFunc(fam, func(x, y uint32) int { return strings.Compare(str(x), str(y)) })
		fam = slices.CompactFunc(fam, func(x, y uint32) bool { return str(x) == str(y) })
		w.pairs = append(w.pairs, fam...)
		a = end
	}
	return w, nil
}

// sortedUnique returns the distinct strings of list sorted by s + suffix.
func sortedUnique(list []string, suffix string) []string {
	out := slices.Clone(list)
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(a+suffix, b+suffix) })
	return slices.Compact(out)
}

var wordCache pathCache[*wordSet]

// loadWords returns the key set of the words parquet at path (cached per path), or the embedded fallback
// lists when path is "".
func loadWords(path string) (*wordSet, error) {
	return wordCache.get(path, func() (*wordSet, error) { return readWords(path) })
}

// readWords does loadWords' reading.
func readWords(path string) (*wordSet, error) {
	var w *wordSet
	var err error
	if path == "" {
		w, err = newWordSet(strings.Fields(fallbackAdjectives), strings.Fields(fallbackNouns), "fallback")
	} else {
		var adjs, nouns []string
		if adjs, nouns, err = readWordsParquet(path); err == nil {
			w, err = newWordSet(adjs, nouns, path)
		}
	}
	if err != nil {
		return nil, err
	}
	return w, nil
}

// readWordsParquet reads the adjective and noun lists (in file order, each word right-stripped as wonderwords
// does) from a parquet with WordsColumns. A missing column, a null, or another kind is an error naming the
// file.
func readWordsParquet(path string) (adjs, nouns []string, err error) {
	set, err := hfparquet.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("niah: words: %w", err)
	}
	rows, err := set.Rows(WordsColumns...)
	if err != nil {
		return nil, nil, fmt.Errorf("niah: words: %w", err)
	}
	defer rows.Close()
	for {
		row, err := rows.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("niah: words: %w", err)
		}
		kind, err := row.Str("kind")
		if err != nil {
			return nil, nil, fmt.Errorf("niah: words: %w", err)
		}
		word, err := row.Str("word")
		if err != nil {
			return nil, nil, fmt.Errorf("niah: words: %w", err)
		}
		word = strings.TrimRightFunc(word, pyIsSpace)
		switch kind {
		case "adjective":
			adjs = append(adjs, word)
		case "noun":
			nouns = append(nouns, word)
		default:
			return nil, nil, fmt.Errorf("niah: words: %s: row %d: column \"kind\" is %q, want \"adjective\" or \"noun\"", row.File, row.Pos.Row, kind)
		}
	}
	return adjs, nouns, nil
}

// pyIsSpace is Python's str.isspace (and re's \s on str) for one character: Go's unicode.IsSpace plus the
// separators U+001C–U+001F.
func pyIsSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }
