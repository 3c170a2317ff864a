package backend

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Discovery of the PJRT plugin that `make xla-<kind>` installed. The pointer file .xla/<kind>.plugin is searched
// for in the working directory and its parents, so that tests (run in a package directory) and commands run
// from a sub-folder find the project's plugin. Whatever the pointer names is loaded into the process as native
// code, so a pointer is trusted only when nobody but the user (or root) could have written it or the plugin it
// names: a pointer planted in a shared parent such as /tmp would otherwise run anyone's code as the user.
//
// A pointer is used only if
//   - it is a regular file (not a link, FIFO or device: a FIFO would hang start-up) of at most maxPointerBytes,
//   - it, its .xla directory and the directory holding .xla are owned by the user or root and not writable by
//     group or others (the holding directory may be world-writable with the sticky bit, like /tmp itself, since
//     then only its owner can replace .xla),
//   - the plugin it names is an absolute path to a regular file (after resolving links: .xla/<kind> links into
//     the user's tool cache) owned by the user or root and not writable by group or others, in a directory
//     likewise.
//
// The rule for the files themselves is trustNativeFile's, which the XLA compilation cache applies to its
// executables too (xla_cache.go).
//
// Anything else is refused with an error naming the file and the reason; GOMLX_BACKEND (which the user sets)
// always comes first and is not subject to these checks.

// maxPointerBytes bounds the pointer file: it holds one path.
const maxPointerBytes = 4096

// InstalledPlugin returns the absolute path of the PJRT plugin of the given kind ("cpu", "cuda") that
// `make xla-<kind>` installed, read from .xla/<kind>.plugin in the working directory or the nearest parent
// that has one; "" when there is none. A pointer whose plugin is gone, or that fails the ownership and
// permission checks above, is an error naming its path.
func InstalledPlugin(kind string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", nil
	}
	for {
		pointer := filepath.Join(dir, ".xla", kind+".plugin")
		if _, err := os.Lstat(pointer); err == nil {
			return readTrustedPointer(pointer, kind)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// readTrustedPointer checks a pointer file and the plugin it names (see the package comment above) and returns
// the plugin's path.
func readTrustedPointer(pointer, kind string) (string, error) {
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("refusing the PJRT plugin pointer %s: %s (remove it, or choose a plugin explicitly with %s=xla:/abs/path/plugin.so)",
			pointer, fmt.Sprintf(format, args...), EnvVar)
	}
	xlaDir := filepath.Dir(pointer)
	if err := checkTrusted(filepath.Dir(xlaDir), true); err != nil {
		return "", refuse("%v", err)
	}
	if err := checkTrusted(xlaDir, false); err != nil {
		return "", refuse("%v", err)
	}
	st, err := os.Lstat(pointer)
	if err != nil {
		return "", refuse("%v", err)
	}
	if !st.Mode().IsRegular() {
		return "", refuse("it is not a regular file (%s)", describeType(st.Mode()))
	}
	if st.Size() > maxPointerBytes {
		return "", refuse("it is %d bytes, more than a path (%d at most)", st.Size(), maxPointerBytes)
	}
	if err := trustNativeFile(pointer, st); err != nil {
		return "", refuse("%v", err)
	}
	f, err := os.Open(pointer)
	if err != nil {
		return "", refuse("%v", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxPointerBytes+1))
	f.Close()
	if err != nil {
		return "", refuse("%v", err)
	}
	plugin := strings.TrimSpace(string(data))
	if !filepath.IsAbs(plugin) {
		return "", refuse("it names %q, not an absolute path", plugin)
	}
	if _, err := os.Stat(plugin); err != nil {
		return "", fmt.Errorf("%s names a PJRT plugin that is missing (%v): rerun `make xla-%s`", pointer, err, kind)
	}
	real, err := filepath.EvalSymlinks(plugin)
	if err != nil {
		return "", refuse("resolving %s: %v", plugin, err)
	}
	pst, err := os.Lstat(real)
	if err != nil {
		return "", refuse("%v", err)
	}
	if !pst.Mode().IsRegular() {
		return "", refuse("the plugin %s is not a regular file (%s)", real, describeType(pst.Mode()))
	}
	if err := trustNativeFile(real, pst); err != nil {
		return "", refuse("the plugin: %v", err)
	}
	if err := checkTrusted(filepath.Dir(real), true); err != nil {
		return "", refuse("the plugin's directory: %v", err)
	}
	return plugin, nil
}

// checkTrusted fails unless path is owned by the user or root and not writable by group or others; a
// directory that is world-writable with the sticky bit is accepted when stickyOK (only its entries' owners can
// replace them).
func checkTrusted(path string, stickyOK bool) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	return trustedOwnerMode(path, st, stickyOK)
}

// trustNativeFile is the one rule for a file whose contents the process runs as native code — a PJRT plugin
// pointer and the plugin it names, an executable in the XLA compilation cache: a regular file owned by the
// user or root and not writable by group or others (else anyone who could write it would run code as the
// user). info describes the file itself (Lstat, or Stat of the file opened without following links); the
// error names path and the reason.
func trustNativeFile(path string, info fs.FileInfo) error {
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s)", path, describeType(info.Mode()))
	}
	return trustedOwnerMode(path, info, false)
}

// trustedOwnerMode is the ownership and permission part of checkTrusted and trustNativeFile.
func trustedOwnerMode(path string, st fs.FileInfo, stickyOK bool) error {
	if uid, ok := fileOwner(st); ok && uid != 0 && uid != os.Getuid() {
		return fmt.Errorf("%s is owned by uid %d, not by you (uid %d) or root", path, uid, os.Getuid())
	}
	if perm := st.Mode().Perm(); perm&0o022 != 0 {
		if stickyOK && st.IsDir() && st.Mode()&fs.ModeSticky != 0 {
			return nil
		}
		return fmt.Errorf("%s is writable by group or others (mode %04o): `chmod go-w %s` if you trust it", path, perm, path)
	}
	return nil
}

// describeType names a non-regular file's type for a refusal.
func describeType(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return m.Type().String()
}
