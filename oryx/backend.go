package oryx

import (
	"github.com/gomlx/gomlx/backends"
	"github.com/oryx-go/oryx/internal/backend"
)

// Backend returns the process-wide GoMLX backend the project computes on, with the project's gradient
// rules installed: $GOMLX_BACKEND when set (e.g. "go:ops_sequential", "xla:/abs/path/plugin.so"); else, in
// a binary built with -tags xla, the XLA CPU plugin installed by `make xla-cpu`; else the pure-Go backend.
// The first call says on standard error which one it is. It is the one way to get the backend for every
// program that imports oryx — the project's commands, trainer and evaluations as well as programs outside
// this module (GoMLX's backends.New would try XLA first and, offline, fail instead of falling back). Its
// implementation, internal/backend, serves the packages below oryx (layers, datasets), which cannot import it
// (internal/repocheck holds the rest of the module to this).
func Backend() (backends.Backend, error) { return backend.Get() }
