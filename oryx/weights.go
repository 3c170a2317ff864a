package oryx

import (
	"math"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/context/initializers"
)

// Parameters and their initialisation [choice unless noted]: projections N(0, 1/fan_in) with fan_in the
// contracted width; embeddings N(0, 0.02²) (EmbeddingInitStd); norm weights 1; conv taps N(0, 1/W); the Mamba-2 / GDN gates as in
// the reference layers (docs/model.md §3.12) [background]: dt_bias = softplus⁻¹(dt) with
// dt ~ logU[1e-3, 1e-1] (floor 1e-4), A = exp(A_log) ~ U[1, 16], D = 1.
//
// Every parameter is the variable "weight" of its own scope (e.g. "/layer_003/wq_attn/weight"), so the
// parameter report (params.go) can classify it by scope name.

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

// param returns the variable "weight" of sub-scope name, created with init when it does not exist yet.
func (s scope) param(name string, init context.VariableInitializer, dims ...int) *Node {
	c := s.ctx.In(name)
	if init != nil {
		c = c.WithInitializer(init)
	}
	return s.compute(c.VariableWithShape("weight", shapes.Make(s.store, dims...)).ValueGraph(s.g))
}

// proj is a projection [in..., out...] initialised N(0, 1/fanIn).
func (s scope) proj(name string, fanIn int, dims ...int) *Node {
	return s.param(name, initializers.RandomNormalFn(s.ctx, 1/math.Sqrt(float64(fanIn))), dims...)
}

// ones is a norm weight initialised to 1.
func (s scope) ones(name string, dims ...int) *Node { return s.param(name, initializers.One, dims...) }

// dtBiasInit draws dt ~ logU[1e-3, 1e-1] (floor 1e-4) and returns softplus⁻¹(dt) = dt + log(−expm1(−dt)).
func dtBiasInit(ctx *context.Context) context.VariableInitializer {
	return func(g *Graph, shape shapes.Shape) *Node {
		u := ctx.RandomUniform(g, shape)
		dt := Exp(AddScalar(MulScalar(u, math.Log(0.1)-math.Log(1e-3)), math.Log(1e-3)))
		dt = MaxScalar(dt, 1e-4)
		return Add(dt, Log(Neg(Expm1(Neg(dt)))))
	}
}

// aLogInit draws A ~ U[1, 16] and returns log A.
func aLogInit(ctx *context.Context) context.VariableInitializer {
	return func(g *Graph, shape shapes.Shape) *Node {
		return Log(AddScalar(MulScalar(ctx.RandomUniform(g, shape), 15), 1))
	}
}
