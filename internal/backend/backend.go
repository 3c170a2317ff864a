// Package backend selects the GoMLX backend for every entry point of the project (tests, commands,
// training) and installs the project's gradient rules (see gradients.go) before any graph is built.
//
// Selection, in order:
//
//  1. GOMLX_BACKEND, when set, is honoured as "name[:config]": e.g. "go", "go:ops_sequential",
//     "go:parallelism=-1", or "xla:/abs/path/plugin.so" for a PJRT plugin by path (XLA needs a binary built
//     with `-tags xla`).
//  2. In a binary built with `-tags xla`: the XLA CPU plugin installed by `make xla-cpu`, found through the
//     file .xla/cpu.plugin in the working directory or one of its parents (InstalledPlugin), trusted only when
//     owned by the user or root and not writable by others (plugin.go).
//  3. Otherwise the pure-Go backend in the configuration DefaultConfig ("go:parallelism=-1"): an unbounded
//     worker pool, which never could hit upstream SimpleGo v0.26's worker-pool deadlock (a DotGeneral holding
//     a worker while waiting for more, docs/gomlx.md §6; fixed in the patched GoMLX of third_party/, not in
//     an importer's upstream one), and runs independent graph nodes concurrently. It is 1.3–2×
//     faster than "go:ops_sequential" on the mixers (docs/history.md §8.1). "go:ops_sequential" is the choice for
//     debugging: nodes run one at a time and a panic inside an op comes back as an error instead of
//     ending the process.
//
// The pure-Go build never touches the network: the XLA package (with its plugin auto-installer) is only
// linked in with the `xla` build tag, and even then auto-install is disabled; a plugin is given by path.
//
// Importing the package changes nothing outside it and prints nothing (docs/library.md, "A good guest"): the
// project's gradient rules are installed when the process-wide backend is created (Get, New) or Setup is
// called; GoMLX's default backend configuration, the announcement on standard error and XLA's persistent
// compilation cache in the user's cache directory are the project's commands' choices, made by Setup with
// CommandOptions; glibc's allocator is tuned for XLA only in binaries that import oryx/xlamalloc.
package backend

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/gomlx/gomlx/backends"
	_ "github.com/gomlx/gomlx/backends/simplego" // the pure-Go backend, always available

	"github.com/oryx-go/oryx/internal/safefile"
	"github.com/oryx-go/oryx/internal/xlaalloc"
)

// EnvVar is the environment variable that selects the backend (same as GoMLX's backends.ConfigEnvVar).
const EnvVar = backends.ConfigEnvVar

// DefaultConfig is the configuration used when EnvVar is not set.
const DefaultConfig = "go:parallelism=-1"

var (
	mu     sync.Mutex
	shared backends.Backend
)

// Options are the process-wide choices Setup makes: what the project's commands want (CommandOptions), and
// what a program that imports the library may ask for. The zero value is the library's default: silent, no
// files written, GoMLX's defaults left alone.
type Options struct {
	// Announce receives, when Get creates the process-wide backend, the line Describe writes (and, on XLA built
	// against upstream GoMLX, the note on how to get in-place donation); nil says nothing.
	Announce io.Writer
	// CompilationCache keeps the executables XLA compiles across processes in DefaultCacheDir when
	// ORYX_XLA_CACHE is not set (ORYX_XLA_CACHE, when set, is honoured either way: a directory, or "off").
	CompilationCache bool
	// GoMLXDefault sets GoMLX's process-wide backends.DefaultConfig to DefaultConfig, so that code calling GoMLX's
	// backends.New() directly gets the pure-Go backend instead of GoMLX's default "xla" (which would look for,
	// and try to download, a plugin).
	GoMLXDefault bool
}

// CommandOptions are the project's commands' choices: the announcement on standard error (standard output
// may carry JSON), the compilation cache, GoMLX's default set to DefaultConfig.
func CommandOptions() Options {
	return Options{Announce: os.Stderr, CompilationCache: true, GoMLXDefault: true}
}

var (
	optMu   sync.Mutex
	options Options
)

// currentOptions is what Setup chose last (the zero Options before).
func currentOptions() Options {
	optMu.Lock()
	defer optMu.Unlock()
	return options
}

// Setup makes o the process's choices and installs the project's gradient rules (InstallGradientFixes).
// Call it before the first Get; a later call changes what later backends do (the announcement is made once,
// by the Get that creates the backend).
func Setup(o Options) {
	optMu.Lock()
	defer optMu.Unlock()
	options = o
	if o.GoMLXDefault {
		backends.DefaultConfig = DefaultConfig
	}
	InstallGradientFixes()
}

// Config returns the backend configuration that New will use: $GOMLX_BACKEND if set, else (in a binary
// built with `-tags xla`) the installed XLA CPU plugin, else DefaultConfig.
func Config() string {
	cfg, _, _ := configAndSource()
	return cfg
}

