//go:build xla

package backend

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomlx/go-xla/pkg/pjrt"
	"github.com/gomlx/gomlx/backends"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/stretchr/testify/require"
)

// cacheSuffix names the compilation cache's files (third_party/go-xla/pkg/pjrt/compilecache.go).
const cacheSuffix = ".pjrt-executable"

// cachePrograms compiles two programs of different signatures through the compilation cache: square
// (x² + 1, one parameter) and product (x·y + x, two). Each call compiles anew (and so loads from the cache when
// an entry is there) and checks the result.
type cachePrograms struct {
	t       *testing.T
	backend backends.Backend
	dir     string
}

// newCachePrograms enables the compilation cache in a temporary directory (every executable kept, at most
// maxBytes) for the test, skipping on the pure-Go backend.
func newCachePrograms(t *testing.T, maxBytes int64) *cachePrograms {
	b := MustGet()
	if IsPureGo(b) {
		t.Skip("the compilation cache is XLA's")
	}
	dir := t.TempDir()
	pjrt.SetCompilationCache(dir, 0, maxBytes)
	t.Cleanup(func() { setupCompilationCache(b, false) }) // back to the settings of the environment
	return &cachePrograms{t: t, backend: b, dir: dir}
}

func (p *cachePrograms) square() {
	p.t.Helper()
	got := MustExecOnce(p.backend, func(x *Node) *Node { return AddScalar(Square(x), 1) }, float32(3))
	require.Equal(p.t, float32(10), got.Value(), "square(3)")
}

func (p *cachePrograms) product() {
	p.t.Helper()
	got := MustExecOnce(p.backend, func(x, y *Node) *Node { return Add(Mul(x, y), x) }, float32(3), float32(4))
	require.Equal(p.t, float32(15), got.Value(), "product(3, 4)")
}

// entries lists the cache files.
func (p *cachePrograms) entries() []string {
	names, err := filepath.Glob(filepath.Join(p.dir, "*"+cacheSuffix))
	require.NoError(p.t, err)
	return names
}

// entryOf compiles run's program and returns the path of the one cache file it added.
func (p *cachePrograms) entryOf(run func()) string {
	before := p.entries()
	run()
	for _, path := range p.entries() {
		if !strings.Contains(strings.Join(before, "\n"), path) {
			return path
		}
	}
	p.t.Fatal("no cache file was stored")
	return ""
}

func readFile(t *testing.T, path string) []byte {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// requireHolds checks that the cache file path holds the executable of the program (square or product): the
// serialization names the graph, whose name is the function's (compiling again does not give the same bytes).
func (p *cachePrograms) requireHolds(path, program string) {
	p.t.Helper()
	data := string(readFile(p.t, path))
	other := map[string]string{"square": "product", "product": "square"}[program]
	require.Contains(p.t, data, "cachePrograms__"+program+"_", "%s holds %s's executable", path, program)
	require.NotContains(p.t, data, "cachePrograms__"+other+"_", "%s holds %s's executable", path, program)
}

// TestCompilationCacheVerifiesEntries: a cache file that still loads but is corrupt, or
// holds another program's executable, is never run: it is replaced by the program's own, compiled again.
// Before the fix a one-byte change crashed later runs (SIGSEGV/SIGILL) and swapped files failed every run
// ("failed to execute graph").
func TestCompilationCacheVerifiesEntries(t *testing.T) {
	t.Run("one byte changed", func(t *testing.T) {
		p := newCachePrograms(t, 0)
		path := p.entryOf(p.square)
		// A byte the plugin does not check (a letter of the program's name): the file still loads and runs,
		// as a changed byte of the compiled code would, and then crashes.
		data := readFile(t, path)
		at := bytes.Index(data, []byte("cachePrograms__square"))
		require.GreaterOrEqual(t, at, 0, "the serialization names the program")
		data[at] ^= 0x20
		require.NoError(t, os.WriteFile(path, data, 0o644))
		p.square()
		require.False(t, bytes.Equal(data, readFile(t, path)), "the corrupt file was not replaced")
		p.square() // the replacement is found and runs
	})
	t.Run("contents swapped between keys", func(t *testing.T) {
		p := newCachePrograms(t, 0)
		squarePath, productPath := p.entryOf(p.square), p.entryOf(p.product)
		squareData, productData := readFile(t, squarePath), readFile(t, productPath)
		require.NoError(t, os.WriteFile(squarePath, productData, 0o644))
		require.NoError(t, os.WriteFile(productPath, squareData, 0o644))
		p.square()
		p.product()
		p.requireHolds(squarePath, "square")
		p.requireHolds(productPath, "product")
	})
	t.Run("another program's entry under this key", func(t *testing.T) {
		// A file that passes verification (its header names this key, its checksum matches) but holds
		// another program: its first execution fails, and it is removed, compiled again and run once more.
		p := newCachePrograms(t, 0)
		squarePath, productPath := p.entryOf(p.square), p.entryOf(p.product)
		key := func(path string) []byte { return []byte(strings.TrimSuffix(filepath.Base(path), cacheSuffix)) }
		forged := bytes.ReplaceAll(readFile(t, productPath), key(productPath), key(squarePath))
		require.NoError(t, os.WriteFile(squarePath, forged, 0o644))
		p.requireHolds(squarePath, "product")
		p.square()
		p.requireHolds(squarePath, "square")
		p.square()
	})
}

// TestCompilationCacheReadsOnlyBoundedRegularFiles: a cache file that is a symbolic link to
// /dev/zero, a FIFO or larger than the bound is removed and the program compiled again, without reading it
// (before the fix: out of memory, or a hang on the FIFO).
func TestCompilationCacheReadsOnlyBoundedRegularFiles(t *testing.T) {
	const maxBytes = 64 << 20
	for _, c := range []struct {
		name  string
		plant func(t *testing.T, path string)
	}{
		{"symlink to /dev/zero", func(t *testing.T, path string) { require.NoError(t, os.Symlink("/dev/zero", path)) }},
		{"FIFO", func(t *testing.T, path string) { require.NoError(t, syscall.Mkfifo(path, 0o644)) }},
		{"sparse file beyond the bound", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, nil, 0o644))
			require.NoError(t, os.Truncate(path, 20<<30)) // 20 GB, no blocks
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newCachePrograms(t, maxBytes)
			path := p.entryOf(p.square)
			require.NoError(t, os.Remove(path))
			c.plant(t, path)
			done := make(chan struct{})
			go func() {
				defer close(done)
				p.square()
			}()
			select {
			case <-done:
			case <-time.After(2 * time.Minute):
				t.Fatalf("compiling with %s as the cache file hung", c.name)
			}
			info, err := os.Lstat(path)
			require.NoError(t, err, "the program is stored again")
			require.True(t, info.Mode().IsRegular(), "the cache file is a regular file again: %s", info.Mode())
			require.Less(t, info.Size(), int64(maxBytes))
		})
	}
}

