// Package xlaalloc holds one fact, shared by the package that tunes glibc's allocator for XLA
// (oryx/xlamalloc, imported by the project's commands) and the package that describes the backend
// (internal/backend), which do not import each other: whether the allocator was tuned.
package xlaalloc

// Tuned reports whether this process set glibc's allocator for XLA when it was loaded; oryx/xlamalloc sets it
// in binaries that import it (built with -tags xla on Linux with cgo).
var Tuned = func() bool { return false }
