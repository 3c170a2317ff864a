package oryx_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// The attention-key options (Config.AttentionKeyNorm, Config.AttentionKeySource) change what attention
// reads in every pass of the one layer body (block.go): the parallel forward, the decode step, the verify
// pass of speculative decoding and the escalation's linear trial step. The exactness tests of the default
// model are rerun on models with the options (here; the verify pass and the trial steps in oryx/infer's
// attentionkey_test.go), and property tests show that each option does what it says (an option that changed
// nothing would pass the exactness tests).

// attentionKeyCases are Oryx-TG test configs with each option and both (oryxtest.AttentionKeyCases).
func attentionKeyCases() []oryxtest.Case { return oryxtest.AttentionKeyCases() }

// TestAttentionKeyOptionsExact: with the options, Step == the parallel forward and Prefill + Steps == the
// parallel forward, for Oryx-TG and the Transformer.
func TestAttentionKeyOptionsExact(t *testing.T) {
	for _, c := range testutil.Sweep(attentionKeyCases(), 1) {
		t.Run(c.Name, func(t *testing.T) {
			m, ctx := oryxtest.NewModel(t, c.Config)
			checkStepMatchesParallel(t, m, ctx)
			checkPrefillThenStepsMatchesParallel(t, m, ctx)
		})
	}
	for _, c := range testutil.Sweep(attentionKeyCases(), 1) {
		t.Run("transformer/"+c.Name, func(t *testing.T) {
			cfg := c.Config
			cfg.Variant, cfg.LinearMixer, cfg.ConvActivation = oryx.Transformer, oryx.NoLinear, "none"
			m, ctx := oryxtest.NewModel(t, cfg)
			checkStepMatchesParallel(t, m, ctx)
		})
	}
}

// TestAttentionKeyOptionsGradients: gradients == central finite differences (float64) with each option, on
// both backends (two compiles per case on XLA: checkGradientsMatchFiniteDifferences compiles the loss once).
func TestAttentionKeyOptionsGradients(t *testing.T) {
	for _, c := range attentionKeyCases() {
		t.Run(c.Name, func(t *testing.T) {
			cfg := c.Config
			cfg.Layers = 1
			checkGradientsMatchFiniteDifferences(t, cfg)
		})
	}
}

// scaleWeights multiplies the named weight of every layer by f.
func scaleWeights(t *testing.T, ctx *context.Context, layers int, name string, f float64) {
	t.Helper()
	for l := range layers {
		v := ctx.GetVariableByScopeAndName(fmt.Sprintf("/layer_%03d/%s", l, name), "weight")
		require.NotNil(t, v, "layer %d %s", l, name)
		val, err := v.Value()
		require.NoError(t, err)
		x := tensors.MustCopyFlatData[float64](val)
		for i := range x {
			x[i] *= f
		}
		require.NoError(t, v.SetValue(tensors.FromFlatDataAndDimensions(x, val.Shape().Clone().Dimensions...)))
	}
}

// TestAttentionKeyOptionsSemantics checks what each option makes attention read, through invariances of the
// all-attention logits (which read nothing but attention) against a change of weights:
//   - attention_key_source "projection": the conv on K is not on attention's path — changing conv_k leaves
//     the all-attention logits as they were (and changes the all-linear ones: the recurrence still reads
//     the post-conv key); by default it changes both;
//   - attention_key_norm "l2": attention reads k/‖k‖ — scaling k (W_K with the projection source; conv_k
//     without an activation with the post-conv source) leaves the all-attention logits as they were; without
//     the option it changes them.
func TestAttentionKeyOptionsSemantics(t *testing.T) {
	const b, n = 2, 11
	tokens := oryxtest.RandomTokens(41, b, n, oryxtest.Config(oryx.OryxTG).Vocab)
	att, lin := oryxtest.ConstModes(b, n, oryx.Attention), oryxtest.ConstModes(b, n, oryx.Linear)
	// changed reports whether scaling weight name by f changes the logits under modes: a relative change above
	// 1e-2 (the changes below are O(1)); ≤ 1e-5 is no change (the norm's eps, 1e-6 under the square root,
	// moves the logits by ~1e-7); anything between fails the test.
	changed := func(t *testing.T, cfg oryx.Config, name string, f float64, modes [][]oryx.Mode) bool {
		m, ctx := oryxtest.NewModel(t, cfg)
		before := oryxtest.ParallelLogits(t, m, ctx, tokens, modes)
		scaleWeights(t, ctx, cfg.Layers, name, f)
		after := oryxtest.ParallelLogits(t, m, ctx, tokens, modes)
		diff := 0.0
		for r := range before {
			diff = max(diff, testutil.RelErr(after[r], before[r]))
		}
		t.Logf("%s ×%g: relative change %.3g", name, f, diff)
		require.True(t, diff > 1e-2 || diff <= 1e-5, "%s ×%g: relative change %.3g is neither none nor O(1)", name, f, diff)
		return diff > 1e-2
	}
	with := func(norm, source, act string) oryx.Config {
		c := oryxtest.Config(oryx.OryxTG)
		c.AttentionKeyNorm, c.AttentionKeySource = norm, source
		if act != "" {
			c.ConvActivation = act
		}
		return c
	}
	t.Run("source", func(t *testing.T) {
		require.True(t, changed(t, with("", "", ""), "conv_k", 1.7, att), "default: attention reads the post-conv key")
		require.False(t, changed(t, with("", oryx.AttentionKeyProjection, ""), "conv_k", 1.7, att), "projection: conv_k is off attention's path")
		require.True(t, changed(t, with("", oryx.AttentionKeyProjection, ""), "conv_k", 1.7, lin), "projection: the recurrence still reads the post-conv key")
	})
	t.Run("l2", func(t *testing.T) {
		require.True(t, changed(t, with("", oryx.AttentionKeyProjection, ""), "wk", 3, att), "no norm: the key's scale matters")
		require.False(t, changed(t, with(oryx.AttentionKeyL2, oryx.AttentionKeyProjection, ""), "wk", 3, att), "l2 on the projection: scale-free")
		require.True(t, changed(t, with("", "", "none"), "conv_k", 3, att), "no norm, linear conv: the key's scale matters")
		require.False(t, changed(t, with(oryx.AttentionKeyL2, "", "none"), "conv_k", 3, att), "l2 on the post-conv key: scale-free")
	})
}

// TestAttentionKeyConfig: the options validate, are refused on variants without attention, and leave the
// JSON (and ConfigHash) of a default config as it was before they existed.
func TestAttentionKeyConfig(t *testing.T) {
	c := oryxtest.Config(oryx.OryxTG)
	c.AttentionKeyNorm = "l1"
	require.ErrorContains(t, c.Validate(), "attention_key_norm")
	c = oryxtest.Config(oryx.OryxTG)
	c.AttentionKeySource = "raw"
	require.ErrorContains(t, c.Validate(), "attention_key_source")
	c = oryxtest.Config(oryx.GDN)
	c.AttentionKeyNorm = oryx.AttentionKeyL2
	require.ErrorContains(t, c.Validate(), "apply to variants with attention")
	for _, tc := range attentionKeyCases() {
		require.NoError(t, tc.Config.Validate(), tc.Name)
	}
	p, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	data, err := json.Marshal(p)
	require.NoError(t, err)
	require.NotContains(t, string(data), "attention_key")
}
