package lmeval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness/harnesstest"
	"github.com/stretchr/testify/require"
)

// Row types in the HF column layouts (shared/data/hf/README.md), for writing fixtures.
type (
	piqaRow struct {
		Goal  string `parquet:"goal"`
		Sol1  string `parquet:"sol1"`
		Sol2  string `parquet:"sol2"`
		Label int64  `parquet:"label"`
	}
	piqaNoSol2Row struct {
		Goal  string `parquet:"goal"`
		Sol1  string `parquet:"sol1"`
		Label int64  `parquet:"label"`
	}
	hellaRow struct {
		Ind           int32    `parquet:"ind"`
		ActivityLabel string   `parquet:"activity_label"`
		CtxA          string   `parquet:"ctx_a"`
		CtxB          string   `parquet:"ctx_b"`
		Ctx           string   `parquet:"ctx"`
		Endings       []string `parquet:"endings,list"`
		Label         string   `parquet:"label"`
	}
	winoRow struct {
		Sentence string `parquet:"sentence"`
		Option1  string `parquet:"option1"`
		Option2  string `parquet:"option2"`
		Answer   string `parquet:"answer"`
	}
	arcChoices struct {
		Text  []string `parquet:"text,list"`
		Label []string `parquet:"label,list"`
	}
	arcRow struct {
		ID        string     `parquet:"id"`
		Question  string     `parquet:"question"`
		Choices   arcChoices `parquet:"choices"`
		AnswerKey string     `parquet:"answerKey"`
	}
	siqaRow struct {
		Context  string `parquet:"context"`
		Question string `parquet:"question"`
		AnswerA  string `parquet:"answerA"`
		AnswerB  string `parquet:"answerB"`
		AnswerC  string `parquet:"answerC"`
		Label    string `parquet:"label"`
	}
	boolqRow struct {
		Question string `parquet:"question"`
		Passage  string `parquet:"passage"`
		Idx      int32  `parquet:"idx"`
		Label    int64  `parquet:"label"`
	}
	textRow struct {
		Text string `parquet:"text"`
	}
	pageRow struct {
		Page string `parquet:"page"`
	}
)

// writeFixture writes rows to <dir>/<rel> and returns dir (a DataRoot).
func writeFixture[T any](t *testing.T, dir, rel string, rows []T) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, hfparquet.WriteFile(p, rows))
	return dir
}

// sharedHF returns shared/data/hf (searched upwards) or skips.
func sharedHF(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	require.NoError(t, err)
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "data")
		if st, err := os.Stat(filepath.Join(p, "hf")); err == nil && st.IsDir() {
			return p
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	t.Skipf("shared data not found: no shared/data/hf in %s or above", wd)
	return ""
}

// fake returns a FakeModel over the byte tokenizer (EOS 256 is the prefix token, width 258).
func fake() *harnesstest.FakeModel { return harnesstest.NewFakeModel(tokenizers.NewByteTokenizer()) }
