package backend

import (
	"os"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/stretchr/testify/require"
)

func TestDefaultIsPureGo(t *testing.T) {
	t.Setenv(EnvVar, "")
	os.Unsetenv(EnvVar)
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
