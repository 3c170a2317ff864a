package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type tokenizeTextRow struct {
	Text string `parquet:"text"`
}

// writeTokenizeCorpus writes n small documents (every 10th empty) over two parquet files in a new directory.
func writeTokenizeCorpus(t *testing.T, n int) (dir string, docs []string) {
	t.Helper()
	dir = t.TempDir()
	for i := range n {
		d := fmt.Sprintf("document %d: the quick brown fox %s", i, strings.Repeat("jumps ", i%5))
		if i%10 == 3 {
			d = ""
		}
		docs = append(docs, d)
	}
	half := n / 2
	for f, part := range [][]string{docs[:half], docs[half:]} {
		var rows []tokenizeTextRow
		for _, d := range part {
			rows = append(rows, tokenizeTextRow{Text: d})
		}
		require.NoError(t, hfparquet.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.parquet", f)), rows))
	}
	return dir, docs
}

// TestTokenizeEndToEnd: oryx tokenize on a small corpus with the bytes tokenizer writes shards a token stream
// reads back as the documents' bytes.
func TestTokenizeEndToEnd(t *testing.T) {
	in, docs := writeTokenizeCorpus(t, 50)
	out := filepath.Join(t.TempDir(), "tok")
	var stdout, stderr bytes.Buffer
	require.NoError(t, tokenizeCmd([]string{"--input", filepath.Join(in, "*.parquet"), "--tokenizer", "bytes",
		"--out", out, "--shard-rows", "12"}, &stdout, &stderr))

	var want [][]int32
	var tokens int
	for _, d := range docs {
		if d == "" {
			continue
		}
		ids := make([]int32, len(d))
		for i := range len(d) {
			ids[i] = int32(d[i])
		}
		want = append(want, ids)
		tokens += len(d)
	}
	shards := (len(want) + 11) / 12
	summary := stdout.String()
	assert.Contains(t, summary, fmt.Sprintf("tokenized %d documents, %d tokens", len(want), tokens))
	assert.Contains(t, summary, fmt.Sprintf("into %d shards in %s in ", shards, out))
	assert.Contains(t, summary, "tokens/s")
	assert.Contains(t, summary, "skipped 5 (5 empty, 0 null)")
	assert.Contains(t, summary, "tokenizer bytes (vocab 258, eos 256)")
	assert.Equal(t, 1, strings.Count(summary, "\n"))

	// Not a terminal: a line per 10% step, ending at 100%, no carriage returns.
	progress := stderr.String()
	assert.NotContains(t, progress, "\r")
	assert.Contains(t, progress, "tokenize: 100% ")
	assert.Contains(t, progress, fmt.Sprintf("(50/50 rows, %d tokens, %d shards)", tokens, shards))
	assert.LessOrEqual(t, strings.Count(progress, "\n"), 10)

	src, err := datasets.OpenPretokenized(out)
	require.NoError(t, err)
	defer src.Close()
	require.NoError(t, src.CheckTokenizer(tokenizers.NewByteTokenizer()))
	var got [][]int32
	for {
		ids, err := src.NextTokens()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		got = append(got, ids)
	}
	require.Equal(t, want, got)
	require.Len(t, src.Manifest().Shards, shards)

	// A second run into the finished directory is refused.
	err = tokenizeCmd([]string{"--input", in, "--tokenizer", "bytes", "--out", out}, &stdout, &stderr)
	require.ErrorContains(t, err, filepath.Join(out, "manifest.json")+" already exists")
}

// TestTokenizeFlagErrors: bad flags are refused with errors naming the flag (or the pattern).
func TestTokenizeFlagErrors(t *testing.T) {
	in, _ := writeTokenizeCorpus(t, 4)
	out := t.TempDir()
	nothing := filepath.Join(in, "nothing-*.parquet")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tokenizer", "bytes", "--out", out}, "--input PATTERN is required"},
		{[]string{"--input", in, "--tokenizer", "bytes"}, "--out DIR is required"},
		{[]string{"--input", in, "--out", out}, "--tokenizer is required"},
		{[]string{"--input", in, "--out", out, "--tokenizer", "gpt2"}, `--tokenizer: tokenizers: unknown tokenizer "gpt2"`},
		{[]string{"--input", in, "--out", out, "--tokenizer", filepath.Join(in, "missing.json")}, "--tokenizer: "},
		{[]string{"--input", in, "--out", out, "--tokenizer", "bytes", "--shard-rows", "0"}, "--shard-rows must be >= 1"},
		{[]string{"--input", in, "--out", out, "--tokenizer", "bytes", "--workers", "-1"}, "--workers must be >= 0"},
		{[]string{"--input", in, "--out", out, "--tokenizer", "bytes", "--column", ""}, "--column must not be empty"},
		{[]string{"--input", nothing, "--out", out, "--tokenizer", "bytes"}, `"` + nothing + `" matches no files`},
		{[]string{"--input", in, "--out", out, "--tokenizer", "bytes", "--column", "body"}, `no column "body"`},
		{[]string{"--input", in, "--out", out, "--tokenizer", "bytes", "extra"}, "unexpected arguments"},
	} {
		var stdout, stderr bytes.Buffer
		err := tokenizeCmd(c.args, &stdout, &stderr)
		require.Error(t, err, strings.Join(c.args, " "))
		assert.Contains(t, err.Error(), c.want, strings.Join(c.args, " "))
		assert.Empty(t, stdout.String())
	}
}
