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

// fakeInfo is an fs.FileInfo of a given mode and owner.
type fakeInfo struct {
	mode os.FileMode
	uid  uint32
}

func (f fakeInfo) Name() string       { return "f" }
func (f fakeInfo) Size() int64        { return 0 }
func (f fakeInfo) Mode() os.FileMode  { return f.mode }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return f.mode.IsDir() }
func (f fakeInfo) Sys() any           { return &syscall.Stat_t{Uid: f.uid} }

// TestTrustNativeFile: the one rule for files run as native code (plugin pointers, the plugin, the XLA
// compilation cache's executables): a regular file of the user's or root's, writable by nobody else; anything
// else is refused naming the path and the reason.
func TestTrustNativeFile(t *testing.T) {
	me := uint32(os.Getuid())
	other := me + 4242
	for _, c := range []struct {
		name string
		info fakeInfo
		want string // "" = trusted
	}{
		{"mine, private", fakeInfo{0o600, me}, ""},
		{"mine, readable by all", fakeInfo{0o644, me}, ""},
		{"root's", fakeInfo{0o644, 0}, ""},
		{"another user's", fakeInfo{0o600, other}, "is owned by uid"},
		{"group-writable", fakeInfo{0o664, me}, "writable by group or others (mode 0664)"},
		{"world-writable", fakeInfo{0o666, 0}, "writable by group or others (mode 0666)"},
		{"a FIFO", fakeInfo{os.ModeNamedPipe | 0o600, me}, "not a regular file (a FIFO)"},
		{"a directory", fakeInfo{os.ModeDir | 0o700, me}, "not a regular file (a directory)"},
	} {
		err := trustNativeFile("/some/path", c.info)
		if c.want == "" {
			require.NoError(t, err, c.name)
			continue
		}
		require.ErrorContains(t, err, c.want, c.name)
		require.ErrorContains(t, err, "/some/path", c.name)
	}
}