// configAndSource is Config plus where the choice came from, for Describe, and the error of an installed
// plugin's pointer file whose plugin is gone: New refuses to start then, rather than falling back to pure Go
// without a word.
func configAndSource() (config, source string, err error) {
	if cfg, ok := os.LookupEnv(EnvVar); ok && strings.TrimSpace(cfg) != "" {
		return strings.TrimSpace(cfg), EnvVar, nil
	}
	if xlaCompiledIn {
		plugin, err := InstalledPlugin("cpu")
		if err != nil {
			return DefaultConfig, "default", err
		}
		if plugin != "" {
			return "xla:" + plugin, "installed plugin (make xla-cpu)", nil
		}
	}
	return DefaultConfig, "default", nil
}

// Describe is the one line every command prints at start: the backend in use and why it was chosen, e.g.
// "backend: xla:/…/xla_cpu_pjrt.so - PJRT plugin (/…/xla_cpu_pjrt.so) v0.81 [StableHLO] [4 device(s)] (from
// installed plugin (make xla-cpu))".
func Describe(b backends.Backend) string {
	cfg, source, _ := configAndSource()
	if IsPureGo(b) {
		line := fmt.Sprintf("backend: pure Go (%s; from %s)", cfg, source)
		if xlaCompiledIn && source == "default" {
			line += "; this binary has XLA (-tags xla) but found no plugin: no .xla/cpu.plugin in the working " +
				"directory or a parent (`make xla-cpu` in a clone writes one) and " + EnvVar + " unset; set " +
				EnvVar + "=xla:/abs/path/to/the/pjrt_plugin.so (e.g. the xla_cpu_pjrt.so that `make xla-cpu` installs)"
		}
		return line
	}
	line := fmt.Sprintf("backend: %s (from %s)", b.Description(), source)
	if xlaalloc.Tuned() {
		line += "; glibc malloc set for XLA (four arenas, no mmap, no trim; ORYX_XLA_MALLOC=default keeps glibc's defaults)"
	}
	if dir := xlaCacheDir(); dir != "" {
		line += "; compiled executables kept in " + dir + " (ORYX_XLA_CACHE=off disables)"
	}
	if !xlaDonatesInPlace() {
		line += "; upstream GoMLX: no in-place buffer donation, no persistent compilation cache"
	}
	return line
}

// xlaCacheDir is set by xla_cache.go in builds with `-tags xla`: the persistent compilation cache's directory,
// "" when disabled.
var xlaCacheDir = func() string { return "" }

// xlaConfigure is set by xla.go in builds with `-tags xla`: it sets up a new XLA backend (the persistent
// compilation cache, when the backend has one).
var xlaConfigure = func(b backends.Backend, cacheByDefault bool) {}

// xlaDonatesInPlace is set by xla.go in builds with `-tags xla`: whether the XLA backend updates donated
// buffers in place (the patched GoMLX of third_party/ does; upstream v0.26.0 does not).
var xlaDonatesInPlace = func() bool { return true }

// xlaPrepare is set by xla.go in builds with `-tags xla`: it runs before this package creates an XLA backend
// (go-xla's plugin auto-installer switched off).
var xlaPrepare = func() {}

// xlaCompiledIn is set by xla.go in builds with `-tags xla`.
var xlaCompiledIn bool

// Available lists the backend names compiled into this binary ("go", plus "xla" with `-tags xla`).
func Available() []string {
	names := backends.List()
	slices.Sort(names)
	return names
}

// NewWithConfig creates a backend from a "name[:config]" string. Unlike GoMLX's backends.NewWithConfig it
// returns an error (never panics) for an unknown name, and explains how to get XLA when it is not compiled in.
func NewWithConfig(config string) (b backends.Backend, err error) {
	name, _, _ := strings.Cut(config, ":")
	if !slices.Contains(backends.List(), name) {
		if isXLAName(name) {
			return nil, fmt.Errorf("backend %q (from %s=%q) is XLA, which this binary was built without: "+
				"rebuild with `go build -tags xla` (needs cgo) and pass a PJRT plugin by absolute path, "+
				"e.g. %s=xla:/abs/path/pjrt_c_api_cuda_plugin.so", name, EnvVar, config, EnvVar)
		}
		return nil, fmt.Errorf("unknown backend %q (from %s=%q): available backends are %q",
			name, EnvVar, config, Available())
	}
	if err := checkXLAConfig(name, config); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("creating backend %q: %v", config, r)
		}
	}()
	InstallGradientFixes()
	if isXLAName(name) {
		xlaPrepare()
	}
	b, err = newQuietly(config)
	if err != nil {
		return nil, fmt.Errorf("creating backend %q (from %s or default %q): %w", config, EnvVar, DefaultConfig, err)
	}
	if isXLAName(name) {
		xlaConfigure(b, currentOptions().CompilationCache)
	}
	return b, nil
}

