package rundir

import (
	"encoding/json"
	"github.com/oryx-go/oryx/internal/jsonnum"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

type testState struct {
	Step       int    `json:"step"`
	TokensSeen int64  `json:"tokens_seen"`
	Cursor     string `json:"cursor"`
}

func TestStateRoundTripAndPrune(t *testing.T) {
	dir := t.TempDir()
	for _, step := range []int{2, 4, 6} {
		require.NoError(t, WriteState(dir, step, testState{Step: step, TokensSeen: int64(100 * step), Cursor: "c"}))
	}
	var st testState
	require.NoError(t, ReadState(dir, 4, &st))
	require.Equal(t, testState{4, 400, "c"}, st)
	require.Equal(t, int64(600), TokensSeen(dir, 6))
	require.Equal(t, int64(0), TokensSeen(dir, 7), "no state file: 0")

	require.ErrorContains(t, ReadState(dir, 8, &st), "trainer-state-00000008.json is missing")
	require.NoError(t, os.Rename(filepath.Join(dir, StateFileName(2)), filepath.Join(dir, StateFileName(3))))
	require.ErrorContains(t, ReadState(dir, 3, &st), "holds step 2, want 3")

	names := []string{"checkpoint-n0000004-20260101-000000-step-00000004", "checkpoint-n0000005-20260101-000000-step-00000006"}
	require.NoError(t, PruneStates(dir, names))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	require.Equal(t, []string{StateFileName(4), StateFileName(6)}, left)
}

func TestMetricsResumeDropsLaterLines(t *testing.T) {
	dir := t.TempDir()
	m, err := OpenMetrics(dir, -1)
	require.NoError(t, err)
	for step := 1; step <= 4; step++ {
		require.NoError(t, m.Write(StepRecord{Kind: "train", Step: step, Loss: jsonnum.Float(step)}))
	}
	require.NoError(t, m.Write(ValRecord{Kind: "val", Step: 4, Loss: map[string]jsonnum.Float{"attention": jsonnum.Float(math.NaN())}}))
	require.NoError(t, m.Close())
	// A torn last line, as a kill mid-write leaves it.
	f, err := os.OpenFile(filepath.Join(dir, MetricsFile), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"kind":"train","st`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	m, err = OpenMetrics(dir, 2) // resumed from the checkpoint of step 2
	require.NoError(t, err)
	require.NoError(t, m.Write(StepRecord{Kind: "train", Step: 3, Loss: 30}))
	require.NoError(t, m.Close())
	train, val, err := ReadMetrics(dir)
	require.NoError(t, err)
	require.Empty(t, val)
	require.Len(t, train, 3)
	require.Equal(t, []jsonnum.Float{1, 2, 30}, []jsonnum.Float{train[0].Loss, train[1].Loss, train[2].Loss})
}

func TestFloatNullIsNaN(t *testing.T) {
	dir := t.TempDir()
	m, err := OpenMetrics(dir, -1)
	require.NoError(t, err)
	require.NoError(t, m.Write(ValRecord{Kind: "val", Step: 1, Loss: map[string]jsonnum.Float{"linear": jsonnum.Float(math.Inf(1)), "attention": 2}}))
	require.NoError(t, m.Close())
	data, err := os.ReadFile(filepath.Join(dir, MetricsFile))
	require.NoError(t, err)
	require.Contains(t, string(data), `"val_loss_linear":null`)
	_, val, err := ReadMetrics(dir)
	require.NoError(t, err)
	require.True(t, math.IsNaN(float64(val[0].Loss["linear"])))
	require.Equal(t, jsonnum.Float(2), val[0].Loss["attention"])
}

// TestValRecordFlatKeys: a validation line has one number per mode (val_loss_<mode>) and no "loss" object;
// it reads back, and lines of the older layout ("loss": {...}) still read.
func TestValRecordFlatKeys(t *testing.T) {
	rec := ValRecord{Kind: "val", Step: 3, Tokens: 768, Loss: map[string]jsonnum.Float{"attention": 1.5, "linear": 2.25}}
	data, err := json.Marshal(rec)
	require.NoError(t, err)
	require.JSONEq(t, `{"kind":"val","step":3,"tokens":768,"val_loss_attention":1.5,"val_loss_linear":2.25}`, string(data))
	var back ValRecord
	require.NoError(t, json.Unmarshal(data, &back))
	require.Equal(t, rec, back)
	var old ValRecord
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"val","step":3,"tokens":768,"loss":{"mixed":null}}`), &old))
	require.True(t, math.IsNaN(float64(old.Loss["block_random"])), "the old layout's \"mixed\" is block_random")
	require.NotContains(t, old.Loss, "mixed")
}

// TestLegacyBlockRandomKey: run directories written before the rename called the block-random validation
// mode "mixed" (val_loss_mixed in metrics.jsonl, "mixed" in summary.json's val_loss); they read as
// block_random, and new files write block_random.
func TestLegacyBlockRandomKey(t *testing.T) {
	dir := t.TempDir()
	lines := `{"kind":"train","step":1,"tokens":256,"loss":5,"lr":0.001,"grad_norm":1,"tokens_per_s":1,"attn_fraction":0.5,"elapsed_s":1}
{"kind":"val","step":1,"tokens":256,"val_loss_attention":4.5,"val_loss_linear":4.75,"val_loss_mixed":4.625}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, MetricsFile), []byte(lines), 0o644))
	_, val, err := ReadMetrics(dir)
	require.NoError(t, err)
	require.Len(t, val, 1)
	require.Equal(t, ValLosses{"attention": 4.5, "linear": 4.75, "block_random": 4.625}, val[0].Loss)

	var sum struct {
		ValLoss ValLosses `json:"val_loss"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"val_loss":{"attention":1,"mixed":null}}`), &sum))
	require.Equal(t, jsonnum.Float(1), sum.ValLoss["attention"])
	require.True(t, math.IsNaN(float64(sum.ValLoss["block_random"])))
	require.Len(t, sum.ValLoss, 2)
	require.NoError(t, json.Unmarshal([]byte(`{"val_loss":null}`), &sum))
	require.Nil(t, sum.ValLoss)

	data, err := json.Marshal(ValRecord{Kind: "val", Step: 1, Loss: ValLosses{"block_random": 2}})
	require.NoError(t, err)
	require.Contains(t, string(data), `"val_loss_block_random":2`)
	require.Equal(t, "block_random", valMode("mixed"))
	require.Equal(t, "linear", valMode("linear"))
}
