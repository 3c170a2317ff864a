package study

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/evals/evalapi"
	"github.com/oryx-go/oryx/internal/jsonnum"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/recipes/train"
)

// The verdicts' hostile round: degenerate per-seed values, broken loss records, runs missing from a
// decomposition and numbers that JSON cannot hold. A verdict is never holds (nor fails) on a value that is
// not a finite number or on data that is missing, and study.json stays valid JSON.

// TestHostileNonFiniteValuesDecideNothing: a NaN or an infinity among the per-seed values of a claim's
// quantity leaves it without an estimate, whatever the seeds and the recorded spread. Before, one seed with a
// recorded spread and a gap of −Inf (claim (a)) or a ratio of +Inf (claim (b)) held: bounds of ±Inf are on
// every side of a threshold.
func TestHostileNonFiniteValuesDecideNothing(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	c := Default()
	own := int(c.trainSeed(1))
	spread := Spread{SD: 0.01, Seeds: []int{own + 1, own + 2, own + 3}, Width: c.mainWidth(), Steps: c.Train.Steps,
		LRSchedule: c.Train.LRSchedule, Source: "test"}
	spreads := map[string]Spread{spreadGapAttention: spread, spreadGapLinear: spread}
	fine := []float64{-0.1, -0.11, -0.12}
	withSpreads(t, spreads, func() {
		for _, cs := range []struct {
			name     string
			att, lin []float64
		}{
			{"one seed, −Inf, recorded spread", []float64{-inf}, []float64{-0.1}},
			{"one seed, NaN, recorded spread", []float64{nan}, []float64{-0.1}},
			{"one seed, +Inf, recorded spread", []float64{inf}, []float64{-0.1}},
			{"two seeds at −Inf", []float64{-inf, -inf}, []float64{-0.1, -0.1}},
			{"a NaN among three seeds", []float64{-0.1, nan, -0.12}, fine},
			{"an Inf among three seeds", []float64{-0.1, -inf, -0.12}, fine},
		} {
			cl := claimA(c, gapComps(cs.att, cs.lin))
			require.Equal(t, Inconclusive, cl.Verdict, "%s: %s", cs.name, cl.Summary)
			require.Contains(t, cl.Summary, "no value", cs.name)
			_, err := json.Marshal(cl)
			require.NoError(t, err, cs.name)
		}
	})
	tc := tinyDefault()
	spread.Width = tc.mainWidth()
	withSpreads(t, map[string]Spread{ratioSpreadKey("mqar", referenceTransformer): spread}, func() {
		cl := claimB(tc, []*ModelResult{transformerSeed(1, 1), oryxSeed(1, 0.99, 0.1, inf, 0, 0, 0.05)})
		require.Equal(t, Inconclusive, cl.Verdict, "an infinite mixed accuracy: %s", cl.Summary)
	})
	// Identical per-seed values (SE 0) are data, not a degenerate case: every seed agrees, the bounds are the
	// mean, and the verdict is decided on it either way.
	require.Equal(t, Holds, claimA(c, gapComps([]float64{-0.1, -0.1}, []float64{-0.1, -0.1})).Verdict)
	require.Equal(t, Fails, claimA(c, gapComps([]float64{0.1, 0.1}, []float64{-0.1, -0.1})).Verdict)
	// A reference accuracy of 0 in one seed: that seed's ratio has no value, so neither has the claim's.
	var models []*ModelResult
	for k, ref := range []float64{1, 0, 1, 1, 1} {
		models = append(models, transformerSeed(k+1, ref), oryxSeed(k+1, 0.99, 0.1, 0.99, 0, 0, 0.05))
	}
	cl := claimB(tc, models)
	require.Equal(t, Inconclusive, cl.Verdict, cl.Summary)
	_, err := json.Marshal(cl)
	require.NoError(t, err)
}

