package oryx

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustPreset(t *testing.T, name string, v Variant) Config {
	t.Helper()
	c, err := Preset(name, v)
	require.NoError(t, err)
	return c
}

func TestParamRole(t *testing.T) {
	cases := map[string]string{
		"/layer_000/wq_attn/weight":    RoleAttention,
		"/layer_011/wq_linear/weight":  RoleLinear,
		"/layer_000/dt_proj/weight":    RoleLinear,
		"/layer_000/dt_bias/weight":    RoleLinear,
		"/layer_000/a_log/weight":      RoleLinear,
		"/layer_000/d_skip/weight":     RoleLinear,
		"/layer_000/decay_proj/weight": RoleLinear,
		"/layer_000/beta_proj/weight":  RoleLinear,
		"/layer_000/a_log":             RoleLinear, // variable directly named
		"/layer_000/attn_norm/weight":  RoleShared,
		"/layer_000/wk/weight":         RoleShared,
		"/layer_000/wv/weight":         RoleShared,
		"/layer_000/conv_k/weight":     RoleShared,
		"/layer_000/conv_v/weight":     RoleShared,
		"/layer_000/wg/weight":         RoleShared,
		"/layer_000/out_norm/weight":   RoleShared,
		"/layer_000/wo/weight":         RoleShared,
		"/layer_000/mlp_norm/weight":   RoleShared,
		"/layer_000/mlp_gate/weight":   RoleShared,
		"/layer_000/mlp_up/weight":     RoleShared,
		"/layer_000/mlp_down/weight":   RoleShared,
		"/embeddings/embeddings":       RoleShared,
		"/final_norm/weight":           RoleShared,
		"/lm_head/weight":              RoleShared,
		"/layer_000/wq_attention/x":    RoleShared, // only exact names match
	}
	for path, want := range cases {
		assert.Equal(t, want, ParamRole(path), path)
	}
}

func TestParamIsModelParam(t *testing.T) {
	yes := []string{"/embeddings/embeddings", "/layer_000/wk/weight", "/layer_1234/wk/weight", "/final_norm/weight",
		"/lm_head/weight", "layer_002/wo/weight"}
	no := []string{"/global_step", "/#rngState", "/AdamOptimizer/layer_000/wk/weight_1st_moment",
		"/AdamOptimizer/global_step", "/optimizers/learning_rate", "/layer_x/wk/weight", "/layers_000/wk/weight"}
	for _, p := range yes {
		assert.True(t, IsModelParam(p), p)
	}
	for _, p := range no {
		assert.False(t, IsModelParam(p), p)
	}
}

// TestParamCountTinyByHand checks CountParams against a hand computation for the tiny preset
// (V 256, d 64, 2 layers, H 2, dk 16, dv 32, F 128, conv 4, tied, per-head output norm).
func TestParamCountTinyByHand(t *testing.T) {
	const (
		emb = 256 * 64 // 16384
		// attn_norm + wk + wv + conv + wg + out_norm + wo + mlp_norm + MLP
		sharedLayer = 64 + 64*32 + 64*64 + (32+64)*4 + 64*64 + 32 + 64*64 + 64 + 3*64*128 // 39456
		query       = 64 * 2 * 16                                                         // 2048
		mambaSmall  = 64*2 + 3*2                                                          // dt_proj, dt_bias, a_log, d_skip
		gdnSmall    = 2*64*2 + 2*2                                                        // decay_proj, beta_proj, dt_bias, a_log
		shared      = emb + 64 + 2*sharedLayer                                            // + final_norm
	)
	require.Equal(t, 39456, sharedLayer)
	want := map[Variant]ParamReport{
		Transformer: {Shared: shared, AttentionOnly: 2 * query},
		Mamba2:      {Shared: shared, LinearOnly: 2 * (query + mambaSmall)},
		GDN:         {Shared: shared, LinearOnly: 2 * (query + gdnSmall)},
		OryxTM:      {Shared: shared, AttentionOnly: 2 * query, LinearOnly: 2 * (query + mambaSmall)},
		OryxTG:      {Shared: shared, AttentionOnly: 2 * query, LinearOnly: 2 * (query + gdnSmall)},
	}
	for v, w := range want {
		w.Embedding = emb
		w.Total = w.Shared + w.AttentionOnly + w.LinearOnly
		w.MultiMixer = v.IsMultiMixer()
		if w.MultiMixer {
			w.TiedFraction = float64(w.Shared) / float64(w.Total)
		}
		got := CountParams(mustPreset(t, "tiny", v))
		assert.Equal(t, w, got, "variant %s", v)
	}
	assert.Equal(t, int64(99456), CountParams(mustPreset(t, "tiny", Transformer)).Total)
	assert.Equal(t, int64(104072), CountParams(mustPreset(t, "tiny", OryxTG)).Total)

	// Untied head, full-width output norm, no conv.
	c := mustPreset(t, "tiny", OryxTG)
	base := CountParams(c)
	c.TiedEmbeddings, c.OutputNorm, c.ConvWidth = false, "full", 0
	got := CountParams(c)
	assert.Equal(t, base.Total+64*256+2*(2*32-32)-2*(32+64)*4, got.Total)
	assert.Equal(t, int64(2*emb), got.Embedding)
	assert.Equal(t, base.AttentionOnly, got.AttentionOnly)
	assert.Equal(t, base.LinearOnly, got.LinearOnly)
}

