package hf

import (
	"fmt"

	"github.com/oryx-go/oryx/oryx"
)

// Param is one model parameter under both names: the oryx variable (scope + name, as in a checkpoint) with
// its shape, and the Hugging Face / fla-style tensor name with its shape. The two shapes have the same
// elements in the same row-major order (only the grouping of axes differs), so converting is a reshape and
// the bytes are copied unchanged.
type Param struct {
	Scope, Name string // oryx variable, e.g. "/layer_003/wk", "weight"
	Shape       []int  // oryx shape, e.g. [heads, key_dim, d_model]
	HF          string // e.g. "model.layers.3.attn.k_proj.weight"
	HFShape     []int  // e.g. [heads·key_dim, d_model] (PyTorch Linear: [out, in])
}

// Params lists the parameters of a model of config c, in the order of the mapping table (the package
// documentation). It mirrors oryx's block layout; Export checks that a checkpoint holds exactly these.
func Params(c oryx.Config) []Param {
	d, h, dk, dv, f, w := c.DModel, c.Heads, c.KeyDim, c.ValueDim, c.MLPHidden, c.ConvWidth
	var ps []Param
	add := func(scope, name, hfName string, shape, hfShape []int) {
		ps = append(ps, Param{Scope: scope, Name: name, Shape: shape, HF: hfName, HFShape: hfShape})
	}
	add("/embeddings", "embeddings", "model.embeddings.weight", []int{c.Vocab, d}, []int{c.Vocab, d})
	for i := range c.Layers {
		s := fmt.Sprintf("/layer_%03d/", i)
		p := fmt.Sprintf("model.layers.%d.", i)
		lin := func(name, hfName string, out []int, in int) { // a projection [out..., in] → [prod(out), in]
			n := 1
			for _, o := range out {
				n *= o
			}
			add(s+name, "weight", p+hfName, append(append([]int{}, out...), in), []int{n, in})
		}
		vec := func(name, hfName string, n int) { add(s+name, "weight", p+hfName, []int{n}, []int{n}) }

		vec("attn_norm", "attn_norm.weight", d)
		if c.Variant.HasAttention() {
			lin("wq_attn", "attn.q_proj.weight", []int{h, dk}, d)
		}
		if c.Variant.LinearMixer() != oryx.NoLinear {
			name := "attn.q_proj.weight" // the single-mixer linear models' only query, as in fla
			if c.Variant.IsMultiMixer() {
				name = "attn.linear_q_proj.weight"
			}
			lin("wq_linear", name, []int{h, dk}, d)
		}
		lin("wk", "attn.k_proj.weight", []int{h, dk}, d)
		lin("wv", "attn.v_proj.weight", []int{h, dv}, d)
		if w > 0 { // depthwise causal conv: oryx [channels, width], PyTorch Conv1d [channels, 1, width]
			add(s+"conv_k", "weight", p+"attn.k_conv1d.weight", []int{h * dk, w}, []int{h * dk, 1, w})
			add(s+"conv_v", "weight", p+"attn.v_conv1d.weight", []int{h * dv, w}, []int{h * dv, 1, w})
		}
		switch c.Variant.LinearMixer() {
		case oryx.MixerMamba2:
			lin("dt_proj", "attn.dt_proj.weight", []int{h}, d)
			vec("dt_bias", "attn.dt_bias", h)
			vec("a_log", "attn.A_log", h)
			vec("d_skip", "attn.D", h)
		case oryx.MixerGDN:
			lin("decay_proj", "attn.a_proj.weight", []int{h}, d)
			lin("beta_proj", "attn.b_proj.weight", []int{h}, d)
			vec("dt_bias", "attn.dt_bias", h)
			vec("a_log", "attn.A_log", h)
		}
		lin("wg", "attn.g_proj.weight", []int{h, dv}, d)
		if c.OutputNorm == "full" {
			vec("out_norm", "attn.o_norm.weight", h*dv)
		} else {
			vec("out_norm", "attn.o_norm.weight", dv)
		}
		add(s+"wo", "weight", p+"attn.o_proj.weight", []int{d, h, dv}, []int{d, h * dv})
		vec("mlp_norm", "mlp_norm.weight", d)
		lin("mlp_gate", "mlp.gate_proj.weight", []int{f}, d)
		lin("mlp_up", "mlp.up_proj.weight", []int{f}, d)
		lin("mlp_down", "mlp.down_proj.weight", []int{d}, f)
	}
	add("/final_norm", "weight", "model.norm.weight", []int{d}, []int{d})
	if !c.TiedEmbeddings {
		add("/lm_head", "weight", "lm_head.weight", []int{c.Vocab, d}, []int{c.Vocab, d})
	}
	return ps
}
