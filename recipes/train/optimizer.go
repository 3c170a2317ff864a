package train

import (
	"slices"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/context/initializers"
	"github.com/oryx-go/oryx/oryx"
)

// AdamW, written out in the graph rather than GoMLX's optimizers.Adam, because a language-model recipe needs
// three things that one lacks (docs/gomlx.md §4): a weight decay that skips some parameters, global-norm gradient
// clipping, and skipping an update whose loss or gradient is not finite.
//
// For each parameter θ with gradient g (already averaged over micro-batches, unscaled and clipped):
//
//	m ← β₁m + (1−β₁)g            v ← β₂v + (1−β₂)g²             (t: number of updates applied, from 1)
//	θ ← θ − lr·( m/(1−β₁ᵗ) / (√(v/(1−β₂ᵗ)) + ε) + wd·θ )   (wd only where DecayParam)
//
// The moments live in float32 next to the model, under the scope "/optimizer" ("adam_m", "adam_v", one
// variable per parameter named by its path) with the update counter "/optimizer/updates"; they are saved in
// every checkpoint, so a resumed run continues with the same optimizer state.

// optimizerScope is the root scope of the optimizer state (not a model parameter: oryx.IsModelParam).
const optimizerScope = "optimizer"

// DecayParam tells whether AdamW's weight decay applies to the parameter at path (its ScopeAndName). Not
// decayed [choice, following Mamba / flash-linear-attention training code]: every norm gain (scopes whose
// name ends in "norm": the block RMSNorms, the gated output norm, the final norm), the SSM/GDN gate
// parameters A_log ("a_log"), Δ bias ("dt_bias") and the Mamba-2 skip D ("d_skip"). The model has no bias
// vectors. Everything else is decayed: the projections (W_Q, W_K, W_V, W_G, W_O, the MLP, the gate
// projections), the K/V conv taps and the (tied) embeddings.
func DecayParam(path string) bool {
	for _, part := range strings.Split(path, context.ScopeSeparator) {
		switch {
		case strings.HasSuffix(part, "norm"), part == "a_log", part == "dt_bias", part == "d_skip":
			return false
		}
	}
	return true
}

// optimizerVarName turns a parameter path "/layer_000/wk/weight" into a variable name "layer_000.wk.weight".
func optimizerVarName(path string) string {
	return strings.ReplaceAll(strings.TrimPrefix(path, context.ScopeSeparator), context.ScopeSeparator, ".")
}

// adamState returns the first and second moment variables of parameter p (created as zeros).
func adamState(ctx *context.Context, p *context.Variable) (m, v *context.Variable) {
	oc := ctx.In(optimizerScope).Checked(false).WithInitializer(initializers.Zero)
	name := optimizerVarName(p.ScopeAndName())
	shape := p.Shape().Clone()
	shape.DType = dtypes.Float32
	m = oc.In("adam_m").VariableWithShape(name, shape).SetTrainable(false)
	v = oc.In("adam_v").VariableWithShape(name, shape).SetTrainable(false)
	return m, v
}

// updatesVar is the number of AdamW updates applied (skipped steps excluded), for the bias correction.
func updatesVar(ctx *context.Context) *context.Variable {
	return ctx.In(optimizerScope).Checked(false).VariableWithValue("updates", int64(0)).SetTrainable(false)
}

// adamWUpdate applies one AdamW update to params given their gradients (float32, final: averaged, unscaled
// and clipped) when ok is true; when ok is false every variable keeps its value. lr is a float32 scalar.
func adamWUpdate(ctx *context.Context, cfg TrainConfig, params []*context.Variable, grads []*Node, lr, ok *Node) {
	g := lr.Graph()
	uv := updatesVar(ctx)
	updates := uv.ValueGraph(g)
	t := ConvertDType(AddScalar(updates, 1), dtypes.Float32)
	bc1 := OneMinus(Pow(Scalar(g, dtypes.Float32, cfg.Beta1), t)) // 1 − β₁ᵗ
	bc2 := OneMinus(Pow(Scalar(g, dtypes.Float32, cfg.Beta2), t)) // 1 − β₂ᵗ
	for i, p := range params {
		mv, vv := adamState(ctx, p)
		grad := grads[i]
		m := Add(MulScalar(mv.ValueGraph(g), cfg.Beta1), MulScalar(grad, 1-cfg.Beta1))
		v := Add(MulScalar(vv.ValueGraph(g), cfg.Beta2), MulScalar(Square(grad), 1-cfg.Beta2))
		step := Div(Div(m, bc1), AddScalar(Sqrt(Div(v, bc2)), cfg.Eps))
		theta := p.ValueGraph(g)
		theta32 := ConvertDType(theta, dtypes.Float32)
		if cfg.WeightDecay > 0 && DecayParam(p.ScopeAndName()) {
			step = Add(step, MulScalar(theta32, cfg.WeightDecay))
		}
		newTheta := ConvertDType(Sub(theta32, Mul(lr, step)), theta.DType())
		p.SetValueGraph(Where(ok, newTheta, theta))
		mv.SetValueGraph(Where(ok, m, mv.ValueGraph(g)))
		vv.SetValueGraph(Where(ok, v, vv.ValueGraph(g)))
	}
	uv.SetValueGraph(Where(ok, AddScalar(updates, 1), updates))
}

// modelParams returns the model's trainable parameters used by graph g, sorted by path: a fixed order, so
// that the global gradient norm is summed in the same order in a fresh and in a resumed run (whose context
// was filled by the checkpoint loader) and the two compute bit-identical updates.
func modelParams(ctx *context.Context, g *Graph) []*context.Variable {
	var ps []*context.Variable
	for v := range ctx.IterVariables() {
		if v.Trainable && oryx.IsModelParam(v.ScopeAndName()) && v.InUseByGraph(g) {
			ps = append(ps, v)
		}
	}
	slices.SortFunc(ps, func(a, b *context.Variable) int { return strings.Compare(a.ScopeAndName(), b.ScopeAndName()) })
	return ps
}

func shapeInt32(dims ...int) shapes.Shape { return shapes.Make(dtypes.Int32, dims...) }
