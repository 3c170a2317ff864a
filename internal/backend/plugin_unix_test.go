//go:build unix

package backend

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPluginPointerFIFORefusedWithoutHanging: a FIFO named cpu.plugin used to block start-up forever.
func TestPluginPointerFIFORefusedWithoutHanging(t *testing.T) {
	root := t.TempDir()
	pointer, _ := plantPointer(t, root)
	require.NoError(t, os.Remove(pointer))
	require.NoError(t, syscall.Mkfifo(pointer, 0o644))
	done := make(chan error, 1)
	sub := filepath.Join(root, "p")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	t.Chdir(sub)
	go func() { _, err := InstalledPlugin("cpu"); done <- err }()
	select {
	case err := <-done:
		require.ErrorContains(t, err, "a FIFO")
	case <-time.After(10 * time.Second):
		t.Fatal("InstalledPlugin hung on a FIFO pointer")
	}
}
