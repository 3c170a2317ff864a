package datasets

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"
)

type ptkTextRow struct {
	Text string `parquet:"text"`
}

// ptkTestDocs returns synthetic documents with a few empty ones, literal special tokens and invalid UTF-8.
func ptkTestDocs(t *testing.T, n int) []string {
	t.Helper()
	docs, err := GenerateSynthLang(SynthLangConfig{Seed: 21, MaxLines: 3}, n)
	require.NoError(t, err)
	for i := range docs {
		switch i % 13 {
		case 4:
			docs[i] = ""
		case 7:
			docs[i] += "<|endoftext|>tail"
		case 9:
			docs[i] = "bad\xffutf8 " + docs[i]
		}
	}
	return docs
}

// writePtkText writes docs as a text corpus of nFiles parquet files (small row groups) in dir.
func writePtkText(t *testing.T, dir string, docs []string, nFiles int) {
	t.Helper()
	per := (len(docs) + nFiles - 1) / nFiles
	for f := range nFiles {
		var rows []ptkTextRow
		for _, d := range docs[f*per : min(len(docs), (f+1)*per)] {
			rows = append(rows, ptkTextRow{Text: d})
		}
		path := filepath.Join(dir, fmt.Sprintf("train-%05d.parquet", f))
		require.NoError(t, hfparquet.WriteFile(path, rows, parquet.MaxRowsPerRowGroup(9)))
	}
}

// ptkCorpus writes a text corpus and pre-tokenizes it with the byte tokenizer; it returns the text pattern,
// the output directory and the stats.
func ptkCorpus(t *testing.T, nDocs, shardRows int) (pattern, out string, stats PretokenizeStats) {
	t.Helper()
	in := t.TempDir()
	writePtkText(t, in, ptkTestDocs(t, nDocs), 3)
	pattern = filepath.Join(in, "train-*.parquet")
	out = filepath.Join(t.TempDir(), "tokens")
	stats, err := Pretokenize(PretokenizeConfig{Input: pattern, OutDir: out, ShardRows: shardRows,
		Tokenizer: tokenizers.NewByteTokenizer(), Workers: 3})
	require.NoError(t, err)
	return pattern, out, stats
}

func openPtk(t *testing.T, dir string) *PretokenizedSource {
	t.Helper()
	src, err := OpenPretokenized(dir)
	require.NoError(t, err)
	t.Cleanup(func() { src.Close() })
	return src
}

func readAllTokens(t *testing.T, src TokenDocumentSource) [][]int32 {
	t.Helper()
	var out [][]int32
	for {
		ids, err := src.NextTokens()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		out = append(out, ids)
	}
}