// TestHostileBrokenLossRecords: a validation loss that is zero, negative or not a number in a run's
// metrics gives no gap (a cross-entropy is positive). Before, a reference loss of −1 made a candidate at 1.0
// "200 % better" and claim (a) held over two seeds.
func TestHostileBrokenLossRecords(t *testing.T) {
	for _, refLoss := range []float64{-1, 0, math.NaN()} {
		c := tinyDefault()
		c.Out, c.Seeds = t.TempDir(), 2
		var models []*ModelResult
		for k := 1; k <= 2; k++ {
			for _, run := range []struct {
				name string
				loss float64
			}{{"oryx-tg", 1 + 0.01*float64(k)}, {"transformer", refLoss}, {"gdn", refLoss}} {
				m := &ModelResult{RunSpec: RunSpec{Name: run.name}, Seed: k, RunDir: filepath.Join("runs", run.name+"-s"+string(rune('0'+k)))}
				dir := filepath.Join(c.Out, m.RunDir)
				require.NoError(t, os.MkdirAll(dir, 0o755))
				l := jsonnum.Float(run.loss)
				writeValRecords(t, dir, []rundir.ValRecord{{Step: 10, Tokens: 1000, Loss: rundir.ValLosses{"attention": l, "linear": l}},
					{Step: 20, Tokens: 2000, Loss: rundir.ValLosses{"attention": l, "linear": l}}})
				models = append(models, m)
			}
		}
		comps := controls(c, models)
		require.NotEmpty(t, comps)
		for _, cp := range comps {
			require.True(t, math.IsNaN(cp.Gap), "reference loss %v: %s gap %v", refLoss, cp.Name, cp.Gap)
		}
		for _, cl := range []Claim{claimA(c, comps), claimAWithin5(c, comps)} {
			require.Equal(t, Inconclusive, cl.Verdict, "reference loss %v: %s: %s", refLoss, cl.ID, cl.Summary)
		}
		_, err := json.Marshal(comps)
		require.NoError(t, err)
	}
	require.InDelta(t, 0.1, relativeGap(1.1, 1), 1e-12)
	for _, bad := range [][2]float64{{1, 0}, {1, -2}, {0, 1}, {math.Inf(1), 1}, {1, math.Inf(1)}, {math.NaN(), 1}} {
		require.True(t, math.IsNaN(relativeGap(bad[0], bad[1])), "%v", bad)
	}
}

// decomposeModels are the decomposition's five runs × seeds 1..n at the tiny width with made-up final losses
// (language and mixture), leaving out the runs skip names as "<name>/<seed>".
func decomposeModels(n int, skip ...string) []*ModelResult {
	var out []*ModelResult
	for k := 1; k <= n; k++ {
	runs:
		for i, rs := range DecomposeRuns(1) {
			for _, s := range skip {
				if s == rs.Name+"/"+string(rune('0'+k)) {
					continue runs
				}
			}
			l := func(mode float64) jsonnum.Float {
				return jsonnum.Float(1 + 0.1*mode + 0.01*float64(i) + 0.003*float64(k*k))
			}
			out = append(out, &ModelResult{RunSpec: rs, Seed: k, Summary: &train.Summary{ValLoss: rundir.ValLosses{"attention": l(0), "linear": l(1)}},
				MixtureLoss: map[string]jsonnum.Float{"attention": l(2), "linear": jsonnum.Float(math.NaN())}})
		}
	}
	return out
}

// TestHostileDecomposeMissingRun: with one seed's GDN run missing, the linear gaps are measured on the two
// seeds that have it, and the one-seed spreads name exactly those seeds (df 1, not 2). Before, every spread
// named all three seeds, so a one-seed verdict used a t quantile of 2.92 instead of 6.31.
func TestHostileDecomposeMissingRun(t *testing.T) {
	c := QuickDecomposeConfig(false)
	c.Seeds, c.Out = 3, t.TempDir()
	models := decomposeModels(3, "gdn/2")
	comps := gapComps([]float64{0.01, 0.02, 0.04}, []float64{0.01, 0.03}) // seed 2's linear comparison is missing
	comps[4].Seed = 3
	cls := claims(c, models, comps)
	res := decomposeResult(c, models, cls)
	require.Equal(t, []int{2, 3, 4}, res.Seeds)
	require.Equal(t, []int{2, 3, 4}, res.Spreads[spreadGapAttention].Seeds)
	require.Equal(t, []int{2, 4}, res.Spreads[spreadGapLinear].Seeds, "seed 2 of the study (training seed 3) has no linear gap")
	for _, row := range res.Rows {
		want := 3
		if row.Mode == "linear" && (row.Part == "architecture cost" || row.Part == "total (a) gap" || strings.HasPrefix(row.Part, "interference")) {
			want = 2
		}
		require.Len(t, row.est.Values, want, "%s %s %s", row.Set, row.Mode, row.Part)
		if row.Set == "mixture" && row.Mode == "linear" {
			require.Nil(t, row.Gap["mean"], "a NaN mixture loss has no gap")
		}
	}
	rep := &Report{Config: c, Models: models, Claims: cls, Decompose: res}
	data, err := json.Marshal(rep)
	require.NoError(t, err, "decompose.json with a NaN mixture loss")
	require.Contains(t, string(data), `"mixture_loss":{"attention":`)
	require.Contains(t, decomposeMarkdown(c, rep), "| mixture | linear | architecture cost |")
}

