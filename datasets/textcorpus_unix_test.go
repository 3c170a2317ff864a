//go:build unix

package datasets

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/stretchr/testify/require"
)

// TestTextNotRegularRefused: a FIFO, or a device such as /dev/zero, as a text file (alone, or matched by a
// glob) is refused at once, naming the path and what it is; before, the FIFO hung the open and /dev/zero was
// read until memory ran out.
func TestTextNotRegularRefused(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.txt")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte(strings.Repeat("some words here\n", 400)), 0o644))
	specs := map[string][2]string{ // spec: the path named, what it is
		"text:" + fifo:                        {fifo, "a named pipe"},
		"text:" + filepath.Join(dir, "*.txt"): {fifo, "a named pipe"},
		"mix:synth=1,text:" + fifo + "=1":     {fifo, "a named pipe"},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		specs["text:/dev/zero"] = [2]string{"/dev/zero", "a character device"}
	}
	for spec, want := range specs {
		done := make(chan error, 1)
		go func() {
			_, err := OpenTraining(DataSpec{Spec: spec}, tok, 32, 1, nil, io.Discard)
			done <- err
		}()
		select {
		case err := <-done:
			require.ErrorContains(t, err, want[0], spec)
			require.ErrorContains(t, err, want[1], spec)
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: hangs (or reads without end)", spec)
		}
	}
}
