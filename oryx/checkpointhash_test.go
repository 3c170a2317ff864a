//go:build unix

package oryx_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/oryx"
)

// TestCheckpointHash: the hash is stable, follows the bytes (not the directory), and changes when the
// weights do at the same step; a missing checkpoint or a FIFO in place of its weights is an error, not a hang.
func TestCheckpointHash(t *testing.T) {
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	require.NoError(t, oryx.InitCheckpoint(a, cfg, 1))
	require.NoError(t, oryx.InitCheckpoint(b, cfg, 2))
	ha, err := oryx.CheckpointHash(a)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(ha, "sha256:"), ha)
	again, err := oryx.CheckpointHash(a)
	require.NoError(t, err)
	require.Equal(t, ha, again)
	hb, err := oryx.CheckpointHash(b)
	require.NoError(t, err)
	require.NotEqual(t, ha, hb, "other weights, same step")

	_, err = oryx.CheckpointHash(t.TempDir())
	require.ErrorContains(t, err, "no checkpoint files")
	bins, err := filepath.Glob(filepath.Join(b, "checkpoint-*.bin"))
	require.NoError(t, err)
	require.Len(t, bins, 1)
	require.NoError(t, os.Remove(bins[0]))
	if err := syscall.Mkfifo(bins[0], 0o644); err != nil {
		t.Skip("no FIFOs here")
	}
	_, err = oryx.CheckpointHash(b)
	require.Error(t, err)
}
