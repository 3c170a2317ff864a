package pjrt

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gomlx/go-xla/pkg/stablehlo"
	"github.com/gomlx/go-xla/pkg/types/dtypes"
	"github.com/gomlx/go-xla/pkg/types/shapes"
)

// TestCompilationCache: a compiled executable is stored, found again by a second compilation of the same
// program (which then returns the same results), and a corrupt cache file is removed and recompiled.
func TestCompilationCache(t *testing.T) {
	client := getPJRTClient(t)
	dir := t.TempDir()
	SetCompilationCache(dir, 0, 0)
	defer SetCompilationCache("", 0, 0)

	program := func() []byte {
		builder := stablehlo.New(t.Name())
		fn := builder.Main()
		x := must1(fn.NamedInput("x", shapes.Make(dtypes.F32)))
		y := capture(stablehlo.Multiply(x, x)).Test(t)
		requireNoError(t, fn.Return(capture(stablehlo.Add(y, x)).Test(t)))
		return capture(builder.Build()).Test(t)
	}
	files := func() []string {
		names, err := filepath.Glob(filepath.Join(dir, "*"+compilationCacheSuffix))
		requireNoError(t, err)
		return names
	}

	first, err := client.Compile().WithStableHLO(program()).Done()
	requireNoError(t, err)
	assertLen(t, files(), 1, "one executable stored")
	assertEqual(t, float32(12), execWithScalars(t, client, first, float32(3)))

	start := time.Now()
	second, err := client.Compile().WithStableHLO(program()).Done()
	requireNoError(t, err)
	t.Logf("cached executable loaded in %s", time.Since(start))
	assertEqual(t, float32(12), execWithScalars(t, client, second, float32(3)))
	assertLen(t, files(), 1, "found, not stored again")

	requireNoError(t, os.WriteFile(files()[0], []byte("not an executable"), 0o644))
	third, err := client.Compile().WithStableHLO(program()).Done()
	requireNoError(t, err)
	assertEqual(t, float32(12), execWithScalars(t, client, third, float32(3)))
	data, err := os.ReadFile(files()[0])
	requireNoError(t, err)
	if string(data) == "not an executable" {
		t.Fatal("the corrupt cache file was not replaced")
	}
}