// TestCompilationCacheTrimsTempFiles: a killed writer's temporary file (<key>.tmp<n>, an
// hour old) is removed when the cache is next written; a recent one (a writer at work) is kept and counted in
// the size bound; other names in the directory are left alone.
func TestCompilationCacheTrimsTempFiles(t *testing.T) {
	const maxBytes = 8 << 20
	p := newCachePrograms(t, maxBytes)
	key := strings.Repeat("ab", 32)
	plant := func(name string, size int64, age time.Duration) string {
		path := filepath.Join(p.dir, name)
		require.NoError(t, os.WriteFile(path, nil, 0o644))
		require.NoError(t, os.Truncate(path, size))
		when := time.Now().Add(-age)
		require.NoError(t, os.Chtimes(path, when, when))
		return path
	}
	stale := plant(key+".tmp123", 1<<30, 2*time.Hour)
	writing := plant(key+".tmp456", maxBytes-1, 0)
	users := plant("notes.tmp1", 1<<30, 2*time.Hour)

	p.square()
	require.NoFileExists(t, stale, "a killed writer's temporary file is removed")
	require.FileExists(t, writing, "a writer's file being written is kept")
	require.FileExists(t, users, "a name the cache did not write is left alone")
	require.Empty(t, p.entries(), "with the file being written, no executable fits in the bound")
}

// plantedEntry stores square's executable, then lets change alter its cache file (a valid entry of the
// program) and returns the path with the file's identity after the change.
func (p *cachePrograms) plantedEntry(change func(path string)) (string, os.FileInfo) {
	p.t.Helper()
	path := p.entryOf(p.square)
	change(path)
	info, err := os.Stat(path)
	require.NoError(p.t, err)
	return path, info
}

// TestCompilationCacheRefusesOthersEntries: with ORYX_XLA_CACHE on a directory shared with others, a cache
// file another user owns or could write is native code the process would run as the user: it is not loaded
// (the rule of the plugin pointers, trustNativeFile), the program is compiled again and its executable
// replaces the file. Before the fix such files were loaded and run.
func TestCompilationCacheRefusesOthersEntries(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, path string)
	}{
		{"writable by others", func(t *testing.T, path string) { require.NoError(t, os.Chmod(path, 0o666)) }},
		{"owned by another user", func(t *testing.T, path string) {
			if os.Getuid() != 0 {
				t.Skip("needs root to chown a file to another user")
			}
			require.NoError(t, os.Chown(path, 4242, 4242))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newCachePrograms(t, 0)
			require.NoError(t, os.Chmod(p.dir, 0o777)) // a shared directory
			path, planted := p.plantedEntry(func(path string) { c.change(t, path) })
			p.square()
			now, err := os.Stat(path)
			require.NoError(t, err, "the program is stored again")
			require.False(t, os.SameFile(planted, now), "the untrusted file was loaded instead of replaced")
			require.NoError(t, trustNativeFile(path, now), "the new file is the user's")
			p.square() // the user's own file is found and runs
		})
	}
}

// TestCompilationCacheChecksTheHeaderFirst: a cache file within the size bound that is not the program's
// (no header, another key) costs the header's bytes, not its size: three 1.9 GB sparse files took 9 GB of
// memory when each was read whole before its header was checked.
func TestCompilationCacheChecksTheHeaderFirst(t *testing.T) {
	const size = 48 << 20
	for _, c := range []struct {
		name   string
		header string
	}{
		{"no header", ""},
		{"another program's key", "go-xla pjrt executable v2\nkey " + strings.Repeat("ab", 32) + "\nsha256 " + strings.Repeat("cd", 32) + "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newCachePrograms(t, 64<<20)
			path := p.entryOf(p.square)
			require.NoError(t, os.WriteFile(path, []byte(c.header), 0o600))
			require.NoError(t, os.Truncate(path, size)) // sparse beyond the header
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			p.square()
			runtime.ReadMemStats(&after)
			require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(size/4), "the file was read whole")
			info, err := os.Stat(path)
			require.NoError(t, err)
			require.Less(t, info.Size(), int64(size), "the file is replaced by the program's own")
		})
	}
}
