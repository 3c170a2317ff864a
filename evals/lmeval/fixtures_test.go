package lmeval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness/harnesstest"
	"github.com/oryx-go/oryx/evals/lmeval/lmevaltest"
	"github.com/stretchr/testify/require"
)

// Row types in the HF column layouts (lmevaltest), for writing fixtures.
type (
	piqaRow    = lmevaltest.PIQA
	hellaRow   = lmevaltest.HellaSwag
	winoRow    = lmevaltest.WinoGrande
	arcChoices = lmevaltest.ARCChoices
	arcRow     = lmevaltest.ARC
	siqaRow    = lmevaltest.SocialIQA
	boolqRow   = lmevaltest.BoolQ
	textRow    = lmevaltest.Text
	pageRow    = lmevaltest.Page
	// piqaNoSol2Row is PIQA without its sol2 column (a missing-column test).
	piqaNoSol2Row struct {
		Goal  string `parquet:"goal"`
		Sol1  string `parquet:"sol1"`
		Label int64  `parquet:"label"`
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
