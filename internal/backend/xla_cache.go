//go:build xla

package backend

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gomlx/go-xla/pkg/pjrt"
)

// CacheEnvVar chooses where XLA keeps the executables it compiles, across processes: a directory, "off", or
// unset for the default (DefaultCacheDir; off in test binaries, which write only to their temporary
// directories).
const CacheEnvVar = "ORYX_XLA_CACHE"

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

// setupCompilationCache enables go-xla's persistent compilation cache (third_party/PATCHES.md): a command that
// compiles the same graphs as an earlier one (the same program, options, plugin, XLA_FLAGS and processor) loads
// them in milliseconds instead of compiling them again (seconds to minutes each on a CPU). A file that fails to
// load is removed and the graph compiled again.
func setupCompilationCache() {
	dir, set := os.LookupEnv(CacheEnvVar)
	switch {
	case dir == "off":
		dir = ""
	case !set && testing.Testing():
		dir = ""
	case !set || dir == "":
		dir = DefaultCacheDir()
	}
	pjrt.SetCompilationCache(dir, cacheMinCompile, cacheMaxBytes)
	xlaCacheDir = pjrt.CompilationCacheDir
}
