package infer

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// TestAttentionKeyOptionsDecoding: with the attention-key options (oryx.Config.AttentionKeyNorm,
// AttentionKeySource), the escalation's trial steps == the parallel forward and speculative decoding (the
// verify pass and its commit) == Generate, for Oryx-TG; the parallel and step forms are checked in oryx's
// attentionkey_test.go.
func TestAttentionKeyOptionsDecoding(t *testing.T) {
	for _, c := range testutil.Sweep(oryxtest.AttentionKeyCases(), 1) {
		t.Run(c.Name, func(t *testing.T) {
			cfg := c.Config
			cfg.TiedEmbeddings = false
			m, ctx := oryxtest.NewModel(t, cfg)
			ctx.SetParam(context.ParamInitialSeed, genTestSeed)
			checkStepEscalateMatchesParallel(t, m, ctx)
			m, ctx = specTestModelOf(t, cfg)
			checkSpeculativeMatchesGenerate(t, m, ctx, 4, "A:0-3,L:4-13,A:14-")
		})
	}
}
