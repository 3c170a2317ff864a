package oryx

import (
	"reflect"
	"testing"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
)

// TestScorerFinalizeListsEveryGraph: every *context.Exec field of a Scorer (found by reflection, so a graph
// added later without being released fails here) is among those Finalize releases.
func TestScorerFinalizeListsEveryGraph(t *testing.T) {
	cfg, err := Preset("tiny", OryxTG)
	require.NoError(t, err)
	m, err := New(cfg)
	require.NoError(t, err)
	s, err := NewScorer(backend.MustGet(), context.New(), m, 0)
	require.NoError(t, err)
	listed := map[*context.Exec]bool{}
	for _, x := range s.execs() {
		listed[x] = true
	}
	v, execType, fields := reflect.ValueOf(s).Elem(), reflect.TypeOf((*context.Exec)(nil)), 0
	for i := range v.NumField() {
		if f := v.Field(i); f.Type() == execType {
			fields++
			require.False(t, f.IsNil(), "Scorer.%s", v.Type().Field(i).Name)
			require.True(t, listed[(*context.Exec)(f.UnsafePointer())], "Scorer.%s is not released by Finalize", v.Type().Field(i).Name)
		}
	}
	require.Equal(t, len(s.execs()), fields)
	s.Finalize()
}
