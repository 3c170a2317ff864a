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

// TestJSONKeysSnakeCase: every key of metrics.jsonl lines, trainer-state headers and the run.json fields declared
// here is snake_case, the validation lines' val_loss_<mode> included.
func TestJSONKeysSnakeCase(t *testing.T) {
	testutil.CheckSnakeCaseJSON(t, nil, StepRecord{}, StateHeader{}, RunRecord{})
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

// TestWriteRunRecord: run.json is the configuration's keys in their order, then RunInfo's; what readers
// read comes back; a configuration with a key of RunInfo's own is refused.
func TestWriteRunRecord(t *testing.T) {
	type data struct {
		Spec string `json:"spec"`
	}
	type train struct {
		SeqLen int `json:"seq_len"`
	}
	cfg := struct {
		Name      string `json:"name"`
		Train     train  `json:"train"`
		Data      data   `json:"data"`
		Tokenizer string `json:"tokenizer"`
	}{"r", train{64}, data{"synth"}, "bytes"}
	dir := t.TempDir()
	require.NoError(t, WriteRunRecord(dir, cfg, RunInfo{Backend: "go", GoVersion: "go1", Started: "now"}))
	raw, err := os.ReadFile(filepath.Join(dir, RunFile))
	require.NoError(t, err)
	require.Equal(t, `{
  "name": "r",
  "train": {
    "seq_len": 64
  },
  "data": {
    "spec": "synth"
  },
  "tokenizer": "bytes",
  "backend": "go",
  "go_version": "go1",
  "started": "now"
}
`, string(raw))
	spec, seqLen, ok := TrainedOn(dir)
	require.True(t, ok)
	require.Equal(t, "synth", spec)
	require.Equal(t, 64, seqLen)
	tok, err := Tokenizer(dir)
	require.NoError(t, err)
	require.Equal(t, "bytes", tok)

	clash := map[string]string{"backend": "mine"}
	require.ErrorContains(t, WriteRunRecord(dir, clash, RunInfo{}), `has a key "backend" of its own`)
	require.ErrorContains(t, WriteRunRecord(dir, []int{1}, RunInfo{}), "not a JSON object")
}