func TestPretokenizeShardsAndManifest(t *testing.T) {
	in := t.TempDir()
	docs := ptkTestDocs(t, 100)
	writePtkText(t, in, docs, 3)
	pattern := filepath.Join(in, "*.parquet")
	out := filepath.Join(t.TempDir(), "a", "tokens") // created
	var progress []PretokenizeProgress
	tok := tokenizers.NewByteTokenizer()
	stats, err := Pretokenize(PretokenizeConfig{Input: pattern, OutDir: out, ShardRows: 17, Tokenizer: tok, Workers: 4,
		Progress: func(p PretokenizeProgress) { progress = append(progress, p) }})
	require.NoError(t, err)

	// What the stream would see: the text source's documents (invalid UTF-8 repaired), empty ones dropped.
	text, err := OpenParquetTextSource(pattern, "")
	require.NoError(t, err)
	defer text.Close()
	var want [][]int32
	empty := int64(0)
	for _, d := range readAll(t, text) {
		if d == "" {
			empty++
			continue
		}
		var ids []int32
		for _, id := range tok.Encode(d) {
			ids = append(ids, int32(id))
		}
		want = append(want, ids)
	}
	var wantTokens int64
	for _, w := range want {
		wantTokens += int64(len(w))
	}
	require.Equal(t, int64(len(want)), stats.Documents)
	require.Equal(t, wantTokens, stats.Tokens)
	require.Equal(t, int64(len(docs)), stats.Rows)
	require.Equal(t, empty, stats.SkippedEmpty)
	require.Equal(t, empty, stats.Skipped)
	require.Greater(t, stats.RepairedUTF8, int64(0))
	require.Equal(t, (len(want)+16)/17, stats.Shards)
	require.GreaterOrEqual(t, stats.Shards, 4)

	// Files: the shards and the manifest, no temporary files.
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	wantNames := []string{}
	for i := range stats.Shards {
		wantNames = append(wantNames, fmt.Sprintf("tokens-%05d.parquet", i))
	}
	require.Equal(t, append([]string{"manifest.json"}, wantNames...), names)

	m, err := ReadPretokenizedManifest(out)
	require.NoError(t, err)
	require.Equal(t, "bytes", m.Tokenizer)
	require.Equal(t, 258, m.VocabSize)
	require.Equal(t, 256, m.EOS)
	require.Equal(t, pattern, m.Source)
	require.Equal(t, "text", m.Column)
	require.Equal(t, stats.Documents, m.Documents)
	require.Equal(t, stats.Tokens, m.Tokens)
	require.Equal(t, stats.SkippedEmpty, m.SkippedEmpty)
	require.Len(t, m.Shards, stats.Shards)
	for i, sh := range m.Shards {
		require.Equal(t, wantNames[i], sh.Name)
		if i < len(m.Shards)-1 {
			require.Equal(t, int64(17), sh.Rows)
		}
	}

	// Progress: monotone, ends with every row.
	require.NotEmpty(t, progress)
	last := progress[len(progress)-1]
	require.Equal(t, last.TotalRows, last.Rows)
	require.Equal(t, int64(len(docs)), last.TotalRows)
	require.Equal(t, stats.Documents, last.Documents)
	require.Equal(t, stats.Shards, last.Shards)
	for i := 1; i < len(progress); i++ {
		require.GreaterOrEqual(t, progress[i].Rows, progress[i-1].Rows)
	}

	// Reading back gives the documents' ids, whatever the number of workers that wrote them.
	src := openPtk(t, out)
	require.Equal(t, want, readAllTokens(t, src))
	require.Equal(t, "pretokenized("+out+")", src.Name())
	require.NoError(t, src.CheckTokenizer(tok))
	out1 := filepath.Join(t.TempDir(), "one")
	_, err = Pretokenize(PretokenizeConfig{Input: pattern, OutDir: out1, ShardRows: 17, Tokenizer: tok, Workers: 1})
	require.NoError(t, err)
	require.Equal(t, want, readAllTokens(t, openPtk(t, out1)))
}

// The token stream over the shards yields exactly the text stream's sequences (shuffled, sharded over 2
// workers, 2 epochs), and resumes exactly from a cursor.
func TestPretokenizedStreamEqualsTextStream(t *testing.T) {
	pattern, out, _ := ptkCorpus(t, 90, 11)
	tok := tokenizers.NewByteTokenizer()
	base := StreamConfig{SeqLen: 24, ShuffleBuffer: 8, Seed: 5, Epochs: 2, Log: io.Discard}
	textStream := func(cfg StreamConfig) [][]int32 {
		src, err := OpenParquetTextSource(pattern, "text")
		require.NoError(t, err)
		defer src.Close()
		s, err := NewStream(cfg, src, tok)
		require.NoError(t, err)
		return drain(t, s)
	}
	tokenStream := func(cfg StreamConfig) *Stream {
		src := openPtk(t, out)
		s, err := NewTokenStream(cfg, src, src.EOS(), src.VocabSize())
		require.NoError(t, err)
		return s
	}
	single := drain(t, tokenStream(base))
	require.Equal(t, textStream(base), single)
	require.Greater(t, len(single), 20)

	for r := range 2 {
		cfg := base
		cfg.Rank, cfg.World = r, 2
		full := drain(t, tokenStream(cfg))
		require.Equal(t, textStream(cfg), full, "rank %d", r)
		for g, seq := range full {
			require.Equal(t, single[2*g+r], seq)
		}
		for _, cut := range []int{0, 1, len(full) / 3, len(full) / 2, len(full) - 1, len(full)} {
			s := tokenStream(cfg)
			for range cut {
				_, err := s.Next()
				require.NoError(t, err)
			}
			cur := s.Cursor()
			require.Equal(t, "pretokenized(eos=256,vocab=258)", cur.Tokenizer)
			if !cur.SourceDone {
				var p PretokenizedPosition
				require.NoError(t, json.Unmarshal(cur.SourcePosition, &p), "position %s", cur.SourcePosition)
			}
			raw, err := json.Marshal(cur)
			require.NoError(t, err)
			var back StreamCursor
			require.NoError(t, json.Unmarshal(raw, &back))
			src := openPtk(t, out)
			res, err := ResumeTokenStream(cfg, src, src.EOS(), src.VocabSize(), back)
			require.NoError(t, err)
			require.Equal(t, full[cut:], append([][]int32{}, drain(t, res)...), "rank %d cut %d", r, cut)
		}
	}

	// Resuming needs the same eos and vocab, and a token stream's cursor.
	s := tokenStream(base)
	_, err := s.Next()
	require.NoError(t, err)
	cur := s.Cursor()
	src := openPtk(t, out)
	_, err = ResumeTokenStream(base, src, 0, 258, cur)
	require.ErrorContains(t, err, `ResumeTokenStream: tokenizer "pretokenized(eos=0,vocab=258)" but the cursor was taken with "pretokenized(eos=256,vocab=258)"`)
	text, err := OpenParquetTextSource(pattern, "text")
	require.NoError(t, err)
	defer text.Close()
	_, err = ResumeStream(base, text, tok, cur)
	require.ErrorContains(t, err, "ResumeStream: tokenizer \"bytes\"")
	ts, err := NewStream(base, text, tok)
	require.NoError(t, err)
	_, err = ResumeTokenStream(base, src, 256, 258, ts.Cursor())
	require.ErrorContains(t, err, "ResumeTokenStream")
}

