//go:build xla

package backend

import (
	"github.com/gomlx/gomlx/backends/xla"
)

// With `-tags xla` the XLA/PJRT backend is linked in, with its plugin auto-installer switched off: plugins
// are given by path (GOMLX_BACKEND=xla:/abs/path/plugin.so) or found where `make xla-cpu` installed one;
// nothing is downloaded.
func init() {
	xla.EnableAutoInstall(false)
	xlaCompiledIn = true
	xlaMallocTuned = mallocTuned
	setupCompilationCache()
}
