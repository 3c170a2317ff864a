package backend

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/stretchr/testify/require"
)

func TestDefaultIsPureGo(t *testing.T) {
	t.Setenv(EnvVar, "")
	os.Unsetenv(EnvVar)
	if plugin, err := InstalledPlugin("cpu"); xlaCompiledIn && err == nil && plugin != "" {
		// A -tags xla build with `make xla-cpu`'s plugin installed: the plugin comes before pure Go.
		require.Equal(t, "xla:"+plugin, Config())
		return
	}
	require.Equal(t, DefaultConfig, Config())
	b, err := New()
	require.NoError(t, err)
	require.True(t, IsPureGo(b))
	out := MustExecOnce(b, func(x *Node) *Node { return MulScalar(x, 2) }, []float64{1, 2, 3})
	require.Equal(t, []float64{2, 4, 6}, out.Value())
}

func TestEnvHonoured(t *testing.T) {
	t.Setenv(EnvVar, "go:parallelism=-1")
	require.Equal(t, "go:parallelism=-1", Config())
	b, err := New()
	require.NoError(t, err)
	require.True(t, IsPureGo(b))
}

func TestUnknownBackendIsError(t *testing.T) {
	t.Setenv(EnvVar, "tpu9000")
	_, err := New()
	require.ErrorContains(t, err, `unknown backend "tpu9000"`)
	require.ErrorContains(t, err, "go")
}

func TestBadSimpleGoOptionIsError(t *testing.T) {
	t.Setenv(EnvVar, "go:warp_speed")
	_, err := New()
	require.Error(t, err)
	require.Contains(t, err.Error(), "warp_speed")
}

func TestXLAWithoutPluginPathIsError(t *testing.T) {
	for _, cfg := range []string{"xla", "xla:cuda", "xla:/nonexistent/pjrt_c_api_cuda_plugin.so"} {
		t.Setenv(EnvVar, cfg)
		_, err := New()
		require.Error(t, err, cfg)
		require.Contains(t, err.Error(), "xla", cfg)
	}
}

func TestOnHost(t *testing.T) {
	// Every backend this suite runs on (pure Go, XLA CPU) computes on the host.
	require.True(t, OnHost(MustGet()), MustGet().Name())
}

func TestInstalledPluginFromParentDirectory(t *testing.T) {
	root := t.TempDir()
	plugin := filepath.Join(root, ".xla", "cpu", "libfake.so")
	require.NoError(t, os.MkdirAll(filepath.Dir(plugin), 0o755))
	require.NoError(t, os.WriteFile(plugin, nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".xla", "cpu.plugin"), []byte(plugin+"\n"), 0o644))
	sub := filepath.Join(root, "a", "b")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	t.Chdir(sub)
	got, err := InstalledPlugin("cpu")
	require.NoError(t, err)
	require.Equal(t, plugin, got)
	got, err = InstalledPlugin("cuda")
	require.NoError(t, err)
	require.Empty(t, got, "no cuda plugin installed")

	require.NoError(t, os.Remove(plugin))
	_, err = InstalledPlugin("cpu")
	require.ErrorContains(t, err, "make xla-cpu")
}

func TestXLAPluginThatFailsToLoadIsError(t *testing.T) {
	if !xlaCompiledIn {
		t.Skip("XLA is not compiled in (build with -tags xla)")
	}
	bad := filepath.Join(t.TempDir(), "not-a-plugin.so")
	require.NoError(t, os.WriteFile(bad, []byte("not an ELF file"), 0o644))
	_, err := NewWithConfig("xla:" + bad)
	require.Error(t, err)
	require.Contains(t, err.Error(), bad)
}

// TestStalePluginPointerIsError: in a -tags xla build with no GOMLX_BACKEND, a .xla/cpu.plugin whose plugin
// file is gone makes New fail with the rerun advice instead of silently falling back to pure Go.
func TestStalePluginPointerIsError(t *testing.T) {
	if !xlaCompiledIn {
		t.Skip("XLA is not compiled in (build with -tags xla): the installed plugin is not consulted")
	}
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".xla"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".xla", "cpu.plugin"), []byte(filepath.Join(root, "gone.so")), 0o644))
	t.Chdir(root)
	t.Setenv(EnvVar, "")
	os.Unsetenv(EnvVar)
	_, err := New()
	require.ErrorContains(t, err, "make xla-cpu")
}

// TestDescribeHintsAtXLAWithoutPlugin: a binary built with -tags xla that finds no plugin (none installed above
// the working directory, GOMLX_BACKEND unset) runs pure Go and its start-up line says how to give one; a pure-Go
// build's line does not.
func TestDescribeHintsAtXLAWithoutPlugin(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(EnvVar, "")
	b := MustGet()
	if !IsPureGo(b) {
		t.Skip("the process-wide backend is not pure Go")
	}
	saved := xlaCompiledIn
	t.Cleanup(func() { xlaCompiledIn = saved })
	xlaCompiledIn = false
	require.NotContains(t, Describe(b), EnvVar+"=xla:")
	xlaCompiledIn = true
	line := Describe(b)
	require.Contains(t, line, "backend: pure Go ("+DefaultConfig+"; from default)")
	require.Contains(t, line, "this binary has XLA (-tags xla) but found no plugin")
	require.Contains(t, line, EnvVar+"=xla:/abs/path/to/the/pjrt_plugin.so")
}