func TestPretokenizedSourceSeek(t *testing.T) {
	_, out, stats := ptkCorpus(t, 60, 7)
	src := openPtk(t, out)
	all := readAllTokens(t, src)
	require.Len(t, all, int(stats.Documents))
	require.NoError(t, src.Seek(nil))
	var positions []json.RawMessage
	for range all {
		positions = append(positions, src.Position())
		_, err := src.NextTokens()
		require.NoError(t, err)
	}
	require.JSONEq(t, `{"shard":0,"row":0}`, string(positions[0]))
	require.JSONEq(t, `{"shard":1,"row":3}`, string(positions[10]))
	end := src.Position()
	for _, i := range []int{len(all) - 1, 0, 7, 10, len(all) / 2} {
		require.NoError(t, src.Seek(positions[i]))
		require.Equal(t, all[i:], readAllTokens(t, src), "from %s", positions[i])
	}
	require.NoError(t, src.Seek(end))
	_, err := src.NextTokens()
	require.Equal(t, io.EOF, err)
	require.NoError(t, src.Seek(json.RawMessage("null")))
	require.Equal(t, all, readAllTokens(t, src))

	require.ErrorContains(t, src.Seek(json.RawMessage(`{"file":1,"row":2}`)), "not a PretokenizedPosition")
	require.ErrorContains(t, src.Seek(json.RawMessage(`3`)), "not a PretokenizedPosition")
	require.ErrorContains(t, src.Seek(json.RawMessage(`{"shard":99,"row":0}`)), "seek to shard 99 row 0")
	require.ErrorContains(t, src.Seek(json.RawMessage(`{"shard":0,"row":8}`)), "out of range")
}

func TestPretokenizeRefusesFinishedCorpus(t *testing.T) {
	pattern, out, _ := ptkCorpus(t, 30, 10)
	before, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	require.NoError(t, err)
	_, err = Pretokenize(PretokenizeConfig{Input: pattern, OutDir: out, Tokenizer: tokenizers.NewByteTokenizer()})
	require.ErrorContains(t, err, filepath.Join(out, "manifest.json")+" already exists")
	after, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	require.NoError(t, err)
	require.Equal(t, before, after)
	openPtk(t, out) // still whole

	// An interrupted run's shards (no manifest) are replaced; foreign parquet files are refused.
	stale := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(stale, "tokens-00007.parquet"), []byte("partial"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(stale, ".tokens-00008.parquet.tmp-123"), []byte("partial"), 0o644))
	_, err = Pretokenize(PretokenizeConfig{Input: pattern, OutDir: stale, ShardRows: 100, Tokenizer: tokenizers.NewByteTokenizer()})
	require.NoError(t, err)
	entries, err := os.ReadDir(stale)
	require.NoError(t, err)
	require.Len(t, entries, 2, "tokens-00000.parquet and manifest.json")
	openPtk(t, stale)

	foreign := t.TempDir()
	writePtkText(t, foreign, []string{"x"}, 1)
	_, err = Pretokenize(PretokenizeConfig{Input: pattern, OutDir: foreign, Tokenizer: tokenizers.NewByteTokenizer()})
	require.ErrorContains(t, err, "train-00000.parquet")
	require.ErrorContains(t, err, "not its shards")
}

