package backend

import (
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/gomlx/gomlx/backends"
)

// ModulePath is this project's module path.
const ModulePath = "github.com/oryx-go/oryx"

// patchNote is what Get prints once, after Describe's line, when b is an XLA backend built against upstream
// GoMLX: a module that imports this one gets the GoMLX and go-xla its go.mod requires (v0.26.0, v0.1.4),
// because this repository's replace directives apply only when it is the main module. Everything computes
// the same there, but donated buffers are not updated in place — each decode step copies its KV cache and
// linear state, each training step its weights — and compiled executables are not kept across processes.
// The note gives the go.mod lines that bring the patched modules of third_party/ (PATCHES.md, "For
// importers"), with the path of the checkout this binary was built from when its go.mod replaced the
// module by a local directory. "" for every other backend.
func patchNote(b backends.Backend) string {
	if IsPureGo(b) || xlaDonatesInPlace() {
		return ""
	}
	return upstreamNote()
}

// upstreamNote is patchNote's text.
func upstreamNote() string {
	root := "/path/to/a/clone/of/" + ModulePath
	if dir := replacedModuleDir(); dir != "" {
		root = dir
	}
	return "backend: note: running on XLA without in-place buffer donation (upstream GoMLX v0.26.0: each decode " +
		"step copies its caches) and without the persistent compilation cache. For both, add to your go.mod " +
		"(third_party/PATCHES.md of " + ModulePath + ", \"For importers\"):\n" +
		"    replace github.com/gomlx/gomlx => " + filepath.Join(root, "third_party", "gomlx") + "\n" +
		"    replace github.com/gomlx/go-xla => " + filepath.Join(root, "third_party", "go-xla")
}

// replacedModuleDir is the local directory this project's module was replaced by in the main module's
// go.mod (a checkout), "" when it was not replaced by a directory (or this binary is the project's own).
func replacedModuleDir() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range info.Deps {
		if d.Path == ModulePath && d.Replace != nil &&
			(filepath.IsAbs(d.Replace.Path) || strings.HasPrefix(d.Replace.Path, ".")) {
			return d.Replace.Path
		}
	}
	return ""
}
