package layers

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
)

// buildError builds fn in a fresh graph over parameters of the given shapes and returns the error that the
// graph builder raised (GoMLX's Exec returns the same error).
func buildError(t *testing.T, fn func(x []*Node), inputs ...shapes.Shape) (err error) {
	t.Helper()
	ins := make([]in, len(inputs))
	for i, s := range inputs {
		ins[i] = in{make([]float64, s.Size()), s.Dimensions}
	}
	dtype := dtypes.Float32
	if len(inputs) > 0 {
		dtype = inputs[0].DType
	}
	_, err = execGraph(dtype, func(x []*Node) []*Node {
		for i, s := range inputs { // execGraph converts every input to one dtype; restore the others
			if x[i].DType() != s.DType {
				x[i] = ConvertDType(x[i], s.DType)
			}
		}
		fn(x)
		return []*Node{ScalarZero(x[0].Graph(), dtypes.Float32)}
	}, ins...)
	return err
}

func TestBadInputsGiveClearErrors(t *testing.T) {
	f32 := func(d ...int) shapes.Shape { return shapes.Make(dtypes.Float32, d...) }
	f64 := func(d ...int) shapes.Shape { return shapes.Make(dtypes.Float64, d...) }
	q, k, v, g := f32(2, 10, 3, 8), f32(2, 10, 3, 8), f32(2, 10, 3, 6), f32(2, 10, 3)
	ssd := func(chunk int) func(x []*Node) {
		return func(x []*Node) {
			var s0 *Node
			if len(x) > 4 {
				s0 = x[4]
			}
			SSD(x[0], x[1], x[2], x[3], s0, chunk)
		}
	}
	gdn := func(chunk int) func(x []*Node) {
		return func(x []*Node) {
			var s0 *Node
			if len(x) > 5 {
				s0 = x[5]
			}
			GatedDeltaRule(x[0], x[1], x[2], x[3], x[4], s0, 0.1, chunk)
		}
	}
	cases := []struct {
		name   string
		fn     func(x []*Node)
		inputs []shapes.Shape
		want   []string
	}{
		{"ssd chunk 0", ssd(0), []shapes.Shape{q, k, v, g}, []string{"SSD", "chunk must be > 0, got 0"}},
		{"project in axes", func(x []*Node) { Project(x[0], x[1], 3) }, []shapes.Shape{f32(2, 8), f32(4, 8)}, []string{"Project", "inAxes 3"}},
		{"project mismatch", func(x []*Node) { Project(x[0], x[1], 1) }, []shapes.Shape{f32(2, 8), f32(4, 6)}, []string{"Project", "the last 1 axes of w", "[4 6]"}},
		{"ssd chunk -3", ssd(-3), []shapes.Shape{q, k, v, g}, []string{"SSD", "chunk", "-3"}},
		{"ssd k heads", ssd(4), []shapes.Shape{q, f32(2, 10, 4, 8), v, g}, []string{"SSD", "k", "[2 10 4 8]"}},
		{"ssd v time", ssd(4), []shapes.Shape{q, k, f32(2, 9, 3, 6), g}, []string{"SSD", "v", "[2 9 3 6]"}},
		{"ssd q rank", ssd(4), []shapes.Shape{f32(2, 10, 24), k, v, g}, []string{"SSD", "q must have rank 4", "[2 10 24]"}},
		{"ssd logDecay shape", ssd(4), []shapes.Shape{q, k, v, f32(2, 10)}, []string{"SSD", "logDecay", "[B, T, H]", "[2 10]"}},
		{"ssd state rank", ssd(4), []shapes.Shape{q, k, v, g, f32(2, 3, 8)}, []string{"SSD", "s0", "[B, H, K, V]", "[2 3 8]"}},
		{"ssd state dims", ssd(4), []shapes.Shape{q, k, v, g, f32(2, 3, 6, 8)}, []string{"SSD", "s0", "[2 3 6 8]"}},
		{"ssd dtype", ssd(4), []shapes.Shape{q, k, f64(2, 10, 3, 6), g}, []string{"SSD", "v", "dtype", "Float64"}},
		{"ssd int q", ssd(4), []shapes.Shape{shapes.Make(dtypes.Int32, 2, 10, 3, 8), k, v, g}, []string{"SSD", "q", "float"}},
		{"gdn chunk", gdn(0), []shapes.Shape{q, k, v, g, g}, []string{"GatedDeltaRule", "chunk"}},
		{"gdn beta", gdn(4), []shapes.Shape{q, k, v, g, f32(2, 10, 2)}, []string{"GatedDeltaRule", "beta", "[2 10 2]"}},
		{"gdn state", gdn(4), []shapes.Shape{q, k, v, g, g, f32(2, 3, 8, 8)}, []string{"GatedDeltaRule", "s0", "[2 3 8 8]"}},
		{"attention k", func(x []*Node) { CausalAttention(x[0], x[1], x[2], 1) }, []shapes.Shape{q, f32(2, 10, 3, 7), v},
			[]string{"CausalAttention", "k", "[2 10 3 7]"}},
		{"ssd step", func(x []*Node) { SSDStep(x[0], x[1], x[2], x[3], nil) }, []shapes.Shape{f32(2, 3, 8), f32(2, 3, 8), f32(2, 3, 6), f32(2, 4)},
			[]string{"SSDStep", "logDecay", "[2 4]"}},
		{"gdn step state", func(x []*Node) { GatedDeltaRuleStep(x[0], x[1], x[2], x[3], x[4], x[5], 1) },
			[]shapes.Shape{f32(2, 3, 8), f32(2, 3, 8), f32(2, 3, 6), f32(2, 3), f32(2, 3), f32(2, 3, 6, 8)},
			[]string{"GatedDeltaRuleStep", "state", "[2 3 6 8]"}},
		{"attention step length dtype", func(x []*Node) { AttentionStep(x[0], x[1], x[2], x[3], 1) },
			[]shapes.Shape{f32(2, 3, 8), f32(2, 3, 16, 8), f32(2, 3, 16, 6), f32(2)}, []string{"AttentionStep", "length", "integer"}},
		{"cache append", func(x []*Node) { CacheAppend(x[0], x[1], x[2]) },
			[]shapes.Shape{f32(2, 3, 16, 8), f32(2, 3, 6), shapes.Make(dtypes.Int32, 2)}, []string{"CacheAppend", "x", "[2 3 6]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := buildError(t, c.fn, c.inputs...)
			require.Error(t, err)
			for _, w := range c.want {
				require.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestNilInputsGiveClearErrors(t *testing.T) {
	err := buildError(t, func(x []*Node) { SSD(x[0], x[1], x[2], nil, nil, 4) },
		shapes.Make(dtypes.Float32, 1, 4, 1, 2), shapes.Make(dtypes.Float32, 1, 4, 1, 2), shapes.Make(dtypes.Float32, 1, 4, 1, 2))
	require.ErrorContains(t, err, "SSD: argument logDecay must not be nil")
}

// TestInterChunkMethods: the names parse back, and the SSD-only dense method is refused by the delta rule
// with an error that names the alternatives.
func TestInterChunkMethods(t *testing.T) {
	for _, m := range []InterChunk{Loop, Scan, Dense, Auto} {
		got, err := ParseInterChunk(m.String())
		require.NoError(t, err)
		require.Equal(t, m, got)
	}
	_, err := ParseInterChunk("parallel")
	require.ErrorContains(t, err, `unknown inter-chunk method "parallel"`)
	f32 := func(d ...int) shapes.Shape { return shapes.Make(dtypes.Float32, d...) }
	err = buildError(t, func(x []*Node) {
		NewGatedDeltaRule(x[0], x[1], x[2], x[3], x[4]).Chunk(4).InterChunk(Dense).Done()
	}, f32(1, 8, 1, 4), f32(1, 8, 1, 4), f32(1, 8, 1, 4), f32(1, 8, 1), f32(1, 8, 1))
	require.ErrorContains(t, err, "GatedDeltaRule: inter-chunk method dense is SSD only")
}

// TestAutoInterChunk: Auto is the loop on the pure-Go backend and for the delta rule; on a compiling backend
// (XLA) it is SSD's dense form up to maxDenseChunks chunks, the loop beyond. (The methods' equality is tested
// by the sweeps of ssd_test.go and deltarule_test.go; Auto is the builders' default there.)
func TestAutoInterChunk(t *testing.T) {
	g := NewGraph(backend.MustGet(), "auto")
	defer g.Finalize()
	require.Equal(t, backend.IsPureGo(g.Backend()), onPureGo(g))
	compiled := !onPureGo(g)
	for _, c := range []struct {
		chunks int
		dense  bool
		want   InterChunk
	}{
		{1, true, Loop}, {maxDenseChunks, true, Loop}, {maxDenseChunks + 1, true, Loop}, {8, false, Loop},
	} {
		if compiled && c.dense && c.chunks <= maxDenseChunks {
			c.want = Dense
		}
		require.Equal(t, c.want, resolveInterChunk(Auto, g, c.chunks, c.dense), "%d chunks, dense %v", c.chunks, c.dense)
		require.Equal(t, Scan, resolveInterChunk(Scan, g, c.chunks, c.dense), "explicit methods are kept")
	}
}