func TestPretokenizeConfigErrors(t *testing.T) {
	in := t.TempDir()
	writePtkText(t, in, []string{"a", "b"}, 1)
	tok := tokenizers.NewByteTokenizer()
	for _, c := range []struct {
		cfg  PretokenizeConfig
		want string
	}{
		{PretokenizeConfig{OutDir: t.TempDir(), Tokenizer: tok}, "Input is empty"},
		{PretokenizeConfig{Input: in, Tokenizer: tok}, "OutDir is empty"},
		{PretokenizeConfig{Input: in, OutDir: t.TempDir()}, "Tokenizer is nil"},
		{PretokenizeConfig{Input: in, OutDir: t.TempDir(), Tokenizer: tok, ShardRows: -1}, "ShardRows = -1"},
		{PretokenizeConfig{Input: in, OutDir: t.TempDir(), Tokenizer: tok, Workers: -1}, "Workers = -1"},
		{PretokenizeConfig{Input: filepath.Join(in, "nope-*.parquet"), OutDir: t.TempDir(), Tokenizer: tok},
			`"` + filepath.Join(in, "nope-*.parquet") + `" matches no files`},
		{PretokenizeConfig{Input: in, Column: "content", OutDir: t.TempDir(), Tokenizer: tok}, `no column "content"`},
		{PretokenizeConfig{Input: in, OutDir: t.TempDir(), Tokenizer: badTok{}}, "returned id 999"},
	} {
		_, err := Pretokenize(c.cfg)
		require.ErrorContains(t, err, c.want)
	}

	// Nothing to tokenize: an error, no manifest.
	empty := t.TempDir()
	writeTextShards(t, empty, []string{"", "", "x", ""}, 1, 3) // the "x" row is null
	out := t.TempDir()
	_, err := Pretokenize(PretokenizeConfig{Input: empty, OutDir: out, Tokenizer: tok})
	require.ErrorContains(t, err, "no document has tokens (4 rows: 1 null, 3 empty")
	_, err = os.Stat(filepath.Join(out, "manifest.json"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestPretokenizeNullRowsCounted(t *testing.T) {
	in := t.TempDir()
	docs := ptkTestDocs(t, 40)
	want := writeTextShards(t, in, docs, 2, 5)
	out := t.TempDir()
	stats, err := Pretokenize(PretokenizeConfig{Input: in, OutDir: out, ShardRows: 8, Tokenizer: tokenizers.NewByteTokenizer()})
	require.NoError(t, err)
	require.Equal(t, int64(len(docs)-len(want)), stats.SkippedNull)
	require.Equal(t, stats.SkippedNull+stats.SkippedEmpty, stats.Skipped)
	m, err := ReadPretokenizedManifest(out)
	require.NoError(t, err)
	require.Equal(t, stats.SkippedNull, m.SkippedNull)
	require.Equal(t, int64(len(docs)), m.Rows)
}

func TestPretokenizedManifestErrors(t *testing.T) {
	_, out, _ := ptkCorpus(t, 40, 10)
	orig, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	require.NoError(t, err)

	// copyCorpus copies the corpus into a fresh directory with the manifest edited by edit (nil: deleted).
	copyCorpus := func(edit func(m map[string]any)) string {
		dir := t.TempDir()
		entries, err := os.ReadDir(out)
		require.NoError(t, err)
		for _, e := range entries {
			if e.Name() == "manifest.json" {
				continue
			}
			b, err := os.ReadFile(filepath.Join(out, e.Name()))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644))
		}
		if edit != nil {
			var m map[string]any
			require.NoError(t, json.Unmarshal(orig, &m))
			edit(m)
			b, err := json.Marshal(m)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644))
		}
		return dir
	}
	shard := func(m map[string]any, i int) map[string]any { return m["shards"].([]any)[i].(map[string]any) }

	for _, c := range []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"missing", nil, "no manifest.json"},
		{"version", func(m map[string]any) { m["version"] = 2 }, `field "version": 2, want 1`},
		{"tokenizer", func(m map[string]any) { delete(m, "tokenizer") }, `field "tokenizer": missing`},
		{"vocab", func(m map[string]any) { m["vocab_size"] = 0 }, `field "vocab_size": 0`},
		{"eos", func(m map[string]any) { m["eos"] = 258 }, `field "eos": 258 outside [0, vocab_size=258)`},
		{"no shards", func(m map[string]any) { m["shards"] = []any{} }, `field "shards": missing or empty`},
		{"unknown field", func(m map[string]any) { m["extra"] = 1 }, `unknown field "extra"`},
		{"bad name", func(m map[string]any) { shard(m, 0)["name"] = "../x.parquet" }, `field "shards[0].name": "../x.parquet" is not a shard file name`},
		{"documents", func(m map[string]any) { m["documents"] = 3 }, `field "documents": 3 but the shards hold`},
		{"tokens", func(m map[string]any) { m["tokens"] = 3 }, `field "tokens": 3 but the shards hold`},
		{"shard rows", func(m map[string]any) {
			shard(m, 0)["rows"] = 9.0
			m["documents"] = m["documents"].(float64) - 1
		}, "tokens-00000.parquet has 10 rows but"},
		{"missing shard", func(m map[string]any) {
			sh := m["shards"].([]any)
			m["shards"] = append(sh, map[string]any{"name": "tokens-00009.parquet", "rows": 1, "tokens": 1})
			m["documents"] = m["documents"].(float64) + 1
			m["tokens"] = m["tokens"].(float64) + 1
		}, "shard tokens-00009.parquet listed in"},
		{"unlisted shard", func(m map[string]any) {
			sh := m["shards"].([]any)
			last := sh[len(sh)-1].(map[string]any)
			m["shards"] = sh[:len(sh)-1]
			m["documents"] = m["documents"].(float64) - last["rows"].(float64)
			m["tokens"] = m["tokens"].(float64) - last["tokens"].(float64)
		}, "is not a shard listed in"},
	} {
		dir := copyCorpus(c.edit)
		_, err := OpenPretokenized(dir)
		require.Error(t, err, c.name)
		require.ErrorContains(t, err, c.want, c.name)
		if c.name != "missing" && !strings.Contains(c.want, "listed in") && c.name != "shard rows" {
			require.ErrorContains(t, err, filepath.Join(dir, "manifest.json"), c.name)
		}
	}

	// Not JSON, and a truncated manifest.
	for _, content := range []string{"garbage", string(orig[:len(orig)/2])} {
		dir := copyCorpus(nil)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(content), 0o644))
		_, err := OpenPretokenized(dir)
		require.ErrorContains(t, err, filepath.Join(dir, "manifest.json")+": not a valid manifest")
	}
	// A corrupt shard is named.
	dir := copyCorpus(func(map[string]any) {})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tokens-00001.parquet"), []byte("not parquet at all"), 0o644))
	_, err = OpenPretokenized(dir)
	require.ErrorContains(t, err, "tokens-00001.parquet")
}

