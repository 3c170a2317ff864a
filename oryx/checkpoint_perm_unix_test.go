//go:build unix

package oryx

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCheckpointFileModes: checkpoint files are 0644 whatever the umask (one policy for every output).
func TestCheckpointFileModes(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	cfg, err := Preset("tiny", Mamba2)
	require.NoError(t, err)
	require.NoError(t, InitCheckpoint(dir, cfg, 1))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 3) // config.json, .json, .bin
	for _, e := range entries {
		fi, err := os.Stat(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), e.Name())
	}
}
