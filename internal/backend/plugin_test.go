package backend

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// plantPointer makes root/.xla/cpu.plugin name a plugin file at root/evil.so (a stand-in: nothing is loaded,
// InstalledPlugin only decides whether it would be) and returns the pointer's and the plugin's paths.
func plantPointer(t *testing.T, root string) (pointer, plugin string) {
	t.Helper()
	plugin = filepath.Join(root, "evil.so")
	require.NoError(t, os.WriteFile(plugin, []byte("stand-in"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".xla"), 0o755))
	pointer = filepath.Join(root, ".xla", "cpu.plugin")
	require.NoError(t, os.WriteFile(pointer, []byte(plugin+"\n"), 0o644))
	return pointer, plugin
}

// inSubdir runs InstalledPlugin from root/some/project, as a user working below a planted pointer would.
func inSubdir(t *testing.T, root string) (string, error) {
	t.Helper()
	sub := filepath.Join(root, "some", "project")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	t.Chdir(sub)
	return InstalledPlugin("cpu")
}

// TestPluginPointerTrustedWhenOwnedAndPrivate: the ordinary install (the user's files, 0644/0755) is used.
func TestPluginPointerTrustedWhenOwnedAndPrivate(t *testing.T) {
	root := t.TempDir()
	_, plugin := plantPointer(t, root)
	got, err := inSubdir(t, root)
	require.NoError(t, err)
	require.Equal(t, plugin, got)
}

// TestPluginPointerInWritableParentRefused: the campaign's attack — a pointer in a shared parent that others
// can write — is refused with the path and the reason, for each of the files and folders an attacker could
// have written.
func TestPluginPointerInWritableParentRefused(t *testing.T) {
	cases := []struct {
		name   string
		modify func(root, pointer, plugin string)
		reason string
	}{
		{"group-writable pointer", func(_, pointer, _ string) { os.Chmod(pointer, 0o664) }, "writable by group or others"},
		{"world-writable .xla", func(_, pointer, _ string) { os.Chmod(filepath.Dir(pointer), 0o777) }, "writable by group or others"},
		{"world-writable folder holding .xla", func(root, _, _ string) { os.Chmod(root, 0o777) }, "writable by group or others"},
		{"world-writable plugin", func(_, _, plugin string) { os.Chmod(plugin, 0o666) }, "the plugin"},
		{"world-writable plugin folder", func(root, pointer, _ string) {
			dir := filepath.Join(root, "shared")
			os.Mkdir(dir, 0o777)
			os.Chmod(dir, 0o777)
			so := filepath.Join(dir, "evil.so")
			os.WriteFile(so, []byte("stand-in"), 0o644)
			os.WriteFile(pointer, []byte(so), 0o644)
		}, "the plugin's directory"},
		{"relative plugin path", func(_, pointer, _ string) { os.WriteFile(pointer, []byte("evil.so"), 0o644) }, "not an absolute path"},
		{"pointer is a symbolic link", func(root, pointer, _ string) {
			target := filepath.Join(root, "elsewhere")
			os.Rename(pointer, target)
			os.Symlink(target, pointer)
		}, "symbolic link"},
		{"oversized pointer", func(_, pointer, _ string) { os.WriteFile(pointer, make([]byte, maxPointerBytes+1), 0o644) }, "more than a path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			pointer, plugin := plantPointer(t, root)
			c.modify(root, pointer, plugin)
			_, err := inSubdir(t, root)
			require.Error(t, err)
			require.ErrorContains(t, err, "refusing the PJRT plugin pointer "+pointer)
			require.ErrorContains(t, err, c.reason)
		})
	}
}

// TestPluginPointerOwnedByAnotherUserRefused: a pointer (or plugin) that another user owns is refused even
// with private permissions. Needs root to give a file away.
func TestPluginPointerOwnedByAnotherUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to chown a file to another user")
	}
	for _, which := range []string{"pointer", "plugin", ".xla"} {
		t.Run(which, func(t *testing.T) {
			root := t.TempDir()
			pointer, plugin := plantPointer(t, root)
			target := map[string]string{"pointer": pointer, "plugin": plugin, ".xla": filepath.Dir(pointer)}[which]
			require.NoError(t, os.Chown(target, 4242, 4242))
			_, err := inSubdir(t, root)
			require.ErrorContains(t, err, "owned by uid 4242")
			require.ErrorContains(t, err, target)
		})
	}
}

// TestPluginPointerUnderStickyTmp: a private folder of the user's inside a world-writable sticky folder (the
// /tmp case) is still the user's.
func TestPluginPointerUnderStickyTmp(t *testing.T) {
	shared := t.TempDir()
	require.NoError(t, os.Chmod(shared, 0o777|os.ModeSticky))
	root := filepath.Join(shared, "mine")
	require.NoError(t, os.Mkdir(root, 0o755))
	_, plugin := plantPointer(t, root)
	got, err := inSubdir(t, root)
	require.NoError(t, err)
	require.Equal(t, plugin, got)

}
