package niah

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/internal/pyrand"
	"github.com/stretchr/testify/require"
)

// TestWordSetMatchesPythonSortedSet compares wordSet with sorted(set(f"{a}-{n}")) built naively, on lists
// with the cases that break simple grouping: adjectives whose adj+"-" prefixes another's ("blue",
// "blue-eyed", "blue-eyed-x"), keys that collide ("blue" + "eyed-cat" = "blue-eyed" + "cat"), a space
// (sorts before "-"), capitals, non-ASCII and duplicates.
func TestWordSetMatchesPythonSortedSet(t *testing.T) {
	adjs := []string{"blue", "old", "blue-eyed", "ad hoc", "ad", "Early", "blue-eyed-x", "blue", "bluer", "jalapeño", "b"}
	nouns := []string{"cat", "eyed-cat", "x-cat", "ATM", "hoc-dog", "zebra", "cat", "ñu", "-"}
	set := map[string]bool{}
	for _, a := range adjs {
		for _, n := range nouns {
			set[a+"-"+n] = true
		}
	}
	var want []string
	for k := range set {
		want = append(want, k)
	}
	slices.Sort(want)
	w, err := newWordSet(adjs, nouns, "test")
	require.NoError(t, err)
	got := make([]string, w.len())
	for i := range got {
		got[i] = w.word(i)
	}
	require.Equal(t, want, got)
}

func TestFallbackWords(t *testing.T) {
	w, err := loadWords("")
	require.NoError(t, err)
	require.Equal(t, 48*64, w.len())
	require.Equal(t, "able-anchor", w.word(0))
	require.Equal(t, "steady-zipper", w.word(w.len()-1))
}

// TestRulerWords checks the key set from the shared words parquet against CPython:
// len(words) == 6171620 and words[0], words[-1], words[1234567], words[3000000].
func TestRulerWords(t *testing.T) {
	needShared(t, sharedWords)
	w, err := loadWords(sharedWords)
	require.NoError(t, err)
	require.Equal(t, 6171620, w.len())
	require.Equal(t, "Early-ATM", w.word(0))
	require.Equal(t, "zonked-zucchini", w.word(w.len()-1))
	require.Equal(t, "defeated-appendix", w.word(1234567))
	require.Equal(t, "lackadaisical-finisher", w.word(3000000))
	// [words[random.Random(42)._randbelow(len(words))] for _ in range(5)] in CPython:
	r := pyrand.New(42)
	var got []string
	for range 5 {
		got = append(got, w.choice(r))
	}
	require.Equal(t, []string{"tenuous-thirst", "colorful-psychology", "ad hoc-turnover", "grubby-color", "fretful-thumb"}, got)
}

func TestWordsParquetErrors(t *testing.T) {
	dir := t.TempDir()
	type wrongCols struct {
		Kind string `parquet:"kind"`
		Text string `parquet:"text"`
	}
	p := filepath.Join(dir, "w.parquet")
	require.NoError(t, hfparquet.WriteFile(p, []wrongCols{{"noun", "cat"}}))
	_, _, err := readWordsParquet(p)
	require.ErrorContains(t, err, `"word"`)
	require.ErrorContains(t, err, p)

	type row struct {
		Kind string `parquet:"kind"`
		Word string `parquet:"word"`
	}
	p2 := filepath.Join(dir, "w2.parquet")
	require.NoError(t, hfparquet.WriteFile(p2, []row{{"adjective", "big "}, {"verb", "run"}}))
	_, _, err = readWordsParquet(p2)
	require.ErrorContains(t, err, `"verb"`)

	p3 := filepath.Join(dir, "w3.parquet")
	require.NoError(t, hfparquet.WriteFile(p3, []row{{"adjective", "big \t"}, {"noun", "cat"}, {"noun", "dog"}}))
	adjs, nouns, err := readWordsParquet(p3)
	require.NoError(t, err)
	require.Equal(t, []string{"big"}, adjs) // right-stripped as wonderwords does
	require.Equal(t, []string{"cat", "dog"}, nouns)

	p4 := filepath.Join(dir, "w4.parquet")
	require.NoError(t, hfparquet.WriteFile(p4, []row{{"noun", "cat"}}))
	_, err = loadWords(p4)
	require.ErrorContains(t, err, "0 adjectives")
	require.True(t, strings.Contains(err.Error(), p4))
}
