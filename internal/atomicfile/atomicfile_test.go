package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplacesAndSetsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new" {
		t.Fatalf("content %q, %v; want \"new\"", got, err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != FileMode {
		t.Errorf("mode %v, want %v", st.Mode().Perm(), FileMode)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want 1 (no temporary file left)", len(ents))
	}
}

func TestWriteFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	if err := WriteFile(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		_, _ = w.Write([]byte("partial"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want it to wrap boom", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("content %q after a failed write, want \"old\"", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want 1", len(ents))
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x"), nil); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

func TestRename(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "s"), filepath.Join(dir, "d")
	if err := os.WriteFile(src, []byte("x"), FileMode); err != nil {
		t.Fatal(err)
	}
	if err := Rename(src, dst); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dst); string(got) != "x" {
		t.Errorf("dst holds %q", got)
	}
	if err := Rename(src, dst); err == nil {
		t.Error("renaming a missing file succeeded")
	}
}

// TestIsTempNamesALeftover: a write that dies inside fill (a panic here, a kill in life) leaves its temporary
// file; IsTemp recognises that very name and its destination, and nothing else.
func TestIsTempNamesALeftover(t *testing.T) {
	dir := t.TempDir()
	func() {
		defer func() { _ = recover() }()
		_ = Write(filepath.Join(dir, "config.json"), func(w io.Writer) error { panic("killed") })
	}()
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 1 {
		t.Fatalf("%d entries, %v; want the one temporary file", len(ents), err)
	}
	if dest, ok := IsTemp(ents[0].Name()); !ok || dest != "config.json" {
		t.Fatalf("IsTemp(%q) = %q, %v; want config.json, true", ents[0].Name(), dest, ok)
	}
	for _, n := range []string{"config.json", "config.json.tmp-12", ".config.json", ".config.json.tmp-", ".config.json.tmp-1x", ".tmp-12"} {
		if _, ok := IsTemp(n); ok {
			t.Errorf("IsTemp(%q) = true", n)
		}
	}
}
