package niah

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/stretchr/testify/require"
)

// Shared data, used when present (tests skip with a message otherwise). Paths are relative to this package.
const (
	sharedEssays = "../../shared/data/hf/ruler_essays/essays.parquet"
	sharedWords  = "../../shared/data/hf/ruler_words/words.parquet"
	sharedNeoX   = "../../shared/data/tokenizers/gpt-neox-20b/tokenizer.json"
)

// needShared skips the test when a shared file is absent.
func needShared(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("shared data %s not present (%v): skipping", p, err)
		}
	}
}

// neox loads the shared GPT-NeoX-20B tokenizer or skips.
func neox(t *testing.T) tokenizers.Tokenizer {
	t.Helper()
	needShared(t, sharedNeoX)
	tok, err := tokenizers.Load(sharedNeoX)
	require.NoError(t, err)
	return tok
}

// essayRow is the layout of the essays parquet.
type essayRow struct {
	Title *string `parquet:"title,optional"`
	Text  *string `parquet:"text,optional"`
}

// fixtureEssays writes a small essays parquet made of generated text (about words words over 3 essays, with
// '.', '?', '!' and quoted sentence ends, newlines and double spaces) and returns its path.
func fixtureEssays(t *testing.T, words int) string {
	t.Helper()
	vocab := strings.Fields("the a model reads every token of long text and keeps state in memory while " +
		"attention looks back at all tokens so recall is easy but costly linear layers compress history")
	var rows []essayRow
	for e := range 3 {
		var sb strings.Builder
		w := 0
		for s := 0; w < words/3; s++ {
			n := 5 + (s*7+e)%9
			for i := range n {
				word := vocab[(s*13+i*5+e)%len(vocab)]
				if i == 0 {
					word = strings.ToUpper(word[:1]) + word[1:]
				}
				sb.WriteString(word)
				if i < n-1 {
					sb.WriteString(" ")
				}
			}
			w += n
			switch s % 11 {
			case 3:
				sb.WriteString("?")
			case 7:
				sb.WriteString("!\"")
			default:
				sb.WriteString(".")
			}
			switch s % 6 {
			case 5:
				sb.WriteString("\n\n")
			case 2:
				sb.WriteString("  ")
			default:
				sb.WriteString(" ")
			}
		}
		title, text := fmt.Sprintf("essay%d", e), sb.String()
		rows = append(rows, essayRow{&title, &text})
	}
	path := filepath.Join(t.TempDir(), "essays.parquet")
	require.NoError(t, hfparquet.WriteFile(path, rows))
	return path
}
