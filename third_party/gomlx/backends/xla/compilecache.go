package xla

import (
	"io/fs"
	"time"

	"github.com/gomlx/go-xla/pkg/pjrt"
)

// SetCompilationCache turns on go-xla's persistent compilation cache (pjrt.SetCompilationCache) for every XLA
// backend of the process — the cache is process-wide —: executables whose compilation took at least
// minCompileTime are kept in dir and loaded from there when the same program is compiled again, in this
// process or a later one. dir "" turns it off; beyond maxBytes the least recently used files are removed.
//
// It is a method of the backend, beside the pjrt function, so that a program holding a backends.Backend can
// find it through an interface and still build against GoMLX releases that do not have it.
func (backend *Backend) SetCompilationCache(dir string, minCompileTime time.Duration, maxBytes int64) {
	pjrt.SetCompilationCache(dir, minCompileTime, maxBytes)
}

// CompilationCacheDir returns the directory of the persistent compilation cache, "" when it is off.
func (backend *Backend) CompilationCacheDir() string { return pjrt.CompilationCacheDir() }

// SetCompilationCacheTrust sets the rule a cache file must pass before it is read (pjrt.SetCompilationCacheTrust):
// fn gets its path and the Stat of the opened file; a file it refuses is not loaded, and the program is
// compiled again.
func (backend *Backend) SetCompilationCacheTrust(fn func(path string, info fs.FileInfo) error) {
	pjrt.SetCompilationCacheTrust(fn)
}