// TestHostileRecallCurveNotANumber: a probe line whose accuracy is null (NaN), negative or above 1 is
// refused naming the metrics file and the step. Before, the NaN was kept and the study failed at its very
// end with "json: unsupported value: NaN", writing no study.json.
func TestHostileRecallCurveNotANumber(t *testing.T) {
	for _, bad := range []string{"null", "-0.5", "1.5"} {
		dir := t.TempDir()
		lines := `{"kind":"probe","step":10,"tokens":100,"probe_s":0.1,"probe_mqar_attention":0.5}` + "\n" +
			`{"kind":"probe","step":20,"tokens":200,"probe_s":0.1,"probe_mqar_attention":` + bad + "}\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, rundir.MetricsFile), []byte(lines), 0o644))
		_, err := readRecallCurves(dir)
		require.ErrorContains(t, err, filepath.Join(dir, rundir.MetricsFile), bad)
		require.ErrorContains(t, err, "step 20: probe_mqar_attention", bad)
	}
}

// TestHostileArtefactsFromBrokenRuns: every artefact of the decomposition and of the study is written from
// runs whose numbers are all broken (NaN validation and mixture losses, a negative loss curve, no MQAR
// queries): no panic, study.json and decompose.json valid JSON, no verdict holds.
func TestHostileArtefactsFromBrokenRuns(t *testing.T) {
	nan := jsonnum.Float(math.NaN())
	for _, kind := range []string{KindDecompose, KindStudy} {
		c := QuickDecomposeConfig(false)
		c.Kind, c.Out = kind, t.TempDir()
		rep := &Report{Config: c, Backend: "test"}
		for _, rs := range c.Runs {
			for k := 1; k <= c.Seeds; k++ {
				m := &ModelResult{RunSpec: rs, Seed: k, RunDir: filepath.Join("runs", c.label(job{rs, k})), Curves: map[string]*RecallCurve{},
					Summary:     &train.Summary{ValLoss: rundir.ValLosses{"attention": nan, "linear": -1}},
					MixtureLoss: map[string]jsonnum.Float{"attention": nan, "linear": nan}}
				dir := filepath.Join(c.Out, m.RunDir)
				require.NoError(t, os.MkdirAll(dir, 0o755))
				writeValRecords(t, dir, []rundir.ValRecord{{Step: 1, Tokens: 10, Loss: rundir.ValLosses{"attention": nan, "linear": -1}},
					{Step: 2, Tokens: 20, Loss: rundir.ValLosses{"attention": nan, "linear": 0}}})
				for _, s := range schedulesOf(rs.Variant) {
					m.Schedules = append(m.Schedules, ScheduleResult{Schedule: s, ValLoss: nan, MQAR: map[int]float64{},
						MQARCells: map[int]mqarCell{}, Needle: map[int]evalapi.ProbeScore{}, Copy: map[int]evalapi.ProbeScore{}})
					m.Curves[s] = &RecallCurve{Tokens: []int64{10}, Accuracy: []float64{0.5}, TokensTo50: nan, TokensTo90: nan}
				}
				rep.Models = append(rep.Models, m)
			}
		}
		rep.Controls = controls(c, rep.Models)
		rep.Claims = claims(c, rep.Models, rep.Controls)
		if kind == KindDecompose {
			rep.Decompose = decomposeResult(c, rep.Models, rep.Claims)
		}
		require.NoError(t, writeArtefacts(c, rep), kind)
		data, err := os.ReadFile(filepath.Join(c.Out, kind+".json"))
		require.NoError(t, err)
		require.True(t, json.Valid(data), kind)
		for _, cl := range rep.Claims {
			require.NotEqual(t, Holds, cl.Verdict, "%s: %s: %s", kind, cl.ID, cl.Summary)
		}
		require.FileExists(t, filepath.Join(c.Out, "report.md"))
	}
}