func TestParamReportString(t *testing.T) {
	r := CountParams(mustPreset(t, "130m", OryxTG))
	s := r.String()
	assert.Contains(t, s, "total ")
	assert.Contains(t, s, "tied 9")
	assert.Equal(t, "n/a", CountParams(mustPreset(t, "130m", Transformer)).TiedFractionString())
	assert.Contains(t, CountParams(mustPreset(t, "130m", GDN)).String(), "tied n/a")
	assert.Equal(t, r.Total-r.Embedding, r.NonEmbedding())

	data, err := json.Marshal(r)
	require.NoError(t, err)
	for _, key := range []string{`"total"`, `"shared"`, `"attention_only"`, `"linear_only"`, `"embedding"`,
		`"tied_fraction"`, `"multi_mixer"`} {
		assert.Contains(t, string(data), key)
	}
	var back ParamReport
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, r, back)
	assert.Equal(t, "total 129M  shared 122M  attn-only 3.54M  linear-only 3.54M  embedding 38.6M  tied 94.5%",
		ParamReport{Total: 129_390_000, Shared: 122_310_000, AttentionOnly: 3_540_000, LinearOnly: 3_540_000,
			Embedding: 38_630_000, MultiMixer: true, TiedFraction: 0.945}.String())
}

// buildVariables creates, in ctx, the variables block.go and model.go create for c (the list in the
// lead's brief), written independently of CountParams.
func buildVariables(ctx *context.Context, c Config) {
	d, h, dk, dv, f, w := c.DModel, c.Heads, c.KeyDim, c.ValueDim, c.MLPHidden, c.ConvWidth
	mk := func(ctx *context.Context, scope, name string, dims ...int) {
		ctx.In(scope).VariableWithShape(name, shapes.Make(dtypes.Float32, dims...))
	}
	mk(ctx, "embeddings", "embeddings", c.Vocab, d)
	for i := range c.Layers {
		l := ctx.In(fmt.Sprintf("layer_%03d", i))
		mk(l, "attn_norm", "weight", d)
		mk(l, "wk", "weight", h, dk, d)
		mk(l, "wv", "weight", h, dv, d)
		if w > 0 {
			mk(l, "conv_k", "weight", h*dk, w)
			mk(l, "conv_v", "weight", h*dv, w)
		}
		if c.Variant.HasAttention() {
			mk(l, "wq_attn", "weight", h, dk, d)
		}
		if c.Variant.LinearMixer() != NoLinear {
			mk(l, "wq_linear", "weight", h, dk, d)
		}
		switch c.Variant.LinearMixer() {
		case MixerMamba2:
			mk(l, "dt_proj", "weight", h, d)
			mk(l, "dt_bias", "weight", h)
			mk(l, "a_log", "weight", h)
			mk(l, "d_skip", "weight", h)
		case MixerGDN:
			mk(l, "decay_proj", "weight", h, d)
			mk(l, "dt_bias", "weight", h)
			mk(l, "a_log", "weight", h)
			mk(l, "beta_proj", "weight", h, d)
		}
		mk(l, "wg", "weight", h, dv, d)
		if c.OutputNorm == "full" {
			mk(l, "out_norm", "weight", h*dv)
		} else {
			mk(l, "out_norm", "weight", dv)
		}
		mk(l, "wo", "weight", d, h, dv)
		mk(l, "mlp_norm", "weight", d)
		mk(l, "mlp_gate", "weight", f, d)
		mk(l, "mlp_up", "weight", f, d)
		mk(l, "mlp_down", "weight", d, f)
	}
	mk(ctx, "final_norm", "weight", d)
	if !c.TiedEmbeddings {
		mk(ctx, "lm_head", "weight", c.Vocab, d)
	}
}

