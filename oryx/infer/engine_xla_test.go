//go:build xla

package infer

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gomlx/go-xla/pkg/pjrt"
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// cacheBuffers returns the sorted device addresses of the engine's KV caches (XLA only).
func cacheBuffers(t *testing.T, e *Engine) []uintptr {
	t.Helper()
	var out []uintptr
	for _, s := range e.state {
		if d := s.Shape().Dimensions; len(d) != 4 || !slices.Contains(d, e.capacity) {
			continue
		}
		buf, err := s.Buffer(e.backend, 0)
		require.NoError(t, err)
		ptr, err := buf.(*pjrt.Buffer).UnsafePointer()
		require.NoError(t, err)
		out = append(out, uintptr(ptr))
	}
	slices.Sort(out)
	return out
}

// TestEngineCacheUpdatedInPlace: on XLA, decode steps (attention, linear, mixed rows) and speculative rounds
// write the KV caches into the buffers they were given — the engine donates its state and the patched GoMLX
// lets XLA alias the outputs to the donated inputs (third_party/PATCHES.md) — so no step copies the caches:
// after every generated token the caches' device addresses are those the prefill left.
func TestEngineCacheUpdatedInPlace(t *testing.T) {
	be := backend.MustGet()
	if backend.IsPureGo(be) {
		t.Skip("the pure-Go backend has no device buffers to compare")
	}
	e := newTestEngine(t, oryx.OryxTG, 2, 32)
	prompts := oryxtest.RandomTokens(3, 2, 5, e.model.Config.Vocab)
	for _, c := range []struct {
		schedule    string
		speculative int
	}{{"attention", 0}, {"linear", 0}, {"attention-last:4", 0}, {"attention", 2}} {
		t.Run(fmt.Sprintf("%s/K=%d", c.schedule, c.speculative), func(t *testing.T) {
			var first []uintptr
			calls := 0
			opts := GenerateOptions{Schedule: c.schedule, MaxTokens: 6, Progress: func(done, total int) {
				calls++
				if first == nil {
					first = cacheBuffers(t, e)
					require.Len(t, first, 2*e.model.Config.Layers)
					return
				}
				require.Equal(t, first, cacheBuffers(t, e), "the KV caches moved after %d tokens", done)
			}}
			var err error
			if c.speculative == 0 {
				_, err = e.Generate(prompts, opts)
			} else {
				_, err = e.GenerateSpeculative(prompts, c.speculative, opts)
			}
			require.NoError(t, err)
			require.Greater(t, calls, 2)
		})
	}
}

// TestGenerateSameOnPureGoAndXLA: the same weights generate the same tokens on the pure-Go backend and on XLA
// (whose decode steps update the state in place), for every variant, plain and (Oryx variants) speculative,
// float64 so that the two backends' rounding cannot flip a greedy choice.
func TestGenerateSameOnPureGoAndXLA(t *testing.T) {
	xla := backend.MustGet()
	if backend.IsPureGo(xla) {
		t.Skip("needs the XLA backend (GOMLX_BACKEND or `make xla-cpu`)")
	}
	pureGo, err := backend.NewWithConfig(backend.DefaultConfig)
	require.NoError(t, err)
	const maxTokens = 8
	for _, v := range oryx.Variants {
		t.Run(string(v), func(t *testing.T) {
			m, ctx := genTestModel(t, v)
			prompts := oryxtest.RandomTokens(5, 2, 6, m.Config.Vocab)
			prompts[1] = prompts[1][:3] // ragged
			generate := func(be backends.Backend, ctx *context.Context, k int) [][]int32 {
				e, err := NewEngine(be, ctx, m, 2, 24)
				require.NoError(t, err)
				opts := GenerateOptions{MaxTokens: maxTokens}
				if v.IsMultiMixer() {
					opts.Schedule = "attention-last:2"
				}
				var g *Generation
				if k == 0 {
					g, err = e.Generate(prompts, opts)
				} else {
					g, err = e.GenerateSpeculative(prompts, k, opts)
				}
				require.NoError(t, err)
				return g.Tokens
			}
			want := generate(pureGo, ctx, 0)
			onXLA := localContextCopy(t, ctx)
			require.Equal(t, want, generate(xla, onXLA, 0), "Generate")
			if v.IsMultiMixer() {
				require.Equal(t, want, generate(xla, onXLA, 2), "GenerateSpeculative K=2")
			}
			require.Greater(t, len(distinct(want[0])), 2, "test setup: a degenerate continuation checks little")
		})
	}
}

// localContextCopy copies every variable of ctx into a new context as a host tensor, so that another backend
// can use the same weights.
func localContextCopy(t *testing.T, ctx *context.Context) *context.Context {
	t.Helper()
	out := context.New()
	for v := range ctx.IterVariables() {
		value, err := v.Value()
		require.NoError(t, err)
		local, err := value.LocalClone()
		require.NoError(t, err, fmt.Sprintf("variable %s", v.ScopeAndName()))
		out.InAbsPath(v.Scope()).VariableWithValue(v.Name(), local).SetTrainable(v.Trainable)
	}
	return out
}