// New creates a new backend from Config().
func New() (backends.Backend, error) {
	cfg, _, err := configAndSource()
	if err != nil {
		return nil, err
	}
	return NewWithConfig(cfg)
}

// Get returns the process-wide backend, created from Config() on first use (and announced to
// Options.Announce). Tests and commands share it so that compiled graphs and buffer pools are reused.
func Get() (backends.Backend, error) {
	mu.Lock()
	defer mu.Unlock()
	if shared != nil {
		return shared, nil
	}
	b, err := New()
	if err != nil {
		return nil, err
	}
	shared = b
	if w := currentOptions().Announce; w != nil {
		fmt.Fprintln(w, Describe(b))
		if note := patchNote(b); note != "" {
			fmt.Fprintln(w, note)
		}
	}
	return b, nil
}

// SetAnnounce changes where Get announces the backend it creates (Options.Announce; nil: nowhere), leaving
// the other options as they are: the self-check reports the backend in its own report.
func SetAnnounce(w io.Writer) {
	optMu.Lock()
	defer optMu.Unlock()
	options.Announce = w
}

// MustGet is Get for entry points (tests, main): it panics with the selection error.
func MustGet() backends.Backend {
	b, err := Get()
	if err != nil {
		panic(err)
	}
	return b
}

// IsPureGo reports whether b is the pure-Go (SimpleGo) backend.
func IsPureGo(b backends.Backend) bool {
	return b.Name() == "go" || strings.HasPrefix(b.String(), "go")
}

// OnHost reports whether b computes in this machine's memory with its CPUs: the pure-Go backend, or XLA with
// a CPU plugin (its devices describe themselves as "…CPU…", e.g. TFRT_CPU_0). Memory and time plans check
// the host's memory for such backends.
func OnHost(b backends.Backend) bool {
	if IsPureGo(b) {
		return true
	}
	return b.NumDevices() > 0 && strings.Contains(strings.ToUpper(b.DeviceDescription(0)), "CPU")
}

func isXLAName(name string) bool {
	switch name {
	case "xla", "stablehlo", "shlo", "hlo", "pjrt":
		return true
	}
	return false
}

// checkXLAConfig refuses XLA configurations that would make go-xla search for, or download, a plugin: the
// project only accepts a plugin given by absolute path (or an explicit plugin name already installed, when
// the user opts in with GOMLX_XLA_ALLOW_SEARCH=1).
func checkXLAConfig(name, config string) error {
	if !isXLAName(name) {
		return nil
	}
	_, rest, _ := strings.Cut(config, ":")
	plugin, _, _ := strings.Cut(rest, ",")
	if plugin == "" {
		return fmt.Errorf("%s=%q: the XLA backend needs a PJRT plugin given by absolute path, "+
			"e.g. %s=xla:/abs/path/pjrt_c_api_cuda_plugin.so", EnvVar, config, EnvVar)
	}
	if strings.HasPrefix(plugin, "/") {
		st, err := os.Stat(plugin)
		if err != nil {
			return fmt.Errorf("%s=%q: PJRT plugin file: %w", EnvVar, config, err)
		}
		// dlopen of a FIFO waits for a writer forever, of a device reads it: only a shared library file is loaded.
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s=%q: PJRT plugin %s is %s, not a regular file (a shared library): refusing to load it",
				EnvVar, config, plugin, safefile.Describe(st.Mode()))
		}
		return nil
	}
	if os.Getenv("GOMLX_XLA_ALLOW_SEARCH") == "1" {
		return nil
	}
	return fmt.Errorf("%s=%q: give the PJRT plugin by absolute path (e.g. xla:/abs/path/pjrt_c_api_cuda_plugin.so); "+
		"to let go-xla search its plugin directories for %q set GOMLX_XLA_ALLOW_SEARCH=1", EnvVar, config, plugin)
}

// newQuietly creates the backend with stdout silenced: SimpleGo v0.26 prints "parallelism set to N" on
// stdout, which would corrupt the output of commands that print JSON.
func newQuietly(config string) (backends.Backend, error) {
	name, _, _ := strings.Cut(config, ":")
	if name != "go" || !strings.Contains(config, "parallelism") {
		return backends.NewWithConfig(config)
	}
	stdoutMu.Lock()
	defer stdoutMu.Unlock()
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return backends.NewWithConfig(config)
	}
	saved := os.Stdout
	os.Stdout = devNull
	defer func() { os.Stdout = saved; devNull.Close() }()
	return backends.NewWithConfig(config)
}

var stdoutMu sync.Mutex
