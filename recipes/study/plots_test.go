package study

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/evals/evalapi"
	"github.com/oryx-go/oryx/internal/jsonnum"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/stretchr/testify/require"
)

// TestWritePlots draws every study figure from a made-up report (the decomposition's five runs: the study's
// three and Oryx-TG's p = 1 and p = 0 controls; coinciding points at 0 and 1) and checks that each file is a PNG of the size the panel
// count implies. ORYX_KEEP_PLOTS=DIR keeps the images for looking at them.
func TestWritePlots(t *testing.T) {
	c := DecomposeConfig(false)
	c.Seeds = 1
	c.Out = t.TempDir()
	if d := os.Getenv("ORYX_KEEP_PLOTS"); d != "" {
		c.Out = d
	}
	rep := &Report{}
	for vi, rs := range c.Runs {
		v := rs.Variant
		m := &ModelResult{RunSpec: rs, Seed: 1, RunDir: filepath.Join("runs", rs.Label()), Curves: map[string]*RecallCurve{}}
		dir := filepath.Join(c.Out, m.RunDir)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		var recs []rundir.ValRecord
		for s := 1; s <= 6; s++ {
			loss := map[string]jsonnum.Float{}
			for mi, mode := range schedulesOf(v) {
				loss[mode] = jsonnum.Float(1 + 2*math.Exp(-float64(s)/2) + 0.05*float64(mi+vi))
			}
			recs = append(recs, rundir.ValRecord{Step: s * 50, Tokens: int64(s * 204800), Loss: loss})
		}
		writeValRecords(t, dir, recs)
		for si, s := range schedulesOf(v) {
			r := ScheduleResult{Schedule: s, MQAR: map[int]float64{}, MQARCells: map[int]mqarCell{}, Needle: map[int]evalapi.ProbeScore{}, Copy: map[int]evalapi.ProbeScore{},
				AttentionFraction: map[string]float64{"attention": 1, "linear": 0, "mixed": 0.06}[s]}
			for i, p := range c.MQARPairs {
				acc := math.Max(0, 1-0.3*float64(i)-0.4*float64(si))
				r.MQAR[p] = acc
				r.MQARCells[p] = mqarCell{Accuracy: acc, StdErr: math.Sqrt(acc*(1-acc)/64) + 0.01}
			}
			for i, l := range c.NeedleLengths {
				r.Needle[l] = evalapi.ProbeScore{Score: []float64{1, 1, 0}[si] * float64(1-i/2), StdErr: 0.05}
				r.Copy[l] = evalapi.ProbeScore{Score: 0.9 - 0.2*float64(si) - 0.1*float64(i), StdErr: 0.04}
			}
			m.Schedules = append(m.Schedules, r)
			rc := &RecallCurve{}
			for k := 1; k <= 6; k++ {
				rc.Tokens = append(rc.Tokens, int64(k*204800))
				rc.Accuracy = append(rc.Accuracy, 1/(1+math.Exp(-float64(2*k-6-si-vi))))
			}
			m.Curves[s] = rc
		}
		if v.IsMultiMixer() {
			m.SwitchMQAR = map[string]map[int]mqarCell{}
			for ki, k := range []string{evalapi.AttentionToLinear, evalapi.LinearToAttention} {
				m.SwitchMQAR[k] = map[int]mqarCell{}
				for i, p := range c.MQARPairs {
					acc := math.Max(0, 0.9-0.3*float64(i)-0.2*float64(ki))
					m.SwitchMQAR[k][p] = mqarCell{Accuracy: acc, StdErr: math.Sqrt(acc*(1-acc)/64) + 0.01}
				}
			}
			sw := &evalapi.SwitchCurves{Variant: v, SwitchAt: 128, Sequences: 64, SeqLen: 256, Window: evalapi.SwitchWindow, Loss: map[string][]float64{}}
			for ni, name := range []string{evalapi.SwitchAttention, evalapi.SwitchLinear, evalapi.AttentionToLinear, evalapi.LinearToAttention} {
				y := make([]float64, 256)
				for p := range y {
					y[p] = 1 + 3/math.Sqrt(float64(p+1)) + 0.1*float64(ni%2) + 0.05*math.Sin(float64(p))
					if ni >= 2 && p >= 128 { // a switched curve: a bump, then the new mode
						y[p] += 0.3*math.Exp(-float64(p-128)/10) + 0.1*float64(2*(ni%2)-1)
					}
				}
				sw.Loss[name] = y
			}
			m.Switch = sw
		}
		rep.Models = append(rep.Models, m)
	}
	require.NoError(t, writePlots(c, rep))
	const panelW, panelH = 704, 462 // figure.PanelWidth, PanelHeight at figure.DPI
	for _, f := range []string{"loss.png", "mqar.png", "switch.png", "needle.png", "copy.png", "switch-oryx-tg.png", "mqar_curves.png"} {
		fh, err := os.Open(filepath.Join(c.Out, f))
		require.NoError(t, err, f)
		img, err := png.Decode(fh)
		fh.Close()
		require.NoError(t, err, f)
		wantW := 3 * panelW
		if f == "switch-oryx-tg.png" {
			wantW = panelW
		}
		require.Equal(t, wantW, img.Bounds().Dx(), f)
		rows := 2 // five runs (three multi-mixer ones in switch.png), three panels a row
		switch f {
		case "switch-oryx-tg.png", "switch.png":
			rows = 1
		case "mqar_curves.png":
			rows = 2 // the main comparison and the five runs
		}
		require.GreaterOrEqual(t, img.Bounds().Dy(), rows*panelH, f)
	}
}

// writeValRecords writes validation records as the trainer's metrics log does.
func writeValRecords(t *testing.T, dir string, recs []rundir.ValRecord) {
	t.Helper()
	ml, err := rundir.OpenMetrics(dir, 0)
	require.NoError(t, err)
	for _, r := range recs {
		r.Kind = "val"
		require.NoError(t, ml.Write(r))
	}
	require.NoError(t, ml.Close())
}