// addOptimizerState adds what a training loop adds next to the model: Adam moments (under
// /AdamOptimizer/<scope>, as GoMLX's Adam stores them), global steps and the RNG state.
func addOptimizerState(ctx *context.Context) {
	var model []*context.Variable
	for v := range ctx.IterVariables() {
		model = append(model, v)
	}
	for _, v := range model {
		scope := "/AdamOptimizer" + v.Scope()
		for _, suffix := range []string{"_1st_moment", "_2nd_moment"} {
			ctx.InAbsPath(scope).VariableWithShape(v.Name()+suffix, v.Shape()).SetTrainable(false)
		}
	}
	ctx.InAbsPath("/").VariableWithValue("global_step", int64(0)).SetTrainable(false)
	ctx.InAbsPath("/AdamOptimizer").VariableWithValue("global_step", int64(0)).SetTrainable(false)
	ctx.InAbsPath("/").VariableWithShape("#rngState", shapes.Make(dtypes.Uint64, 3)).SetTrainable(false)
}

func TestParamReportFromContext(t *testing.T) {
	variations := map[string]func(*Config){
		"preset":     func(*Config) {},
		"untied":     func(c *Config) { c.TiedEmbeddings = false },
		"full-norm":  func(c *Config) { c.OutputNorm = "full" },
		"no-conv":    func(c *Config) { c.ConvWidth = 0 },
		"three-deep": func(c *Config) { c.Layers = 3 },
	}
	for _, name := range []string{"tiny", "small"} {
		for _, v := range Variants {
			for vname, vary := range variations {
				c := mustPreset(t, name, v)
				vary(&c)
				require.NoError(t, c.Validate())
				want := CountParams(c)

				ctx := context.New()
				buildVariables(ctx, c)
				assert.Equal(t, want, ReportFromContext(ctx), "%s/%s/%s", name, v, vname)
				assert.Equal(t, int(want.Total), ctx.NumParameters())

				// Optimizer state and bookkeeping variables are not parameters.
				addOptimizerState(ctx)
				assert.Greater(t, ctx.NumParameters(), 3*int(want.Total))
				assert.Equal(t, want, ReportFromContext(ctx), "%s/%s/%s with optimizer state", name, v, vname)

				// A model built under a sub-scope is counted from that scope.
				ctx2 := context.New()
				buildVariables(ctx2.In("model"), c)
				addOptimizerState(ctx2)
				assert.Equal(t, want, ReportFromContext(ctx2.In("model")), "%s/%s/%s under /model", name, v, vname)
				assert.Equal(t, ParamReport{}, ReportFromContext(ctx2), "root of a model under /model")
			}
		}
	}
}

