package oryx

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/context/initializers"
	"github.com/oryx-go/oryx/internal/seedrand"
)

// Parameters and their initialisation [choice unless noted]: projections N(0, 1/fan_in) with fan_in the
// contracted width; embeddings N(0, 0.02²) (EmbeddingInitStd); norm weights 1; conv taps N(0, 1/W); the Mamba-2 / GDN gates as in
// the reference layers (docs/model.md §3.12) [background]: dt_bias = softplus⁻¹(dt) with
// dt ~ logU[1e-3, 1e-1] (floor 1e-4), A = exp(A_log) ~ U[1, 16], D = 1.
//
// Every parameter is the variable "weight" of its own scope (e.g. "/layer_003/wq_attn/weight"), so the
// parameter report (params.go) can classify it by scope name.
//
// Matched initialisation (common random numbers): every random parameter is drawn on the host from a random
// stream of its own, keyed by the training seed and the parameter's path (randomParam), not from one graph RNG
// shared in creation order. So
//   - for the same seed every weight a multi-mixer model shares with a baseline starts equal to the
//     baseline's: Oryx-TG's embeddings, W_K, W_V, W_G, W_O, convs, linear-readout query, gates, A_log / Δ bias,
//     norms and MLP are GDN's, and its attention query is the Transformer's (Oryx-TM and Mamba-2 likewise);
//     paired comparisons between them then measure the method, not two draws (matchedinit_test.go);
//   - the initial weights are the same on every backend (GoMLX's graph RNG is PCG on pure Go and Philox on
//     XLA), so a run on pure Go and one on XLA start from the same point;
//   - the order in which a forward creates its variables does not matter.
// A fresh variable is created with its value (like a variable loaded from a checkpoint), so no initialisation
// graph runs for it.

// scope is where a sub-module creates its parameters: a context scope, the graph being built, the dtype the
// graph computes in and the dtype the weights are stored in (the same unless mixed precision).
type scope struct {
	ctx   *context.Context
	g     *Graph
	dtype dtypes.DType // compute
	store dtypes.DType // variables
}

func (s scope) in(name string) scope { return scope{s.ctx.In(name), s.g, s.dtype, s.store} }

// compute converts a stored weight to the compute dtype (a no-op without mixed precision).
func (s scope) compute(w *Node) *Node {
	if w.DType() == s.dtype {
		return w
	}
	return ConvertDType(w, s.dtype)
}

// draw fills a parameter's initial values from its own random stream (seedrand.NewPCG(seed, path hash)).
type draw func(src *rand.PCG, values []float64)

// param returns the variable "weight" of sub-scope name, created with init when it does not exist yet.
func (s scope) param(name string, init context.VariableInitializer, dims ...int) *Node {
	c := s.ctx.In(name)
	if init != nil {
		c = c.WithInitializer(init)
	}
	return s.compute(c.VariableWithShape("weight", shapes.Make(s.store, dims...)).ValueGraph(s.g))
}

// random returns the variable "weight" of sub-scope name, created with values drawn by d (randomParam) when
// it does not exist yet.
func (s scope) random(name string, d draw, dims ...int) *Node {
	return s.compute(randomParam(s.ctx.In(name), "weight", s.store, d, dims...).ValueGraph(s.g))
}

// proj is a projection [in..., out...] initialised N(0, 1/fanIn).
func (s scope) proj(name string, fanIn int, dims ...int) *Node {
	return s.random(name, normalDraw(1/math.Sqrt(float64(fanIn))), dims...)
}

// ones is a norm weight initialised to 1.
func (s scope) ones(name string, dims ...int) *Node { return s.param(name, initializers.One, dims...) }

// normalDraw draws N(0, std²).
func normalDraw(std float64) draw {
	return func(src *rand.PCG, x []float64) {
		seedrand.Normals(src, x)
		for i := range x {
			x[i] *= std
		}
	}
}

// dtBiasDraw draws dt ~ logU[1e-3, 1e-1] (floor 1e-4) and returns softplus⁻¹(dt) = dt + log(−expm1(−dt)).
func dtBiasDraw(src *rand.PCG, x []float64) {
	for i := range x {
		u := seedrand.UniformFloat(src)
		dt := max(math.Exp(u*(math.Log(0.1)-math.Log(1e-3))+math.Log(1e-3)), 1e-4)
		x[i] = dt + math.Log(-math.Expm1(-dt))
	}
}

// aLogDraw draws A ~ U[1, 16] and returns log A.
func aLogDraw(src *rand.PCG, x []float64) {
	for i := range x {
		x[i] = math.Log(seedrand.UniformFloat(src)*15 + 1)
	}
}

// randomParam returns ctx's variable name, creating it when it does not exist with values of dtype and dims
// drawn by d from the stream keyed by (seed, its path "/scope/name"): seed is the context's
// context.ParamInitialSeed — the training seed — or, when none is set, one random seed drawn for the context
// and recorded in it (so that even then two models built in one context are drawn alike).
func randomParam(ctx *context.Context, name string, dtype dtypes.DType, d draw, dims ...int) *context.Variable {
	if v := ctx.GetVariableByScopeAndName(ctx.Scope(), name); v != nil {
		return ctx.VariableWithShape(name, shapes.Make(dtype, dims...)) // checks the shape
	}
	path := ctx.Scope() + "/" + name
	values := make([]float64, shapes.Make(dtype, dims...).Size())
	d(seedrand.NewPCG(initialSeed(ctx), pathHash(path)), values)
	var t *tensors.Tensor
	switch dtype {
	case dtypes.Float64:
		t = tensors.FromFlatDataAndDimensions(values, dims...)
	case dtypes.Float32:
		f := make([]float32, len(values))
		for i, v := range values {
			f[i] = float32(v)
		}
		t = tensors.FromFlatDataAndDimensions(f, dims...)
	default:
		panic(fmt.Errorf("initialising %s: weights are stored as float32 or float64, not %s", path, dtype))
	}
	return ctx.VariableWithValue(name, t)
}

// initialSeed is the context's initial seed (context.ParamInitialSeed); without one, a random seed is drawn
// and set on the context's root, once.
func initialSeed(ctx *context.Context) uint64 {
	if v, ok := ctx.GetParam(context.ParamInitialSeed); ok {
		if seed, ok := v.(int64); ok {
			return uint64(seed)
		}
		panic(fmt.Errorf("context parameter %q is %T, want int64", context.ParamInitialSeed, v))
	}
	seed := int64(rand.Uint64() >> 1)
	ctx.InAbsPath(context.RootScope).SetParam(context.ParamInitialSeed, seed)
	return uint64(seed)
}

// pathHash is the 64-bit FNV-1a hash of a parameter's path: the stream key of matchedInit.
func pathHash(path string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(path))
	return h.Sum64()
}
