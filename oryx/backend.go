package oryx

import (
	"io"

	"github.com/gomlx/gomlx/backends"
	"github.com/oryx-go/oryx/internal/backend"
)

// Backend returns the process-wide GoMLX backend the project computes on, with the project's gradient
// rules installed: $GOMLX_BACKEND when set (e.g. "go:ops_sequential", "xla:/abs/path/plugin.so"); else, in
// a binary built with -tags xla, the XLA CPU plugin installed by `make xla-cpu`; else the pure-Go backend.
// It says nothing unless asked to (Setup: SetupOptions.Announce). It is the one way to get the backend for
// every program that imports oryx — the project's commands, trainer and evaluations as well as programs
// outside this module (GoMLX's backends.New would try XLA first and, offline, fail instead of falling back).
// Its implementation, internal/backend, serves the packages below oryx (layers, datasets), which cannot
// import it (internal/repocheck holds the rest of the module to this).
func Backend() (backends.Backend, error) { return backend.Get() }

// SetupOptions are the process-wide choices a program may make before its first Backend call; the zero value
// is what a program that imports the library gets without asking: nothing printed, nothing written, GoMLX's
// own defaults left alone (docs/library.md, "A good guest").
type SetupOptions struct {
	// Announce receives one line when Backend creates the backend: which one and why (on XLA built against
	// upstream GoMLX, also how to get in-place buffer donation). nil: nothing.
	Announce io.Writer
	// CompilationCache keeps the executables XLA compiles in the user's cache directory
	// (~/.cache/oryx/xla-executables) across processes, when ORYX_XLA_CACHE does not say otherwise (a directory,
	// or "off"; honoured either way). Needs the patched GoMLX of third_party/ (PATCHES.md).
	CompilationCache bool
	// GoMLXDefault sets GoMLX's process-wide backends.DefaultConfig to the pure-Go backend, so that code that calls
	// GoMLX's backends.New() itself does not try XLA (and to download a plugin) first.
	GoMLXDefault bool
}

// Setup makes o the process's choices and installs the project's gradient rules into GoMLX's VJP registry
// (which Backend also does when it creates the backend: call Setup when the program brings a backend of its
// own and trains the models on it). Call it before the first Backend call.
func Setup(o SetupOptions) {
	backend.Setup(backend.Options{Announce: o.Announce, CompilationCache: o.CompilationCache, GoMLXDefault: o.GoMLXDefault})
}

// SetupCommand is Setup as the project's commands call it first thing: the announcement on standard error
// (standard output may carry JSON), the compilation cache, GoMLX's default set to the pure-Go backend. (Their
// main packages also import oryx/xlamalloc, which tunes glibc's allocator for XLA when the binary is loaded.)
func SetupCommand() {
	o := backend.CommandOptions()
	Setup(SetupOptions{Announce: o.Announce, CompilationCache: o.CompilationCache, GoMLXDefault: o.GoMLXDefault})
}
