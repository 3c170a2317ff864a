//go:build xla

package backend

import (
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/xla"
)

// With `-tags xla` the XLA/PJRT backend is linked in, with its plugin auto-installer switched off: plugins
// are given by path (GOMLX_BACKEND=xla:/abs/path/plugin.so) or found where `make xla-cpu` installed one;
// nothing is downloaded.
func init() {
	xla.EnableAutoInstall(false)
	xlaCompiledIn = true
	xlaMallocTuned = mallocTuned
	xlaConfigure = setupCompilationCache
	xlaDonatesInPlace = builderDonatesInPlace
}

// bufferDonorBuilder is the optional interface of the patched GoMLX's builders (third_party/gomlx:
// backends.BufferDonorBuilder, PATCHES.md): a builder that has it compiles programs that write their outputs
// into the buffers donated to them. It is declared here, not named from GoMLX, so that this package builds
// against upstream GoMLX v0.26.0 too — what a module that imports this one gets without the go.mod stanza of
// PATCHES.md ("For importers").
type bufferDonorBuilder interface {
	MarkBufferDonor(parameter backends.Op) error
}

// builderDonatesInPlace: the XLA builder of the GoMLX this binary was built with marks donated parameters, so
// donated caches and weights are updated in place (else each decode step copies its caches).
func builderDonatesInPlace() bool {
	_, ok := any((*xla.Builder)(nil)).(bufferDonorBuilder)
	return ok
}
