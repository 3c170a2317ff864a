package rundir

import (
	"encoding/json"
	"github.com/oryx-go/oryx/internal/jsonnum"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProbeRecords: probe lines are flat (probe_<name>), read back by ReadProbes (and skipped by
// ReadMetrics), survive a resume up to the checkpoint's step like the other lines, and a NaN value is null.
func TestProbeRecords(t *testing.T) {
	rec := ProbeRecord{Kind: "probe", Step: 4, Tokens: 400, Seconds: 0.5, Values: map[string]jsonnum.Float{"mqar_attention": 0.25}}
	data, err := json.Marshal(rec)
	require.NoError(t, err)
	require.JSONEq(t, `{"kind":"probe","step":4,"tokens":400,"probe_s":0.5,"probe_mqar_attention":0.25}`, string(data))
	_, err = json.Marshal(ProbeRecord{Kind: "probe", Values: map[string]jsonnum.Float{"s": 1}})
	require.ErrorContains(t, err, "collides")

	dir := t.TempDir()
	m, err := OpenMetrics(dir, -1)
	require.NoError(t, err)
	for step := 2; step <= 6; step += 2 {
		require.NoError(t, m.Write(StepRecord{Kind: "train", Step: step}))
		require.NoError(t, m.Write(ValRecord{Kind: "val", Step: step, Loss: map[string]jsonnum.Float{"attention": 1}}))
		require.NoError(t, m.Write(ProbeRecord{Kind: "probe", Step: step, Tokens: int64(100 * step),
			Values: map[string]jsonnum.Float{"mqar_linear": jsonnum.Float(step) / 10, "mqar_mixed": jsonnum.Float(math.NaN())}}))
	}
	require.NoError(t, m.Close())
	m, err = OpenMetrics(dir, 4) // resumed from the checkpoint of step 4
	require.NoError(t, err)
	require.NoError(t, m.Close())
	probes, err := ReadProbes(dir)
	require.NoError(t, err)
	require.Len(t, probes, 2)
	require.Equal(t, 4, probes[1].Step)
	require.Equal(t, int64(400), probes[1].Tokens)
	require.Equal(t, jsonnum.Float(0.4), probes[1].Values["mqar_linear"])
	require.True(t, math.IsNaN(float64(probes[1].Values["mqar_mixed"])))
	train, val, err := ReadMetrics(dir)
	require.NoError(t, err)
	require.Len(t, train, 2)
	require.Len(t, val, 2)
}
