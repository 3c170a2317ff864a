package recipe

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/recipes/train"
)

// TestRecipesUnchanged: the recipe table holds exactly the recipes the loops it replaced computed, value for
// value (legacyRecipes is that code, kept here as the reference): writing every value out changed none.
func TestRecipesUnchanged(t *testing.T) {
	want := legacyRecipes()
	require.ElementsMatch(t, keys(want), Names())
	for name, w := range want {
		got, err := Lookup(name)
		require.NoError(t, err)
		require.Equal(t, w, got, name)
	}
}

func keys(m map[string]Recipe) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// legacyRecipes is the recipe table as recipes/recipe computed it before every value was written out.
func legacyRecipes() map[string]Recipe {
	paperSizes := []struct {
		preset      string
		tokens      int64
		lr          float64
		warmup      int
		microBatch  int
		description string
	}{
		{"130m", 2_600_000_000, 1.2e-3, 500, 16, "130M parameters, 2.6B tokens"},
		{"370m", 7_400_000_000, 6e-4, 1000, 8, "370M parameters, 7.4B tokens"},
		{"760m", 15_200_000_000, 5e-4, 1000, 4, "760M parameters, 15.2B tokens"},
		{"1.4b", 28_000_000_000, 4e-4, 1000, 2, "1.4B parameters, 28B tokens"},
	}
	paperTrain := func(tokens int64, lr float64, warmup, micro int) train.TrainConfig {
		const seqLen, batch = 2048, 256
		return train.TrainConfig{
			SeqLen: seqLen, Batch: batch, MicroBatch: micro, Steps: int(tokens / (seqLen * batch)),
			LR: lr, MinLRRatio: 0.1, WarmupSteps: warmup, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.1,
			ClipNorm: 1, Precision: "bf16", BlockLen: 128, AttentionProb: 0.5, Seed: 1,
			CheckpointEvery: 1000, KeepCheckpoints: 3, EvalEvery: 1000, EvalBatches: 16, LogEvery: 10,
		}
	}
	tinyTrain := func() train.TrainConfig {
		return train.TrainConfig{
			SeqLen: 256, Batch: 16, MicroBatch: 16, Steps: 300,
			LR: 3e-3, MinLRRatio: 0.1, WarmupSteps: 30, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.1,
			ClipNorm: 1, Precision: "f32", BlockLen: 64, AttentionProb: 0.5, Seed: 1,
			CheckpointEvery: 50, KeepCheckpoints: 2, EvalEvery: 50, EvalBatches: 4, LogEvery: 1,
		}
	}
	smallTrain := func() train.TrainConfig {
		tc := tinyTrain()
		tc.Steps, tc.LR, tc.WarmupSteps = 400, 2e-3, 40
		return tc
	}
	recipes := map[string]Recipe{}
	for _, s := range paperSizes {
		for _, v := range oryx.Variants {
			r := Recipe{
				Name: string(v) + "-" + s.preset, Preset: s.preset, Variant: v,
				Train: paperTrain(s.tokens, s.lr, s.warmup, s.microBatch),
				Note:  s.description + ", GPT-NeoX-20B tokenizer (vocab 50304); pass --data and --tokenizer",
			}
			recipes[r.Name] = r
		}
	}
	for _, v := range oryx.Variants {
		r := Recipe{
			Name: string(v) + "-tiny", Preset: "tiny", Variant: v, Train: tinyTrain(),
			Data: "synth", Tokenizer: "bytes", PadVocabToTokenizer: true,
			Note: "tiny CPU run on the synthetic language (bytes): a few minutes on 2 cores",
		}
		recipes[r.Name] = r
		r = Recipe{
			Name: string(v) + "-small", Preset: "small", Variant: v, Train: smallTrain(),
			Data: "synth", Tokenizer: "bytes", PadVocabToTokenizer: true,
			Note: "small CPU run on the synthetic language (bytes): minutes on 2 cores with XLA CPU",
		}
		recipes[r.Name] = r
	}
	return recipes
}
