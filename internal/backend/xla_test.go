//go:build xla

package backend

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gomlx/gomlx/backends/xla"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/stretchr/testify/require"
)

// TestXLAZeroSizedInputPanics is the minimal reproduction of a go-xla v0.1.4 defect the project works
// around: passing a zero-sized tensor (e.g. [2, 0]) to an executable on XLA panics inside go-xla
// (pjrt.BufferFromHostConfig.FromFlatDataWithDimensions reads element 0 of the empty slice to find the
// dtype: "reflect: slice index out of range"), where the pure-Go backend accepts it. The only place the
// project passes such a tensor is a test of width-1 convolutions (their state has zero rows), which skips
// that case on XLA (layers/conv_test.go). When this test starts failing, go-xla is fixed: drop the skip.
func TestXLAZeroSizedInputPanics(t *testing.T) {
	b := MustGet()
	if IsPureGo(b) {
		t.Skip("pure-Go backend: zero-sized inputs work")
	}
	empty := tensors.FromShape(shapes.Make(dtypes.Float32, 2, 0))
	var recovered any
	func() {
		defer func() { recovered = recover() }()
		MustExecOnce(b, func(x *Node) *Node { return ReduceAllSum(x) }, empty)
	}()
	require.NotNil(t, recovered, "go-xla accepted a zero-sized input: the workaround in layers/conv_test.go can go")
	require.Contains(t, fmt.Sprint(recovered), "index out of range")
}

// The patched GoMLX's XLA backend has what this package looks for at run time (a renamed or changed method
// would otherwise only turn the features off): the compilation cache's methods, checked when this test
// compiles, and the builder's buffer-donor mark.
var _ compilationCache = (*xla.Backend)(nil)

func TestPatchedGoMLXDetected(t *testing.T) {
	require.True(t, xlaDonatesInPlace(), "the XLA builder of third_party/gomlx has no MarkBufferDonor")
	require.Empty(t, patchNote(MustGet()))
}

// TestCompilationCacheSetting: ORYX_XLA_CACHE names the directory of the persistent compilation cache or turns
// it off; test binaries run without it unless it is set (tests write only to their temporary directories).
func TestCompilationCacheSetting(t *testing.T) {
	b := MustGet()
	if _, ok := b.(compilationCache); !ok {
		t.Skipf("backend %s has no persistent compilation cache", b.Name())
	}
	setupCompilationCache := func() { setupCompilationCache(b, false) }
	defer setupCompilationCache()
	dir := t.TempDir()
	for _, c := range []struct{ env, want string }{{dir, dir}, {"off", ""}, {"", DefaultCacheDir()}} {
		t.Setenv(CacheEnvVar, c.env)
		setupCompilationCache()
		require.Equal(t, c.want, xlaCacheDir(), "%s=%q", CacheEnvVar, c.env)
	}
	os.Unsetenv(CacheEnvVar)
	setupCompilationCache()
	require.Equal(t, "", xlaCacheDir(), "off in test binaries unless set")

	// ORYX_XLA_CACHE_MIN_COMPILE: a duration ≥ 0 replaces the 0.5 s threshold; anything else keeps it.
	for _, c := range []struct {
		env  string
		want time.Duration
	}{{"", cacheMinCompile}, {"0s", 0}, {"200ms", 200 * time.Millisecond}, {"-1s", cacheMinCompile}, {"soon", cacheMinCompile}} {
		t.Setenv(CacheMinCompileEnvVar, c.env)
		setupCompilationCache()
		require.Equal(t, c.want, xlaCacheMinCompile, "%s=%q", CacheMinCompileEnvVar, c.env)
	}
	os.Unsetenv(CacheMinCompileEnvVar)
}
