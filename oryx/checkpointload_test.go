package oryx_test

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// TestLoadCheckpointHashedOneCheckpoint: a training that saves a checkpoint between the
// load and the hash (here: step 18 saved while step 15 loads) no longer gives the step of one checkpoint and
// the hash of another; the load is repeated and weights, step and hash are all of step 18. Loading then
// hashing, as evals did, pairs step 15 with step 18's hash (1 to 4 of 16 evaluations during a training). A
// directory that gets a new checkpoint during every load is an error naming it, after 5 loads.
func TestLoadCheckpointHashedOneCheckpoint(t *testing.T) {
	cfg, _, ctx := newCheckpointModel(t, oryx.Transformer)
	save := func(dir string, step int64) {
		require.NoError(t, optimizers.GetGlobalStepVar(ctx).SetValue(tensors.FromValue(step)))
		require.NoError(t, oryxtest.SaveCheckpoint(t, dir, cfg, ctx))
	}
	// loadDuringSave loads dir and, the first saves times, saves the next step into it before returning.
	loadDuringSave := func(saves int, step int64) func(string, *oryx.Config) (*oryx.Model, *context.Context, error) {
		return func(dir string, want *oryx.Config) (*oryx.Model, *context.Context, error) {
			m, c, err := oryx.LoadCheckpoint(dir, want)
			if saves > 0 {
				saves--
				step += 3
				save(dir, step)
			}
			return m, c, err
		}
	}

	// The defect: load, a save, hash.
	dir := t.TempDir()
	save(dir, 15)
	hash15, err := oryx.CheckpointHash(dir)
	require.NoError(t, err)
	_, loaded, err := loadDuringSave(1, 15)(dir, nil)
	require.NoError(t, err)
	racy, err := oryx.CheckpointHash(dir)
	require.NoError(t, err)
	require.Equal(t, int64(15), optimizers.GetGlobalStep(loaded))
	require.NotEqual(t, hash15, racy, "loading then hashing pairs step 15 with another checkpoint's hash")

	// LoadCheckpointHashed: the same save during its first load.
	dir = t.TempDir()
	save(dir, 15)
	restore := oryx.SetLoadForHash(loadDuringSave(1, 15))
	defer restore()
	_, loaded, hash, err := oryx.LoadCheckpointHashed(dir, nil)
	require.NoError(t, err)
	require.Equal(t, int64(18), optimizers.GetGlobalStep(loaded), "loaded again: the newest checkpoint")
	want, err := oryx.CheckpointHash(dir)
	require.NoError(t, err)
	require.Equal(t, want, hash, "the hash of the checkpoint loaded")

	// A save during every load.
	oryx.SetLoadForHash(loadDuringSave(100, 18))
	_, _, _, err = oryx.LoadCheckpointHashed(dir, nil)
	require.ErrorContains(t, err, "checkpoint "+dir+": a newer checkpoint was saved during each of 5 loads")
}
