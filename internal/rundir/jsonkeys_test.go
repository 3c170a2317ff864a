package rundir

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/oryx-go/oryx/internal/jsonnum"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/stretchr/testify/require"
)

// TestJSONKeysSnakeCase: every key of metrics.jsonl lines, trainer-state headers and the run.json fields read
// here is snake_case, the validation lines' val_loss_<mode> included.
func TestJSONKeysSnakeCase(t *testing.T) {
	testutil.CheckSnakeCaseJSON(t, nil, StepRecord{}, StateHeader{}, record{})
	data, err := json.Marshal(ValRecord{Kind: "val", Step: 3, Tokens: 30, Loss: map[string]jsonnum.Float{"attention": 1, "linear": 2, "mixed": 3}})
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	snake := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	for k := range m {
		require.Regexp(t, snake, k)
	}
}

// TestTrainedOn reads the data spec and sequence length of run.json, with the data spec under "spec" or
// under "Spec", the key of run.json files written before every key was snake_case.
func TestTrainedOn(t *testing.T) {
	for _, key := range []string{"spec", "Spec"} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, RunFile),
			[]byte(`{"data": {"`+key+`": "mix:synth=1,mqar=1,pairs=8", "column": "text"}, "train": {"seq_len": 128}}`), 0o644))
		data, seqLen, ok := TrainedOn(dir)
		require.True(t, ok, key)
		require.Equal(t, "mix:synth=1,mqar=1,pairs=8", data, key)
		require.Equal(t, 128, seqLen, key)
	}
	_, _, ok := TrainedOn(t.TempDir())
	require.False(t, ok, "no run.json")
}
