package oryx_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// TestLoadCheckpointRetryingPrunedNewest: a training that saves step 18 and prunes step 15 — the newest an
// instant before — while a reader opens step 15 made `oryx export` and `oryx generate` fail ("no such file"),
// where `evals` (LoadCheckpointHashed) loaded again. LoadCheckpointRetrying, which they now share with it,
// loads again and gets step 18; a load that fails with the directory unchanged is not retried (its error is
// returned at once), and a directory saved into during every load is an error naming it.
func TestLoadCheckpointRetryingPrunedNewest(t *testing.T) {
	cfg, _, ctx := newCheckpointModel(t, oryx.Transformer)
	save := func(dir string, step int64) {
		require.NoError(t, optimizers.GetGlobalStepVar(ctx).SetValue(tensors.FromValue(step)))
		require.NoError(t, oryxtest.SaveCheckpointKeep(t, dir, cfg, ctx, 1))
	}
	loads := 0
	// pruneDuringOpen lists the newest checkpoint, then (the first prunes times) a save of the next step
	// prunes it before it is opened: the open fails as LoadCheckpoint's did.
	pruneDuringOpen := func(prunes int) func(string, *oryx.Config) (*oryx.Model, *context.Context, error) {
		step := int64(15)
		return func(dir string, want *oryx.Config) (*oryx.Model, *context.Context, error) {
			loads++
			names, err := oryx.ListCheckpoints(dir)
			require.NoError(t, err)
			if prunes > 0 {
				prunes--
				step += 3
				save(dir, step)
				if _, err := os.Stat(filepath.Join(dir, names[len(names)-1]+".bin")); err != nil {
					return nil, nil, fmt.Errorf("checkpoint %s: loading %s: %w", dir, names[len(names)-1], err)
				}
				t.Fatalf("the save did not prune %s", names[len(names)-1])
			}
			return oryx.LoadCheckpoint(dir, want)
		}
	}
	dir := t.TempDir()
	save(dir, 15)
	restore := oryx.SetLoadForHash(pruneDuringOpen(1))
	defer restore()
	_, loaded, err := oryx.LoadCheckpointRetrying(dir, nil)
	require.NoError(t, err)
	require.Equal(t, int64(18), optimizers.GetGlobalStep(loaded), "loaded again: the newest checkpoint")
	require.Equal(t, 2, loads)

	// A failure with nothing saved meanwhile is the directory's: returned after one load.
	loads = 0
	oryx.SetLoadForHash(func(dir string, want *oryx.Config) (*oryx.Model, *context.Context, error) {
		loads++
		return nil, nil, errors.New("broken")
	})
	_, _, err = oryx.LoadCheckpointRetrying(dir, nil)
	require.EqualError(t, err, "broken")
	require.Equal(t, 1, loads)

	// A save during every load.
	oryx.SetLoadForHash(pruneDuringOpen(100))
	_, _, err = oryx.LoadCheckpointRetrying(dir, nil)
	require.ErrorContains(t, err, "checkpoint "+dir+": a newer checkpoint was saved during each of 5 loads")
}
