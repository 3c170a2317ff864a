//go:build xla

package backend

import (
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/xla"
)

// With `-tags xla` the XLA/PJRT backend is linked in, with its plugin auto-installer switched off before this
// package creates an XLA backend (go-xla's switch is process-wide, so it is not touched at import): plugins
// are given by path (GOMLX_BACKEND=xla:/abs/path/plugin.so) or found where `make xla-cpu` installed one;
// nothing is downloaded. These assignments are to this package's own variables.
func init() {
	xlaCompiledIn = true
	xlaPrepare = func() { xla.EnableAutoInstall(false) }
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
