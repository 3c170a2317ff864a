//go:build unix

package hfparquet

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestFIFORefused runs the exact input: a FIFO where a parquet file should be (it hung evals on the open).
// It is refused at once, naming what it is.
func TestFIFORefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "train.parquet")
	require.NoError(t, syscall.Mkfifo(path, 0o644))
	done := make(chan error, 1)
	go func() {
		_, _, err := openFile(path)
		done <- err
	}()
	select {
	case err := <-done:
		require.ErrorContains(t, err, "named pipe")
	case <-time.After(10 * time.Second):
		t.Fatal("opening a FIFO hangs")
	}
}
