package train

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/internal/rundir"
)

// FuzzTrainerState: whatever a trainer-state file of a run directory holds, reading it on resume gives the
// state of the asked step or an error naming the file — never a panic.
func FuzzTrainerState(f *testing.F) {
	good, _ := json.Marshal(&RunState{Step: 4, TokensSeen: 1024, Train: TrainConfig{SeqLen: 64, Batch: 4, Steps: 6},
		Data: datasets.DataSpec{Spec: "synth"}, Tokenizer: "bytes", DataState: json.RawMessage(`{"docs": 3}`)})
	f.Add(good, uint16(4))
	f.Add(good, uint16(5))
	f.Add([]byte(`{"step": 4, "data_state": null}`), uint16(4))
	f.Add([]byte(`{"step": -1}`), uint16(0))
	f.Add([]byte(`{"step": 99999999999999999999}`), uint16(4))
	f.Add([]byte(`[`), uint16(4))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, step uint16) {
		path := filepath.Join(dir, rundir.StateFileName(int(step)))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(path)
		st, err := readState(dir, int(step))
		if err != nil {
			return
		}
		if st.Step != int(step) {
			t.Fatalf("readState(%d) returned step %d", step, st.Step)
		}
	})
}
