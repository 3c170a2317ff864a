package lmeval

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/harness/harnesstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRealData builds requests from the shared HF-layout files with the GPT-NeoX tokenizer: document
// counts (docs/evals.md §3), choices per document, the WikiText word and byte totals, and a full run of
// wikitext and lambada_openai through the FakeModel (no truncation at max_length 2048). Skipped when
// shared/data is absent.
func TestRealData(t *testing.T) {
	shared := sharedHF(t)
	tokPath := filepath.Join(shared, "tokenizers", "gpt-neox-20b", "tokenizer.json")
	tok, err := tokenizers.Load(tokPath)
	if err != nil {
		t.Skipf("GPT-NeoX tokenizer not available: %v", err)
	}
	cfg := harness.Config{DataRoot: filepath.Join(shared, "hf")}
	m := harnesstest.NewFakeModel(tok)
	m.Width = 50280 // Mamba's padded vocabulary
	want := map[string]struct{ docs, choices int }{
		WikiText: {62, 0}, Lambada: {5153, 1}, PIQA: {1838, 2}, HellaSwag: {10042, 4}, WinoGrande: {1267, 2},
		ARCEasy: {2376, 4}, ARCChallenge: {1172, 4}, SocialIQA: {1954, 3}, BoolQ: {3270, 2},
	}
	for _, name := range Names {
		start := time.Now()
		plan, err := New(name, cfg).Build(m, harness.Options{Limit: 3})
		require.NoError(t, err, name)
		assert.Equal(t, want[name].docs, plan.TotalDocs, name)
		assert.Equal(t, 3, plan.Docs, name)
		if c := want[name].choices; c > 0 {
			assert.Equal(t, 3*c, len(plan.LL), name)
		}
		for _, it := range plan.LL {
			require.NotEmpty(t, it.Req.Context, name)
			require.NotEmpty(t, it.Req.Continuation, name)
		}
		t.Logf("%-14s %5d docs; doc 0 request 0: %d context + %d continuation tokens, continuation %.60q (%v)",
			name, plan.TotalDocs, len(plan.LL[0].Req.Context), len(plan.LL[0].Req.Continuation),
			tok.Decode(plan.LL[0].Req.Continuation), time.Since(start).Round(time.Millisecond))
	}

	// WikiText: the word and byte denominators over the 62 original pages.
	tab, err := harness.ReadTable(cfg.Path(WikiText, DefaultPaths[WikiText]), []string{"page"})
	require.NoError(t, err)
	words, nbytes := 0, 0
	for _, r := range tab.Rows {
		p, err := r.Str("page")
		require.NoError(t, err)
		words += harness.PyWordCount(p)
		nbytes += len(p)
	}
	assert.Equal(t, 241335, words)
	assert.Equal(t, 1290527, nbytes)

	// Full runs: every wikitext window and every LAMBADA document, scored by the fake model.
	for _, name := range []string{WikiText, Lambada} {
		start := time.Now()
		res, err := harness.Run(m, New(name, cfg), harness.Options{BootstrapIters: -1})
		require.NoError(t, err, name)
		assert.Equal(t, 0, res.Truncated, name)
		t.Logf("%s: %d docs, %d requests, %d tokens run, %v", name, res.Docs, res.Requests, res.Tokens, time.Since(start).Round(time.Millisecond))
	}
}
