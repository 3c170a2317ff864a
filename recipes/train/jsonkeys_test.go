package train

import (
	"encoding/json"
	"testing"

	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/stretchr/testify/require"
)

// TestJSONKeysSnakeCase: run.json, summary.json and the trainer states have snake_case keys only (the model
// config and data spec inside them included).
func TestJSONKeysSnakeCase(t *testing.T) {
	testutil.CheckSnakeCaseJSON(t, nil, Run{}, Summary{}, RunState{}, TrainConfig{})
}

// TestReadStateOldDataKeys: a trainer state written when the data spec's keys were "Spec" and "Column" (no
// JSON tags) still resumes: its data spec reads back.
func TestReadStateOldDataKeys(t *testing.T) {
	dir := t.TempDir()
	old := map[string]any{"step": 4, "tokens_seen": 400, "data": map[string]string{"Spec": "synth:7", "Column": "content"},
		"tokenizer": "bytes", "data_state": json.RawMessage(`{}`)}
	require.NoError(t, rundir.WriteState(dir, 4, old))
	st, err := readState(dir, 4)
	require.NoError(t, err)
	require.Equal(t, "synth:7", st.Data.Spec)
	require.Equal(t, "content", st.Data.Column)
	require.Equal(t, int64(400), st.TokensSeen)
}
