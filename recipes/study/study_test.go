package study

import (
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/evals/evalapi"
	"github.com/oryx-go/oryx/internal/jsonnum"
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
	require.Len(t, rep.Models, 3)
	for _, f := range []string{"report.md", "leaderboard.md"} {
		data, err := os.ReadFile(filepath.Join(c.Out, f))
		require.NoError(t, err)
		require.Contains(t, string(data), "oryx-tg")
		require.NotContains(t, string(data), "oryx-tg-p0", "the p = 0 / p = 1 controls are the decomposition's")
	}
	md, err := os.ReadFile(filepath.Join(c.Out, "report.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "no spread measured")
	require.Contains(t, string(md), "## Recall learning curves")
	require.Contains(t, string(md), "`"+ClaimB+"`")
	var sj map[string]any
	data, err := os.ReadFile(filepath.Join(c.Out, "study.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sj))
	require.Contains(t, sj, "backend")
	require.Greater(t, sj["elapsed_s"].(float64), 0.0)
	checkClaims(t, sj, 1)
	for _, m := range sj["models"].([]any) {
		for _, s := range m.(map[string]any)["schedules"].([]any) {
			mq := s.(map[string]any)["mqar"].(map[string]any)
			require.Contains(t, mq, "4")
			require.Contains(t, mq, "8")
		}
	}
	checkCurves(t, c, rep)
	require.Len(t, rep.Controls, 4, "Oryx-TG against each baseline, 2 half-token controls")
	lb, err := os.ReadFile(filepath.Join(c.Out, "leaderboard.json"))
	require.NoError(t, err)
	var l evalapi.Leaderboard
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
	for _, p := range []string{"loss.png", "mqar.png", "switch.png", "needle.png", "copy.png", "switch-oryx-tg.png", "mqar_curves.png"} {
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
	runJSON, err := os.ReadFile(filepath.Join(c.Out, "runs", "oryx-tg-tiny", "run.json"))
	require.NoError(t, err)
	require.Contains(t, string(runJSON), `"mode_training": "block-random"`)
	require.Contains(t, string(runJSON), `"lr_schedule": "constant"`)
}

// checkClaims: study.json holds the five claims in order, each with a verdict, a criterion and a summary
// that says how many seeds its standard errors come from.
func checkClaims(t *testing.T, sj map[string]any, seeds int) {
	t.Helper()
	cls := sj["claims"].([]any)
	require.Len(t, cls, 5)
	for i, id := range []string{ClaimA, ClaimAWithin5, ClaimB, ClaimBSelf, ClaimC} {
		cl := cls[i].(map[string]any)
		require.Equal(t, id, cl["id"])
		require.Contains(t, []string{Holds, Fails, Inconclusive, NotMeasurable}, cl["verdict"])
		require.NotEmpty(t, cl["criterion"])
		require.Contains(t, cl, "as_paper_states")
		if id == ClaimAWithin5 {
			continue
		}
		if seeds == 1 {
			require.Contains(t, cl["summary"], "no spread measured", id)
		} else {
			require.Contains(t, cl["summary"], fmt.Sprintf("over %d seeds", seeds), id)
		}
	}
}

// checkCurves: every run has a recall curve in each of its schedules, with a point at every validation
// (the quick config validates every 4 steps and at the end), accuracies in [0, 1], and a time per point.
func checkCurves(t *testing.T, c Config, rep *Report) {
	t.Helper()
	points := 0
	for s := c.Train.EvalEvery; s <= c.Train.Steps; s += c.Train.EvalEvery {
		if c.curveAt(s) {
			points++
		}
	}
	for _, m := range rep.Models {
		require.Len(t, m.Curves, len(schedulesOf(m.Variant)), m.RunDir)
		for _, s := range schedulesOf(m.Variant) {
			rc := m.Curves[s]
			require.NotNil(t, rc, "%s %s", m.RunDir, s)
			require.Len(t, rc.Tokens, points, "%s %s", m.RunDir, s)
			require.Equal(t, m.Summary.Tokens, rc.Tokens[points-1])
			for _, p := range c.CurvePairs {
				require.Len(t, rc.ByPairs[p], points)
			}
			for _, a := range rc.Accuracy {
				require.GreaterOrEqual(t, a, 0.0)
				require.LessOrEqual(t, a, 1.0)
			}
			require.Greater(t, rc.ProbeSeconds, 0.0)
		}
	}
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
	var f evalapi.Frontier
	require.NoError(t, json.Unmarshal(data, &f))
	require.Equal(t, c.FrontierBudgets, f.Budgets)
	require.Equal(t, []string{"last", "question", "random", "entropy"}, f.Policies)
	require.Equal(t, []string{evalapi.FrontierMQAR}, f.Tasks)
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

// TestRunRefusesOtherKind: an --out holding another kind of study's record (decompose.json, then the study
// asked for there) is refused before anything is trained, naming the directory and the kind there, so the
// study does not replace the decomposition's report.md and leaderboard beside its decompose.json; --force
// writes there anyway (here: goes on to the cancelled training).
func TestRunRefusesOtherKind(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct{ have, want string }{{KindDecompose, KindStudy}, {KindStudy, KindDecompose}, {KindScale, KindAttribution}} {
		out := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(out, tc.have+".json"), []byte("{}\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(out, "report.md"), []byte("# the "+tc.have+"\n"), 0o644))
		run := filepath.Join(out, "runs", "gdn-tiny-s9") // the other study's runs (a run directory's mark)
		require.NoError(t, os.MkdirAll(run, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(run, "metrics.jsonl"), nil, 0o644))
		c := map[string]Config{KindStudy: QuickConfig(), KindDecompose: QuickDecomposeConfig(false),
			KindAttribution: QuickAttributionConfig()}[tc.want]
		c.Out = out
		_, err := Run(ctx, c, testLog{t})
		require.Error(t, err, "%s into a directory holding %s.json", tc.want, tc.have)
		require.NotErrorIs(t, err, context.Canceled)
		require.ErrorContains(t, err, out)
		require.ErrorContains(t, err, fmt.Sprintf("kind %q (%s.json)", tc.have, tc.have))
		data, err := os.ReadFile(filepath.Join(out, "report.md"))
		require.NoError(t, err)
		require.Equal(t, "# the "+tc.have+"\n", string(data))
		c.Force = true
		_, err = Run(ctx, c, testLog{t})
		require.ErrorIs(t, err, context.Canceled, "--force")
	}
	// The same kind again is a rerun (it resumes or replaces its own output).
	out := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(out, "study.json"), []byte("{}\n"), 0o644))
	c := QuickConfig()
	c.Out = out
	_, err := Run(ctx, c, testLog{t})
	require.ErrorIs(t, err, context.Canceled)
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
	require.Equal(t, jsonnum.Float(1.25), byName["attention"].ValLoss)
	require.Equal(t, jsonnum.Float(1.5), byName["linear"].ValLoss)
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

// TestQuickStudySeeds: with two seeds every run trains twice (run directories <run>-tiny-s1, -s2, training
// seeds 1 and 2, different losses), the controls come per seed, and the claims use the mean ± SE over the
// seeds; the curves figure draws each seed.
func TestQuickStudySeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: trains three models twice")
	}
	c := QuickConfig()
	c.Out = t.TempDir()
	c.Runs, c.Seeds, c.FrontierExamples = c.Runs[:3], 2, 0
	c.Train.Steps, c.Train.EvalEvery, c.MQARExamples = 4, 2, 4
	c.NeedleDepths = []float64{0} // 2 samples (a probe score of one sample has no standard error: NaN)
	rep, err := Run(context.Background(), c, testLog{t})
	require.NoError(t, err)
	require.Len(t, rep.Models, 6)
	for i, m := range rep.Models {
		require.Equal(t, i%2+1, m.Seed)
		require.Equal(t, uint64(i%2+1), m.TrainSeed)
		require.Equal(t, filepath.Join("runs", fmt.Sprintf("%s-tiny-s%d", m.Name, m.Seed)), m.RunDir)
		require.DirExists(t, filepath.Join(c.Out, m.RunDir))
	}
	require.NotEqual(t, rep.Models[0].Summary.ValLoss, rep.Models[1].Summary.ValLoss, "the seeds train differently")
	require.Len(t, rep.Controls, 2*4, "per seed: 2 comparisons with oryx-tg, 2 half-token controls")
	var sj map[string]any
	data, err := os.ReadFile(filepath.Join(c.Out, "study.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sj))
	checkClaims(t, sj, 2)
	gap := rep.Claims[0].Numbers[snakeKey(compAttention)+"_gap"].(map[string]any)
	require.Equal(t, seFromSeeds, gap["se_from"])
	require.Len(t, gap["values"], 2)
	checkCurves(t, c, rep)
	require.FileExists(t, filepath.Join(c.Out, "mqar_curves.png"))
	require.NoFileExists(t, filepath.Join(c.Out, "frontier", "frontier.json"))
}

// TestQuickScale: study-scale at the quick budget — the three models at the tiny width (the wider ones
// cost twice as much; TestTrainingRuns checks their architecture) and two seeds, nothing evaluated after
// training — writes scale.json with a row per budget (the gaps and the recall ratio over the seeds), the
// one-seed spread, report.md and the plots.
func TestQuickScale(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: trains six quick runs")
	}
	c := QuickScaleConfig()
	c.Out = t.TempDir()
	c.Runs = c.Runs[:3]
	c.Train.Steps, c.Train.EvalEvery, c.ScaleBudgets = 4, 2, []int{2, 4}
	rep, err := Run(context.Background(), c, testLog{t})
	require.NoError(t, err)
	require.Len(t, rep.Models, 6)
	require.Empty(t, rep.Claims)
	require.NotNil(t, rep.Scale)
	require.Len(t, rep.Scale.Rows, 2, "1 width × 2 budgets")
	for i, row := range rep.Scale.Rows {
		require.Equal(t, "tiny", row.Size)
		require.Equal(t, c.ScaleBudgets[i], row.Steps)
		require.Len(t, row.GapAttention["values"], 2)
		require.Equal(t, seFromSeeds, row.GapAttention["se_from"])
		require.Len(t, row.MixedAccuracy["values"], 2)
		require.Contains(t, row.TransformerAccuracy, "mean")
		if row.TransformerAccuracy["mean"].(float64) > 0 { // at chance it may be 0 after 4 steps: no ratio
			require.NotNil(t, row.RecallRatio)
		}
	}
	for _, f := range []string{"scale.json", "report.md", "scale.png", "mqar_curves.png", "loss.png"} {
		require.FileExists(t, filepath.Join(c.Out, f))
	}
	require.NoFileExists(t, filepath.Join(c.Out, "study.json"))
	require.NoDirExists(t, filepath.Join(c.Out, "results"), "nothing evaluated")
	md, err := os.ReadFile(filepath.Join(c.Out, "report.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "| tiny |")
}

// TestQuickAttribution: the attribution at a tiny budget, on the reference and two of its single-change
// runs (TestTrainingRuns checks every run's change), writes attribution.json and a report.md table with a
// row each, and the options reach the model.
func TestQuickAttribution(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: trains three quick runs")
	}
	c := QuickAttributionConfig()
	c.Out = t.TempDir()
	runs, err := SelectRuns(c.Runs, "oryx-tg,oryx-tg-key-l2,oryx-tg-key-preconv")
	require.NoError(t, err)
	c.Runs, c.Train.Steps, c.Train.EvalEvery, c.MQARExamples = runs, 4, 2, 4
	rep, err := Run(context.Background(), c, testLog{t})
	require.NoError(t, err)
	require.NotNil(t, rep.Attribution)
	require.Equal(t, "oryx-tg", rep.Attribution.Reference)
	require.Len(t, rep.Attribution.Rows, 3)
	for _, row := range rep.Attribution.Rows {
		for _, s := range []string{"attention", "linear", "mixed"} {
			require.Contains(t, row.MQAR, s, row.Run)
			require.Contains(t, row.TokensTo50, s, row.Run)
		}
		require.Len(t, row.ValLoss, 3, row.Run)
	}
	require.NotEqual(t, rep.Models[0].Summary.ValLoss, rep.Models[1].Summary.ValLoss, "the key norm changes the model")
	md, err := os.ReadFile(filepath.Join(c.Out, "report.md"))
	require.NoError(t, err)
	for _, r := range runs {
		require.Contains(t, string(md), "| "+r.Name+" | ")
	}
	require.FileExists(t, filepath.Join(c.Out, "attribution.json"))
	require.FileExists(t, filepath.Join(c.Out, "mqar_curves.png"))
	require.FileExists(t, filepath.Join(c.Out, "mqar.png"))
}

// TestTrainingRuns: what each training of the attribution, study-scale and a seeded study trains — its
// one change, its width, its seed and its run directory — without training.
func TestTrainingRuns(t *testing.T) {
	c := AttributionConfig()
	want := map[string]func(r train.Run) bool{
		"oryx-tg": func(r train.Run) bool {
			return r.Train.BlockLen == 32 && r.Train.AttentionProb == 0.5 && r.Train.LR == 3e-3 && r.Model.AttentionKeyNorm == "" &&
				r.Model.AttentionKeySource == ""
		},
		"oryx-tg-block8":      func(r train.Run) bool { return r.Train.BlockLen == 8 },
		"oryx-tg-block64":     func(r train.Run) bool { return r.Train.BlockLen == 64 },
		"oryx-tg-block128":    func(r train.Run) bool { return r.Train.BlockLen == 128 },
		"oryx-tg-p025":        func(r train.Run) bool { return r.Train.AttentionProb == 0.25 },
		"oryx-tg-p075":        func(r train.Run) bool { return r.Train.AttentionProb == 0.75 },
		"oryx-tg-key-l2":      func(r train.Run) bool { return r.Model.AttentionKeyNorm == oryx.AttentionKeyL2 },
		"oryx-tg-key-preconv": func(r train.Run) bool { return r.Model.AttentionKeySource == oryx.AttentionKeyProjection },
		"oryx-tg-lr1e-3":      func(r train.Run) bool { return r.Train.LR == 1e-3 && r.Train.BlockLen == 32 },
		"oryx-tg-complementary": func(r train.Run) bool {
			return r.Train.ModeTraining == train.ModeTrainingComplementary && r.Train.AttentionProb == 0.5
		},
	}
	require.Len(t, c.Runs, len(want))
	for i, rs := range c.Runs {
		r, err := trainingRun(c, i, io.Discard)
		require.NoError(t, err)
		require.True(t, want[rs.Name](r), "%s: %+v %+v", rs.Name, r.Train, r.Model)
		require.Equal(t, 700, r.Train.Steps)
		require.Equal(t, uint64(1), r.Train.Seed)
		require.Equal(t, filepath.Join("runs/study-attribution/runs", rs.Name+"-tiny"), r.Out)
		require.NotNil(t, r.Probe)
		require.Equal(t, rs.Change == "", rs.Name == "oryx-tg")
	}

	s := ScaleConfig()
	require.Equal(t, 1050, s.Train.Steps)
	require.Equal(t, []int{700, 1050}, s.ScaleBudgets)
	require.NoError(t, checkConfig(s))
	require.True(t, s.curveAt(700) && s.curveAt(1050) && !s.curveAt(750), "the budgets are curve steps")
	for i := range s.Trainings() {
		r, err := trainingRun(s, i, io.Discard)
		require.NoError(t, err)
		j := s.jobs()[i]
		require.Equal(t, uint64(j.Seed), r.Train.Seed)
		tiny, err := oryx.Preset("tiny", j.Run.Variant)
		require.NoError(t, err)
		w := j.Run.width()
		require.Equal(t, []int{w * tiny.DModel, w * tiny.Heads, w * tiny.MLPHidden, tiny.KeyDim, tiny.ValueDim, tiny.Layers},
			[]int{r.Model.DModel, r.Model.Heads, r.Model.MLPHidden, r.Model.KeyDim, r.Model.ValueDim, r.Model.Layers}, s.label(j))
	}
	_, err := trainingRun(s, s.Trainings(), io.Discard)
	require.Error(t, err)
}

// TestQuickDecompose: the decomposition at a tiny budget (2 seeds, 4 steps, MQAR only) trains its six runs per
// seed, splits (a)'s gap in each mode on the language and the mixture (10 parts × 2 sets, every part with a value
// per seed), decides the claims over the seeds, measures the one-seed spreads on seeds 2 and 3 (never the
// demo's seed 1) and writes decompose.json and report.md.
func TestQuickDecompose(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: trains twelve quick runs")
	}
	c := QuickDecomposeConfig(false)
	c.Out, c.Evaluation = t.TempDir(), EvalMQAR
	c.Train.Steps, c.Train.EvalEvery = 4, 2
	rep, err := Run(context.Background(), c, testLog{t})
	require.NoError(t, err)
	require.Len(t, rep.Models, 12)
	d := rep.Decompose
	require.NotNil(t, d)
	require.Equal(t, []int{2, 3}, d.Seeds)
	require.Len(t, d.Rows, 20)
	for _, row := range d.Rows {
		require.Len(t, row.Gap["values"], 2, "%s %s %s", row.Set, row.Mode, row.Part)
		require.Contains(t, row.Gap, "lower")
	}
	require.Len(t, rep.Claims, 5)
	require.Contains(t, d.Spreads, spreadGapAttention)
	require.Equal(t, []int{2, 3}, d.Spreads[spreadGapLinear].Seeds)
	for _, m := range rep.Models {
		require.NotEmpty(t, m.MixtureLoss, m.Name)
	}
	require.Contains(t, d.SpreadsLiteral("test"), `"a_gap_linear": {SD: `)
	for _, f := range []string{"decompose.json", "report.md"} {
		require.FileExists(t, filepath.Join(c.Out, f))
	}
	md, err := os.ReadFile(filepath.Join(c.Out, "report.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "| mixture | linear | architecture cost |")
}
