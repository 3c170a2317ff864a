// Package atomicfile is the project's one way of writing a file that readers and crashes must never see half
// written: the bytes go to a temporary file in the destination's directory, which is synced, renamed over the
// destination, and the directory is synced so that the rename itself survives a power loss.
//
// Permission policy: every file the project writes is 0644 (FileMode) and every directory it creates is 0755
// (DirMode) — run directories, results and exports are meant to be read by other users and tools; nothing the
// project writes is secret. os.CreateTemp makes 0600 files, so the mode is set explicitly before the rename.
//
// A failed write removes its temporary file and leaves the destination as it was.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// FileMode and DirMode are the permissions of every file and directory the project creates.
const (
	FileMode os.FileMode = 0o644
	DirMode  os.FileMode = 0o755
)

// The temporary file of a write to NAME is ".NAME.tmp-" and a random decimal (os.CreateTemp's): hidden, next
// to its destination, and recognisable by IsTemp when a killed process leaves it behind.
func tempPattern(name string) string { return "." + name + tempInfix + "*" }

const tempInfix = ".tmp-"

// IsTemp reports whether name (a base name) is the temporary file of a write by this package, and of which
// destination: what a process killed during Write leaves in the directory.
func IsTemp(name string) (dest string, ok bool) {
	rest, ok := strings.CutPrefix(name, ".")
	if !ok {
		return "", false
	}
	i := strings.LastIndex(rest, tempInfix)
	if i <= 0 {
		return "", false
	}
	digits := rest[i+len(tempInfix):]
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	return rest[:i], true
}

// WriteFile writes data to path atomically (see the package documentation). The directory must exist.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write calls fill with a buffered writer on a temporary file next to path and, when fill succeeds, makes
// the file path atomically. The directory must exist.
func Write(path string, fill func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tempPattern(filepath.Base(path)))
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
			err = fmt.Errorf("writing %s: %w", path, err)
		}
	}()
	bw := bufio.NewWriter(f)
	if err = fill(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(FileMode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	SyncDir(dir)
	return nil
}

// Rename moves the finished file src over dst (same file system) after syncing src, then syncs dst's
// directory: for writers that produce a file in stages (a parquet writer, GoMLX's checkpoint files) and
// only need the last step made durable.
func Rename(src, dst string) error {
	if err := SyncFile(src); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err != nil {
		return err
	}
	SyncDir(filepath.Dir(dst))
	return nil
}

// SyncFile flushes a file's contents to stable storage.
func SyncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// SyncDir flushes a directory's entries (a rename into it) to stable storage. It is best effort: some file
// systems refuse to sync a directory, and the data itself is already synced by then.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
