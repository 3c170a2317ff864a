package study

import (
	"context"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/evals/evalrun"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/recipes/train"
)

// TestQuickStudyArtefacts runs the quick study (the CI smoke test of the main job) and checks that every
// artefact is produced and well-formed. The claims' numbers are reported, not asserted. ORYX_KEEP_PLOTS=DIR
// keeps the study's output (figures included) in DIR for looking at it.
func TestQuickStudyArtefacts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: trains three models")
	}
	c := QuickConfig()
	c.Out = t.TempDir()
	if d := os.Getenv("ORYX_KEEP_PLOTS"); d != "" {
		c.Out = d
	}
	rep, err := Run(context.Background(), c, testLog{t})
	require.NoError(t, err)
	require.Len(t, rep.Models, 6)
	for _, f := range []string{"report.md", "leaderboard.md"} {
		data, err := os.ReadFile(filepath.Join(c.Out, f))
		require.NoError(t, err)
		require.Contains(t, string(data), "oryx-tg-complementary")
	}
	var sj map[string]any
	data, err := os.ReadFile(filepath.Join(c.Out, "study.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sj))
	require.Contains(t, sj, "backend")
	require.Greater(t, sj["elapsed_s"].(float64), 0.0)
	cls := sj["claims"].([]any)
	require.Len(t, cls, 3)
	for i, id := range []string{"a", "b", "c"} {
		cl := cls[i].(map[string]any)
		require.Equal(t, id, cl["id"])
		require.Contains(t, []string{Holds, Fails, NotMeasurable}, cl["verdict"])
		require.NotEmpty(t, cl["criterion"])
	}
	for _, m := range sj["models"].([]any) {
		for _, s := range m.(map[string]any)["schedules"].([]any) {
			mq := s.(map[string]any)["mqar"].(map[string]any)
			require.Contains(t, mq, "4")
			require.Contains(t, mq, "8")
		}
	}
	require.Len(t, rep.Controls, 8, "6 comparisons with the Oryx runs, 2 half-token controls")
	lb, err := os.ReadFile(filepath.Join(c.Out, "leaderboard.json"))
	require.NoError(t, err)
	var l evalrun.Leaderboard
	require.NoError(t, json.Unmarshal(lb, &l))
	require.Len(t, l.Runs, 14, "transformer/attention, gdn/linear, 4 oryx-tg runs × 3 schedules")
	for _, r := range l.Runs {
		require.Contains(t, r.Tasks, "mqar")
		require.Contains(t, r.Tasks, "mini_niah")
		require.Contains(t, r.Tasks, "copy")
	}
	files, err := filepath.Glob(filepath.Join(c.Out, "results", "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 14)
	for _, p := range []string{"loss.png", "mqar.png", "switch.png", "needle.png", "copy.png", "switch-oryx-tg.png"} {
		f, err := os.Open(filepath.Join(c.Out, p))
		require.NoError(t, err)
		_, err = png.Decode(f)
		f.Close()
		require.NoError(t, err, p)
	}
	for _, m := range rep.Models {
		require.FileExists(t, filepath.Join(c.Out, "runs", m.Name+"-tiny", "curves.png"))
	}
	checkFrontierArtefacts(t, c, rep)
	runJSON, err := os.ReadFile(filepath.Join(c.Out, "runs", "oryx-tg-complementary-tiny", "run.json"))
	require.NoError(t, err)
	require.Contains(t, string(runJSON), `"mode_training": "complementary"`)
	require.Contains(t, string(runJSON), `"lr_schedule": "constant"`)
}

// checkFrontierArtefacts: the study's attention-budget frontier read oryx-tg at every budget under every
// policy, wrote frontier.json and its plots and the sections of study.json and report.md, and its F = 0 and
// F = 1 points are the all-linear and all-attention MQAR accuracies of the same examples, which the
// evaluation measured under the plain schedules.
func checkFrontierArtefacts(t *testing.T, c Config, rep *Report) {
	t.Helper()
	fr := rep.Frontier
	require.NotNil(t, fr)
	require.Empty(t, fr.Skipped)
	require.Equal(t, "oryx-tg", fr.Run)
	require.Greater(t, fr.Seconds, 0.0)
	dir := filepath.Join(c.Out, FrontierDir)
	for _, p := range []string{"frontier.png", "frontier_fraction.png"} {
		f, err := os.Open(filepath.Join(dir, p))
		require.NoError(t, err)
		_, err = png.Decode(f)
		f.Close()
		require.NoError(t, err, p)
	}
	data, err := os.ReadFile(filepath.Join(dir, "frontier.json"))
	require.NoError(t, err)
	var f evalrun.Frontier
	require.NoError(t, json.Unmarshal(data, &f))
	require.Equal(t, c.FrontierBudgets, f.Budgets)
	require.Equal(t, []string{"last", "question", "random", "entropy"}, f.Policies)
	require.Equal(t, []string{evalrun.FrontierMQAR}, f.Tasks)
	require.Empty(t, f.Failed)
	require.Len(t, f.Points, len(c.FrontierBudgets)*len(c.FrontierPolicies))
	tokens := int64(c.FrontierExamples * len(c.ClaimPairs) * c.Train.SeqLen)
	for _, pol := range f.Policies {
		for _, b := range f.Budgets {
			n := 0
			for _, p := range f.Points {
				if p.Policy != pol || p.Budget != b {
					continue
				}
				n++
				require.Equal(t, tokens, p.Tokens, "%+v", p)
				require.InDelta(t, b, p.AttentionFraction, 0.01, "%+v", p)
				require.GreaterOrEqual(t, p.Value, 0.0)
				require.LessOrEqual(t, p.Value, 1.0)
			}
			require.Equal(t, 1, n, "one point for %s at %v", pol, b)
		}
	}
	require.Equal(t, f.Points, fr.Points, "study.json holds frontier.json's points")
	require.Len(t, fr.ByPolicy, len(c.FrontierPolicies))
	lin, att, ok := pooledMQAR(c, rep, "oryx-tg")
	require.True(t, ok)
	require.InDelta(t, lin, float64(fr.AllLinear), 1e-12, "F = 0 is the linear schedule on the same examples")
	require.InDelta(t, att, float64(fr.AllAttention), 1e-12, "F = 1 is the attention schedule on the same examples")
	for _, cv := range fr.ByPolicy {
		require.Equal(t, float64(fr.AllLinear), cv.Accuracy[0], cv.Policy)
		require.Equal(t, float64(fr.AllAttention), cv.Accuracy[len(cv.Accuracy)-1], cv.Policy)
	}

	var sj struct {
		Frontier map[string]any `json:"frontier"`
	}
	data, err = os.ReadFile(filepath.Join(c.Out, "study.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sj))
	require.Equal(t, "oryx-tg", sj.Frontier["run"])
	require.Len(t, sj.Frontier["by_policy"], len(c.FrontierPolicies))
	require.Len(t, sj.Frontier["points"], len(f.Points))
	md, err := os.ReadFile(filepath.Join(c.Out, "report.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "## Attention budget frontier")
	require.Contains(t, string(md), "![attention budget frontier](frontier/frontier.png)")
	for _, pol := range f.Policies {
		require.Contains(t, string(md), "\n| "+pol+" | ")
	}
	require.Contains(t, string(md), "- Check: the same examples")
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) { l.t.Log(string(p)); return len(p), nil }

// TestRunCancelled: a cancelled context stops the study before it trains anything.
func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := QuickConfig()
	c.Out = t.TempDir()
	_, err := Run(ctx, c, testLog{t})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "interrupted before training "+c.Runs[0].Name+"-tiny")
	require.NoDirExists(t, filepath.Join(c.Out, "runs"))
}

// TestMixedIsNotBlockRandom: the training validates multi-mixer runs in block-random modes, which is not
// the mixed schedule (linear context, attention from the question on). The mixed row has no validation
// loss (null in study.json, "–" in the report), attention and linear take theirs, and the report gives the
// block-random loss under its own name — also from a run directory of the old layout, where it was "mixed".
func TestMixedIsNotBlockRandom(t *testing.T) {
	var sum train.Summary
	require.NoError(t, json.Unmarshal([]byte(`{"val_loss":{"attention":1.25,"linear":1.5,"mixed":1.375}}`), &sum))
	rows := newScheduleResults(oryx.OryxTG, &sum)
	require.Len(t, rows, 3)
	byName := map[string]ScheduleResult{}
	for _, r := range rows {
		byName[r.Schedule] = r
	}
	require.Equal(t, rundir.Float(1.25), byName["attention"].ValLoss)
	require.Equal(t, rundir.Float(1.5), byName["linear"].ValLoss)
	require.True(t, math.IsNaN(float64(byName["mixed"].ValLoss)))
	data, err := json.Marshal(byName["mixed"])
	require.NoError(t, err)
	require.Contains(t, string(data), `"val_loss":null`)

	rep := &Report{Models: []*ModelResult{{RunSpec: RunSpec{Name: "oryx-tg", Variant: oryx.OryxTG}, Summary: &sum, Schedules: rows}}}
	md := markdown(QuickConfig(), rep)
	require.Contains(t, md, "| oryx-tg |  | 0 | mixed | – |")
	require.Contains(t, md, "| oryx-tg |  | 0 | attention | 1.2500 |")
	require.Contains(t, md, "block-random modes (their training distribution) is a different schedule: oryx-tg 1.3750.")
	_, err = json.Marshal(rep)
	require.NoError(t, err)
}
