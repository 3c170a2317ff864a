package hf

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// TestExportWhileTrainingSaves: `oryx export` of a run directory a training saves into, keeping one
// checkpoint (each save prunes the checkpoint that was the newest an instant before), never fails for the
// race: it failed transiently when the checkpoint it had listed was pruned before it opened it ("failed to
// open checkpoint metadata file"), where `evals` loaded again. The only error allowed is the retrying
// loader's own, for a directory saved into during each of its loads; once the saves stop, the export
// succeeds.
func TestExportWhileTrainingSaves(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a race of saves and exports")
	}
	ckpt := oryxtest.TinyCheckpoint(t, oryx.Transformer)
	out := t.TempDir()
	const saves = 60 // about one export in 80 failed for the race before (in most runs of this test)
	exports, exhausted, failures := oryxtest.RaceSaves(t, ckpt, saves, func(i int) error {
		return Export(ckpt, filepath.Join(out, fmt.Sprintf("export-%d", i)))
	})
	t.Logf("%d exports during %d saves: %d failed for the race, %d saved into during each of their loads",
		exports, saves, len(failures), exhausted)
	require.Empty(t, failures, "exports that failed for the race")
	require.NoError(t, Export(ckpt, filepath.Join(out, "export-last")))
}
