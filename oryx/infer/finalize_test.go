package infer

import (
	"reflect"
	"testing"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// TestFinalizeReleasesEveryGraph: after an engine has made every kind of graph it makes on demand (prefill,
// a long prompt's segments, plain, speculative and entropy-budget decoding), Engine.execs — what Finalize
// releases — holds every *context.Exec reachable from the engine's fields (found by reflection, so a graph
// added later without being released fails here), and Finalize leaves the engine without state. The
// speculative and escalation graphs were once left out.
func TestFinalizeReleasesEveryGraph(t *testing.T) {
	m, ctx := genTestModel(t, oryx.OryxTG)
	e, err := NewEngine(backend.MustGet(), ctx, m, 1, prefillSegmentMax+16)
	require.NoError(t, err)
	prompt := oryxtest.RandomTokens(5, 1, 9, m.Config.Vocab)
	_, err = e.Generate(prompt, GenerateOptions{MaxTokens: 3})
	require.NoError(t, err)
	_, err = e.GenerateSpeculative(prompt, 2, GenerateOptions{MaxTokens: 4})
	require.NoError(t, err)
	b := schedule.Budget{Fraction: 0.3, Policy: schedule.PolicyEntropy}
	_, err = e.Generate(prompt, GenerateOptions{Schedule: b.String(), MaxTokens: 3})
	require.NoError(t, err)
	long := oryxtest.RandomTokens(6, 1, prefillSegmentMax+3, m.Config.Vocab)
	_, err = e.Generate(long, GenerateOptions{MaxTokens: 1}) // read in segments
	require.NoError(t, err)
	require.NotEmpty(t, e.segments, "test setup: no segment graphs")
	require.NotNil(t, e.spec, "test setup: no speculative graphs")
	require.NotNil(t, e.escalation, "test setup: no escalation graphs")

	listed := map[*context.Exec]bool{}
	for _, x := range e.execs() {
		listed[x] = true
	}
	found := reachableExecs(reflect.ValueOf(e))
	require.GreaterOrEqual(t, len(found), 8)
	for x, path := range found {
		require.True(t, listed[x], "%s is not released by Finalize", path)
	}
	e.Finalize()
	require.Nil(t, e.state)
}

// reachableExecs walks v's pointers, structs, slices and maps within this package's types and returns every
// *context.Exec found, with the field path that leads to it.
func reachableExecs(v reflect.Value) map[*context.Exec]string {
	found := map[*context.Exec]string{}
	execType := reflect.TypeOf((*context.Exec)(nil))
	pkg := reflect.TypeOf(Engine{}).PkgPath()
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		if v.Type() == execType {
			if !v.IsNil() {
				found[(*context.Exec)(v.UnsafePointer())] = path
			}
			return
		}
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() && v.Type().Elem().PkgPath() == pkg {
				walk(v.Elem(), path)
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				walk(it.Value(), path+"[…]")
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i), path+"[…]")
			}
		}
	}
	walk(v, "Engine")
	return found
}