func TestPretokenizedTokenizerChecks(t *testing.T) {
	_, out, _ := ptkCorpus(t, 30, 10)
	src := openPtk(t, out)
	require.NoError(t, src.CheckTokenizer(tokenizers.NewByteTokenizer()))
	err := src.CheckTokenizer(streamTestTok{})
	require.ErrorContains(t, err, `made with tokenizer "bytes"`)
	require.ErrorContains(t, err, `not "test-bytes"`)
	require.ErrorContains(t, err, filepath.Join(out, "manifest.json"))

	// A stream whose vocab is too small for the ids is an error naming the source.
	s, err := NewTokenStream(StreamConfig{SeqLen: 4, Log: io.Discard}, src, 0, 100)
	require.NoError(t, err)
	_, err = s.Next()
	require.ErrorContains(t, err, "source pretokenized("+out+") holds id")
	require.ErrorContains(t, err, "outside [0, VocabSize=100)")
	_, err = NewTokenStream(StreamConfig{SeqLen: 4}, src, 300, 258)
	require.ErrorContains(t, err, "EOS id 300 outside [0, VocabSize=258)")
	_, err = NewTokenStream(StreamConfig{SeqLen: 4}, nil, 0, 258)
	require.ErrorContains(t, err, "nil TokenDocumentSource")
	_, err = NewTokenStream(StreamConfig{}, src, 0, 258)
	require.ErrorContains(t, err, "SeqLen")
}

// TestPretokenizeCancel: cancelling during the run stops it with the context's error, keeps only finished
// shards (no temporary files, no manifest), and a rerun starts over and finishes.
func TestPretokenizeCancel(t *testing.T) {
	in := t.TempDir()
	writePtkText(t, in, ptkTestDocs(t, 1000), 3)
	pattern := filepath.Join(in, "*.parquet")
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	_, err := Pretokenize(PretokenizeConfig{Input: pattern, OutDir: out, ShardRows: 5, Tokenizer: tokenizers.NewByteTokenizer(),
		Workers: 1, Context: ctx, Progress: func(PretokenizeProgress) {
			if calls++; calls == 1 {
				cancel()
			}
		}})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "has no manifest (rerun to start over)")
	require.NoFileExists(t, filepath.Join(out, PretokenizedManifestFile))
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	for _, e := range entries {
		require.Regexp(t, `^tokens-\d{5}\.parquet$`, e.Name(), "only finished shards remain")
	}
	_, err = Pretokenize(PretokenizeConfig{Input: pattern, OutDir: out, ShardRows: 5, Tokenizer: tokenizers.NewByteTokenizer()})
	require.NoError(t, err)
	openPtk(t, out)
}
