package study

import (
	"context"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/leaderboard"
	"github.com/stretchr/testify/require"
)

// TestQuickStudyArtefacts runs the quick study (the CI smoke test of the main job) and checks that every
// artefact is produced and well-formed. The claims' numbers are reported, not asserted.
func TestQuickStudyArtefacts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: trains three models")
	}
	c := QuickConfig()
	c.Out = t.TempDir()
	rep, err := Run(context.Background(), c, testLog{t})
	require.NoError(t, err)
	require.Len(t, rep.Models, 3)
	for _, f := range []string{"report.md", "leaderboard.md"} {
		data, err := os.ReadFile(filepath.Join(c.Out, f))
		require.NoError(t, err)
		require.Contains(t, string(data), "oryx-tg")
	}
	var sj Report
	data, err := os.ReadFile(filepath.Join(c.Out, "study.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sj))
	require.NotEmpty(t, sj.Claims)
	lb, err := os.ReadFile(filepath.Join(c.Out, "leaderboard.json"))
	require.NoError(t, err)
	var l leaderboard.Leaderboard
	require.NoError(t, json.Unmarshal(lb, &l))
	require.Len(t, l.Runs, 5, "transformer/attention, gdn/linear, oryx-tg × 3 schedules")
	for _, r := range l.Runs {
		require.Contains(t, r.Tasks, "mqar")
		require.Contains(t, r.Tasks, "mini_niah")
		require.Contains(t, r.Tasks, "copy")
	}
	files, err := filepath.Glob(filepath.Join(c.Out, "results", "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 5)
	for _, p := range []string{"loss.png", "mqar.png", "needle.png", "copy.png", "switch-oryx-tg.png"} {
		f, err := os.Open(filepath.Join(c.Out, p))
		require.NoError(t, err)
		_, err = png.Decode(f)
		f.Close()
		require.NoError(t, err, p)
	}
	for _, m := range rep.Models {
		require.FileExists(t, filepath.Join(c.Out, "runs", string(m.Variant)+"-tiny", "curves.png"))
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) { l.t.Log(string(p)); return len(p), nil }

func TestCopyPrompts(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	ps, err := copyPrompts(tok, 128, 5, 1)
	require.NoError(t, err)
	require.Len(t, ps, 5)
	for _, p := range ps {
		require.Len(t, p.Tokens, 128)
		text := tok.Decode(p.Tokens)
		require.True(t, strings.HasSuffix(text, "\ncopy: "+p.Answer+" ="), text)
		require.Equal(t, " =", tok.Decode(p.Tokens[p.AttentionFrom:]))
		require.Equal(t, 1.0, p.score(" "+p.Answer+"."))
		require.Equal(t, 0.0, p.score(" zz"))
	}
}

// TestRunCancelled: a cancelled context stops the study before it trains anything.
func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := QuickConfig()
	c.Out = t.TempDir()
	_, err := Run(ctx, c, testLog{t})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "interrupted before training "+string(c.Variants[0])+"-tiny")
	require.NoDirExists(t, filepath.Join(c.Out, "runs"))
}
