package oryx_test

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/tensordata"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// matchedPairs are the multi-mixer variants and the baselines whose parameters they share: every parameter
// of the baseline exists in the multi-mixer model under the same name and, with matched initialisation, the
// same value for the same seed.
var matchedPairs = []struct {
	oryx, baseline oryx.Variant
	mode           oryx.Mode // the mode in which the multi-mixer model reads like the baseline
	// sameFunction: the two compute the same function in that mode. Oryx-TG's shared keys and values pass
	// through a SiLU after the conv (GDN's convention) and the Transformer's do not, so Oryx-TG in attention
	// mode shares every weight with the Transformer but not its function.
	sameFunction bool
}{
	{oryx.OryxTG, oryx.GDN, oryx.Linear, true},
	{oryx.OryxTG, oryx.Transformer, oryx.Attention, false},
	{oryx.OryxTM, oryx.Mamba2, oryx.Linear, true},
	{oryx.OryxTM, oryx.Transformer, oryx.Attention, true},
}

// matchedConfig is oryxtest.Config with tied embeddings for every variant (the test config unties GDN's), so
// that the two models of a pair have the same parameter set but for the multi-mixer model's extra readout.
func matchedConfig(v oryx.Variant) oryx.Config {
	cfg := oryxtest.Config(v)
	cfg.TiedEmbeddings = true
	return cfg
}

// TestMatchedInitSharedWeightsEqual: for the same seed, every parameter of a baseline equals the parameter of
// the same name in the multi-mixer model (embeddings, K/V/G/O, convs, the linear readout's query and gates, the
// attention query, norms, MLP), and at step 0 the multi-mixer model in the baseline's mode computes exactly the
// baseline's logits where the two compute the same function (Oryx-TG all-linear = GDN, Oryx-TM all-linear =
// Mamba-2, Oryx-TM all-attention = the Transformer).
func TestMatchedInitSharedWeightsEqual(t *testing.T) {
	tokens := oryxtest.RandomTokens(7, 2, 11, 23)
	for _, p := range matchedPairs {
		t.Run(string(p.oryx)+"~"+string(p.baseline), func(t *testing.T) {
			mo, ctxO := oryxtest.NewModel(t, matchedConfig(p.oryx))
			mb, ctxB := oryxtest.NewModel(t, matchedConfig(p.baseline))
			modes := oryxtest.ConstModes(2, 11, p.mode)
			lo := oryxtest.ParallelLogits(t, mo, ctxO, tokens, modes)
			lb := oryxtest.ParallelLogits(t, mb, ctxB, tokens, nil)
			if p.sameFunction {
				require.Equal(t, lb, lo, "logits of %s in mode %v vs %s at step 0", p.oryx, p.mode, p.baseline)
			} else {
				require.NotEqual(t, lb, lo, "the pair computes different functions (conv activation)")
			}
			shared := 0
			for vb := range ctxB.IterVariables() {
				if !vb.Trainable {
					continue
				}
				vo := ctxO.GetVariableByScopeAndName(vb.Scope(), vb.Name())
				require.NotNil(t, vo, "%s has no %s/%s", p.oryx, vb.Scope(), vb.Name())
				require.Equal(t, tensordata.Float64s(vb.MustValue()), tensordata.Float64s(vo.MustValue()), "%s/%s", vb.Scope(), vb.Name())
				shared++
			}
			require.Greater(t, shared, 10)

		})
	}
}

// TestMatchedInitSeedsDiffer: another seed draws other weights, and two parameters of one model are drawn from
// different streams (no two projections alike).
func TestMatchedInitSeedsDiffer(t *testing.T) {
	cfg := matchedConfig(oryx.OryxTG)
	tokens := oryxtest.RandomTokens(7, 1, 5, 23)
	m, ctx1 := oryxtest.NewModel(t, cfg)
	_, ctx2 := oryxtest.NewModel(t, cfg)
	ctx2.SetParam(context.ParamInitialSeed, int64(1235))
	modes := oryxtest.ConstModes(1, 5, oryx.Attention)
	require.NotEqual(t, oryxtest.ParallelLogits(t, m, ctx1, tokens, modes), oryxtest.ParallelLogits(t, m, ctx2, tokens, modes))
	wk := tensordata.Float64s(ctx1.GetVariableByScopeAndName("/layer_000/wk", "weight").MustValue())
	wv := tensordata.Float64s(ctx1.GetVariableByScopeAndName("/layer_000/wv", "weight").MustValue())
	wk1 := tensordata.Float64s(ctx1.GetVariableByScopeAndName("/layer_001/wk", "weight").MustValue())
	require.NotEqual(t, wk[:8], wv[:8])
	require.NotEqual(t, wk, wk1)
}

// TestInitialWeightsPinned: initial weights are drawn on the host from per-parameter streams, so they are the
// same on every backend (this test runs in the pure-Go and the XLA suites against the same numbers) and change
// only when the draws are changed on purpose.
func TestInitialWeightsPinned(t *testing.T) {
	m, ctx := oryxtest.NewModel(t, matchedConfig(oryx.OryxTG))
	oryxtest.ParallelLogits(t, m, ctx, oryxtest.RandomTokens(7, 1, 3, 23), oryxtest.ConstModes(1, 3, oryx.Linear))
	first := func(scope, name string) []float64 {
		return tensordata.Float64s(ctx.GetVariableByScopeAndName(scope, name).MustValue())[:2]
	}
	require.Equal(t, pinnedWK, first("/layer_000/wk", "weight"))
	require.Equal(t, pinnedALog, first("/layer_001/a_log", "weight"))
	require.Equal(t, pinnedEmbeddings, first("/embeddings", "embeddings"))
}

// The first two values of three parameters of the float64 test model, seed 1234.
var (
	pinnedWK         = []float64{0.11642010104374834, -0.2991908226265027}
	pinnedALog       = []float64{0.419911782082767, 1.309819419092278}
	pinnedEmbeddings = []float64{0.003174504769531922, 0.032007638289996136}
)
