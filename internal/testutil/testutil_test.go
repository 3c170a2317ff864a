package testutil

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRelErr(t *testing.T) {
	require.Equal(t, 0.25, RelErr([]float64{1, 3}, []float64{1, 4}), "max diff 1 over max |want| 4")
	require.Equal(t, 0.25, RelErr([]float64{0.25, 0}, []float64{0, 0}), "all-zero want: absolute error")
	require.True(t, math.IsInf(RelErr([]float64{1}, []float64{1, 2}), 1))
	require.True(t, math.IsInf(RelErr([]float64{math.NaN()}, []float64{1}), 1))
}

func TestFiniteDiffGrad(t *testing.T) {
	// f(x, y) = x²y + sin(y): ∂f/∂x = 2xy, ∂f/∂y = x² + cos(y).
	x, y := []float64{1.5}, []float64{-0.7}
	f := func() float64 { return x[0]*x[0]*y[0] + math.Sin(y[0]) }
	g := FiniteDiffGrad(f, [][]float64{x, y}, 1e-6)
	require.InDelta(t, 2*1.5*-0.7, g[0][0], 1e-8)
	require.InDelta(t, 1.5*1.5+math.Cos(-0.7), g[1][0], 1e-8)
	require.Equal(t, []float64{1.5}, x, "restored")
	require.Equal(t, []float64{-0.7}, y, "restored")
}

type jsonInner struct {
	Good   int `json:"good_key"`
	Hyphen int `json:"n-shot"`
}

type jsonCustom struct{ Anything int }

func (jsonCustom) MarshalJSON() ([]byte, error) { return []byte("{}"), nil }

type jsonOuter struct {
	jsonInner                         // promoted fields
	Untagged  int                     // key "Untagged"
	Tagged    int                     `json:"tagged,omitempty"`
	Skipped   int                     `json:"-"`
	unexp     int                     // not encoded
	Nested    []map[string]*jsonInner `json:"nested"`
	Custom    jsonCustom              `json:"custom"` // its own MarshalJSON: not entered
	Camel     int                     `json:"camelCase"`
}

func TestNonSnakeCaseJSON(t *testing.T) {
	_ = jsonOuter{}.unexp
	got := NonSnakeCaseJSON(nil, jsonOuter{})
	want := []string{"testutil.jsonOuter: jsonInner.Hyphen: n-shot", "testutil.jsonOuter: jsonOuter.Untagged: Untagged",
		"testutil.jsonOuter: jsonOuter.Camel: camelCase"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := NonSnakeCaseJSON([]string{"n-shot", "Untagged", "camelCase"}, &jsonOuter{}); len(got) != 0 {
		t.Fatalf("allowed keys reported: %q", got)
	}
}
