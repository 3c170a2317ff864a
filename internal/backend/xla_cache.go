//go:build xla

package backend

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gomlx/gomlx/backends"
)

// CacheEnvVar chooses where XLA keeps the executables it compiles, across processes: a directory, "off", or
// unset for the default (DefaultCacheDir; off in test binaries, which write only to their temporary
// directories).
const CacheEnvVar = "ORYX_XLA_CACHE"

// CacheMinCompileEnvVar overrides cacheMinCompile (a Go duration, e.g. "0s": keep every executable). The test
// suite's own cache (scripts/test-xla.sh) keeps them all: with XLA's fast-compile flags most of its graphs
// compile in 0.1–0.5 s, and many are compiled again by later tests.
const CacheMinCompileEnvVar = "ORYX_XLA_CACHE_MIN_COMPILE"

// xlaCacheMinCompile is the threshold setupCompilationCache chose (for tests).
var xlaCacheMinCompile time.Duration

const (
	// cacheMinCompile: executables that compile faster than this are not kept (loading costs about as much).
	cacheMinCompile = 500 * time.Millisecond
	// cacheMaxBytes bounds the cache; the least recently used executables are removed beyond it.
	cacheMaxBytes = 2 << 30
)

// DefaultCacheDir is the persistent compilation cache's default directory: oryx/xla-executables in the user's
// cache directory ($XDG_CACHE_HOME or ~/.cache on Linux); "" when there is none.
func DefaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "oryx", "xla-executables")
}

// compilationCache is the patched GoMLX's XLA backend (third_party/gomlx: backends/xla/compilecache.go), which
// forwards to go-xla's persistent compilation cache (third_party/go-xla). Declared here and found on the
// backend at run time, so that this package builds against upstream GoMLX and go-xla too (a module that
// imports this one without the go.mod stanza of PATCHES.md): there is no such cache there, and Describe says so.
type compilationCache interface {
	SetCompilationCache(dir string, minCompileTime time.Duration, maxBytes int64)
	CompilationCacheDir() string
}

// compilationCacheTrust is the patched backend's hook for the rule a cache file must pass before it is read
// (third_party/go-xla: pjrt.SetCompilationCacheTrust). The project sets trustNativeFile, the rule of the
// plugin pointers: a cached executable is native code the process runs, so one that another user owns or
// could write (a cache directory shared with others through ORYX_XLA_CACHE) is not loaded but compiled again.
type compilationCacheTrust interface {
	SetCompilationCacheTrust(fn func(path string, info fs.FileInfo) error)
}

// setupCompilationCache enables the persistent compilation cache (third_party/PATCHES.md) on a new backend b
// that has one: a command that compiles the same graphs as an earlier one (the same program, options, plugin,
// XLA_FLAGS and processor) loads them in milliseconds instead of compiling them again (seconds to minutes
// each on a CPU). A file that fails to load is removed and the graph compiled again. The cache is
// process-wide; every backend created sets it from the environment again (the same settings).
//
// Without CacheEnvVar the cache is off unless byDefault (Options.CompilationCache: the project's commands, not
// a program that imports the library without asking, and never a test binary).
func setupCompilationCache(b backends.Backend, byDefault bool) {
	cc, ok := b.(compilationCache)
	if !ok {
		return
	}
	dir, set := os.LookupEnv(CacheEnvVar)
	switch {
	case dir == "off":
		dir = ""
	case !set && (testing.Testing() || !byDefault):
		dir = ""
	case !set || dir == "":
		dir = DefaultCacheDir()
	}
	minCompile := cacheMinCompile
	if v := os.Getenv(CacheMinCompileEnvVar); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			minCompile = d
		} else {
			fmt.Fprintf(os.Stderr, "backend: ignoring %s=%q: not a duration ≥ 0 (e.g. 0s, 200ms); keeping %s\n",
				CacheMinCompileEnvVar, v, cacheMinCompile)
		}
	}
	if ct, ok := b.(compilationCacheTrust); ok {
		ct.SetCompilationCacheTrust(trustNativeFile)
	} else if dir != "" {
		fmt.Fprintf(os.Stderr, "backend: this XLA backend cannot check who owns the compilation cache's files: the cache is off\n")
		dir = ""
	}
	cc.SetCompilationCache(dir, minCompile, cacheMaxBytes)
	xlaCacheMinCompile = minCompile
	xlaCacheDir = cc.CompilationCacheDir
}