func TestFLOPsPerToken(t *testing.T) {
	// Hand computation, tiny transformer (d 64, H 2, dk 16, dv 32, F 128, W 4, V 256, 2 layers), T = 32.
	c := mustPreset(t, "tiny", Transformer)
	layer := 2.0*64*2*(16+32) + 2*64*2*32 + 2*2*32*64 + 2*4*2*(16+32) + 6*64*128 + 2*64*2*16 + 2*32*2*(16+32)
	assert.InDelta(t, 2*layer+2*64*256, FLOPsPerToken(c, 32, 1), 1e-9)
	assert.Equal(t, FLOPsPerToken(c, 32, 0), FLOPsPerToken(c, 32, 1), "single-mixer: fraction ignored")

	// GDN core, C = 16: H·[6C·dk + 4C·dv + 6·dk·dv + (2/3)C²]; T = 20 pads to 32.
	g := mustPreset(t, "tiny", GDN)
	gdnCore := 2 * (6*16*16 + 4*16*32 + 6*16*32 + 2.0/3.0*16*16)
	gdnLayer := 2.0*64*2*(16+32) + 2*64*2*32 + 2*2*32*64 + 2*4*2*(16+32) + 6*64*128 + 2*64*2*16 + 4*64*2
	assert.InDelta(t, 2*(gdnLayer+gdnCore)+2*64*256, FLOPsPerToken(g, 32, 0.5), 1e-6)
	assert.InDelta(t, 2*(gdnLayer+gdnCore*32/20)+2*64*256, FLOPsPerToken(g, 20, 0.5), 1e-6)

	// SSD core: 2C·H(dk+dv) + 4·H·dk·dv.
	m := mustPreset(t, "tiny", Mamba2)
	ssdCore := 2.0*16*2*(16+32) + 4*2*16*32
	mLayer := 2.0*64*2*(16+32) + 2*64*2*32 + 2*2*32*64 + 2*4*2*(16+32) + 6*64*128 + 2*64*2*16 + 2*64*2
	assert.InDelta(t, 2*(mLayer+ssdCore)+2*64*256, FLOPsPerToken(m, 64, 0.3), 1e-6)

	// Oryx: both mixers for 0 < f < 1; pure modes drop the unused one.
	for _, pair := range [][2]Variant{{OryxTG, GDN}, {OryxTM, Mamba2}} {
		for _, size := range []string{"tiny", "130m"} {
			o, lin, tr := mustPreset(t, size, pair[0]), mustPreset(t, size, pair[1]), mustPreset(t, size, Transformer)
			const T = 2048
			sharedF := FLOPsPerToken(tr, T, 1) - float64(tr.Layers)*(2*float64(tr.DModel*tr.Heads*tr.KeyDim)+
				attentionCorePerQuery(tr, T))
			both := FLOPsPerToken(lin, T, 0) + FLOPsPerToken(tr, T, 1) - sharedF
			for _, f := range []float64{0.01, 0.1, 0.5, 0.99} {
				assert.InDelta(t, both, FLOPsPerToken(o, T, f), 1e-6*both, "%s %s f=%g", size, pair[0], f)
			}
			assert.InDelta(t, FLOPsPerToken(lin, T, 0), FLOPsPerToken(o, T, 0), 1e-9*both)
			assert.InDelta(t, FLOPsPerToken(tr, T, 1), FLOPsPerToken(o, T, 1), 1e-9*both)
		}
	}
	assert.Panics(t, func() { FLOPsPerToken(c, 0, 0.5) })
	assert.Panics(t, func() { FLOPsPerToken(c, 8, 1.5) })
	assert.Panics(t, func() { FLOPsPerToken(c, 8, math.NaN()) })

	// Log a table for the paper-scale presets at T = 2048.
	var sb strings.Builder
	fmt.Fprintf(&sb, "\nforward GFLOPs/token at T=2048 (f=0.5; oryx f=0 / f=1 in brackets)\n")
	for _, name := range PresetNames[2:] {
		fmt.Fprintf(&sb, "%-5s", name)
		for _, v := range Variants {
			c := mustPreset(t, name, v)
			fmt.Fprintf(&sb, "  %s %.3f", v, FLOPsPerToken(c, 2048, 0.5)/1e9)
			if v.IsMultiMixer() {
				fmt.Fprintf(&sb, " [%.3f/%.3f]", FLOPsPerToken(c, 2048, 0)/1e9, FLOPsPerToken(c, 2048, 1)/1e9)
			}
		}
		sb.WriteString("\n")
	}
	t.Log(sb.String())
}

func TestFLOPsAttentionCore(t *testing.T) {
	c := mustPreset(t, "tiny", OryxTM)
	const T = 48
	perQueryKey := 2.0 * 2 * (16 + 32) // 2·H·(dk+dv)
	// Dense: T × the per-token core of FLOPsPerToken.
	dense := AttentionCoreFLOPs(c, T, nil)
	assert.InDelta(t, 2*T*T*perQueryKey, dense, 1e-9)
	assert.InDelta(t, FLOPsPerToken(c, 2*T, 0.5)-FLOPsPerToken(c, T, 0.5), dense/T, 1e-6,
		"dense core is linear in T per token")

	// Gathered: each attention query is scored against all T keys (causally masked), as implemented.
	all := make([]int, T)
	for i := range all {
		all[i] = i
	}
	assert.InDelta(t, dense, AttentionCoreFLOPs(c, T, all), 1e-9)
	assert.InDelta(t, 2*perQueryKey*3*T, AttentionCoreFLOPs(c, T, []int{0, 9, 47}), 1e-9)
	assert.Equal(t, 0.0, AttentionCoreFLOPs(c, T, []int{}))
	assert.Equal(t, 0.0, AttentionCoreFLOPs(mustPreset(t, "tiny", GDN), T, nil))
	assert.Panics(t, func() { AttentionCoreFLOPs(c, T, []int{T}) })
	assert.Panics(t, func() { AttentionCoreFLOPs(c, T, []int{-1}) })
}
