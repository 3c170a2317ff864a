package datasets

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"
)

func readAll(t *testing.T, src DocumentSource) []string {
	t.Helper()
	var out []string
	for {
		d, err := src.Next()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		out = append(out, d)
	}
}

// checkSourceSeek checks the DocumentSource contract on src, whose documents are docs: after
// Seek(Position()) at every point the rest is the same, Seek(nil) rewinds, io.EOF repeats.
func checkSourceSeek(t *testing.T, src DocumentSource, docs []string) {
	t.Helper()
	require.NoError(t, src.Seek(nil))
	var positions []json.RawMessage
	for i := range docs {
		positions = append(positions, src.Position())
		d, err := src.Next()
		require.NoError(t, err)
		require.Equal(t, docs[i], d)
	}
	end := src.Position()
	for range 2 {
		_, err := src.Next()
		require.Equal(t, io.EOF, err)
	}
	for _, i := range []int{len(docs) - 1, 0, len(docs) / 2, 1} {
		raw, _ := json.Marshal(positions[i]) // through JSON, as in a checkpoint
		require.NoError(t, src.Seek(raw))
		require.Equal(t, docs[i:], readAll(t, src), "from position %s", positions[i])
	}
	require.NoError(t, src.Seek(end))
	_, err := src.Next()
	require.Equal(t, io.EOF, err)
	for _, start := range []json.RawMessage{nil, json.RawMessage("null"), json.RawMessage(" ")} {
		require.NoError(t, src.Seek(start))
		require.Equal(t, docs, readAll(t, src))
	}
}

func TestSourceSlice(t *testing.T) {
	docs := []string{"a", "", "bc", "def"}
	src := NewSliceSource("mine", docs)
	require.Equal(t, "mine", src.Name())
	require.Equal(t, 4, src.Len())
	checkSourceSeek(t, src, docs)
	require.ErrorContains(t, src.Seek(json.RawMessage("5")), "out of range")
	require.ErrorContains(t, src.Seek(json.RawMessage("-1")), "out of range")
	require.ErrorContains(t, src.Seek(json.RawMessage(`{"file":1}`)), "not a document index")
	require.Equal(t, "slice", NewSliceSource("", nil).Name())
}

type nullableTextRow struct {
	Text *string `parquet:"text,optional"`
	ID   int64   `parquet:"id"`
}

// writeTextShards writes docs over nFiles parquet files (several row groups each) with an optional text
// column in which every nullEvery-th row (if > 0) is null. It returns the non-null documents in order.
func writeTextShards(t *testing.T, dir string, docs []string, nFiles, nullEvery int) []string {
	t.Helper()
	var want []string
	per := (len(docs) + nFiles - 1) / nFiles
	for f := range nFiles {
		var rows []nullableTextRow
		for i := f * per; i < min(len(docs), (f+1)*per); i++ {
			if nullEvery > 0 && i%nullEvery == nullEvery-1 {
				rows = append(rows, nullableTextRow{ID: int64(i)})
				continue
			}
			d := docs[i]
			rows = append(rows, nullableTextRow{Text: &d, ID: int64(i)})
			want = append(want, d)
		}
		path := filepath.Join(dir, fmt.Sprintf("train-%05d-of-%05d.parquet", f, nFiles))
		require.NoError(t, hfparquet.WriteFile(path, rows, parquet.MaxRowsPerRowGroup(7)))
	}
	return want
}

func TestSourceParquetText(t *testing.T) {
	dir := t.TempDir()
	docs, err := GenerateSynthLang(SynthLangConfig{Seed: 8, MaxLines: 2}, 60)
	require.NoError(t, err)
	docs[5] = "" // an empty string is a document (the stream skips it), not a null
	want := writeTextShards(t, dir, docs, 3, 11)
	require.Less(t, len(want), len(docs))

	src, err := OpenParquetTextSource(filepath.Join(dir, "*.parquet"), "")
	require.NoError(t, err)
	defer src.Close()
	require.Equal(t, "parquet("+filepath.Join(dir, "*.parquet")+":text)", src.Name())
	checkSourceSeek(t, src, want)
	require.Greater(t, src.Skipped(), int64(0), "null rows skipped and counted")

	// Positions are hfparquet.Position JSON.
	require.NoError(t, src.Seek(nil))
	for range 25 {
		_, err := src.Next()
		require.NoError(t, err)
	}
	var p hfparquet.Position
	require.NoError(t, json.Unmarshal(src.Position(), &p))
	require.Equal(t, 1, p.File, "25 documents in, we are in the second file")

	require.ErrorContains(t, src.Seek(json.RawMessage(`{"file":1,"row":2,"x":3}`)), "not a hfparquet.Position")
	require.ErrorContains(t, src.Seek(json.RawMessage(`7`)), "not a hfparquet.Position")
	require.Error(t, src.Seek(json.RawMessage(`{"file":9,"row":0}`)))

	// Column errors come from the reader and name the column.
	_, err = OpenParquetTextSource(dir, "content")
	require.ErrorContains(t, err, "content")
	_, err = OpenParquetTextSource(dir, "id")
	require.Error(t, err, "an integer column is not text")
	_, err = OpenParquetTextSource(filepath.Join(dir, "nothing-*.parquet"), "")
	require.Error(t, err)
}

// The stream over parquet shards, shuffled and sharded over 2 workers, resumes exactly from a checkpointed
// cursor (source position = hfparquet.Position JSON), and the ranks together give the single-worker stream.
func TestSourceParquetStreamResume(t *testing.T) {
	dir := t.TempDir()
	docs, err := GenerateSynthLang(SynthLangConfig{Seed: 9, MaxLines: 3}, 90)
	require.NoError(t, err)
	writeTextShards(t, dir, docs, 3, 13)
	open := func() *ParquetTextSource {
		src, err := OpenParquetTextSource(dir, "text")
		require.NoError(t, err)
		t.Cleanup(func() { src.Close() })
		return src
	}
	base := StreamConfig{SeqLen: 32, ShuffleBuffer: 8, Seed: 4, Epochs: 2, Log: io.Discard}
	single := func() [][]int32 {
		s, err := NewStream(base, open(), tokenizers.NewByteTokenizer())
		require.NoError(t, err)
		return drain(t, s)
	}()
	var ranks [2][][]int32
	for r := range 2 {
		cfg := base
		cfg.Rank, cfg.World = r, 2
		s, err := NewStream(cfg, open(), tokenizers.NewByteTokenizer())
		require.NoError(t, err)
		full := drain(t, s)
		ranks[r] = full
		for _, cut := range []int{0, 3, len(full) / 2, len(full) - 1} {
			s, err := NewStream(cfg, open(), tokenizers.NewByteTokenizer())
			require.NoError(t, err)
			for range cut {
				_, err := s.Next()
				require.NoError(t, err)
			}
			raw, err := json.Marshal(s.Cursor())
			require.NoError(t, err)
			var cur StreamCursor
			require.NoError(t, json.Unmarshal(raw, &cur))
			res, err := ResumeStream(cfg, open(), tokenizers.NewByteTokenizer(), cur)
			require.NoError(t, err)
			require.Equal(t, full[cut:], append([][]int32{}, drain(t, res)...), "rank %d cut %d", r, cut)
		}
	}
	for g, seq := range single {
		require.Equal(t, seq, ranks[g%2][g/2], "global sequence %d", g)
	}
	require.Equal(t, len(single), len(ranks[0])+len(ranks[1]))
}
