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

// TestXLAConfigRefusesNonRegularPlugin: GOMLX_BACKEND=xla:/path naming a FIFO hung in dlopen (waiting for a
// writer); a FIFO, a directory or a device is refused before anything is loaded, the error naming the path
// and what it is. A regular file passes the check (whether it is a plugin is dlopen's to say).
func TestXLAConfigRefusesNonRegularPlugin(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "plugin.so")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	for _, c := range []struct{ path, what string }{{fifo, "a named pipe (FIFO)"}, {dir, "a directory"}, {"/dev/zero", "a character device"}} {
		err := checkXLAConfig("xla", "xla:"+c.path)
		require.Error(t, err, c.path)
		require.ErrorContains(t, err, "PJRT plugin "+c.path+" is "+c.what+", not a regular file")
		require.ErrorContains(t, err, EnvVar)
	}
	lib := filepath.Join(dir, "lib.so")
	require.NoError(t, os.WriteFile(lib, []byte("\x7fELF"), 0o644))
	require.NoError(t, checkXLAConfig("xla", "xla:"+lib))
	link := filepath.Join(dir, "link.so") // a link to a library is the library
	require.NoError(t, os.Symlink(lib, link))
	require.NoError(t, checkXLAConfig("xla", "xla:"+link))
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
