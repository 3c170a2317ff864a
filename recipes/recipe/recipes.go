package recipe

import (
	"fmt"
	"sort"
	"strings"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/recipes/train"
)

// Recipe is one named training run with its defaults: an architecture preset and variant, the optimisation
// and the default corpus and tokenizer. Every variant of a size shares the same train.TrainConfig (the same token
// budget, batch and schedule), so that the five models of a size are compared at a fixed token budget.
type Recipe struct {
	Name      string
	Preset    string // oryx preset ("tiny", "small", "130m", ...)
	Variant   oryx.Variant
	Train     train.TrainConfig
	Data      string // default --data ("" = must be given)
	Tokenizer string // default --tokenizer ("" = must be given)
	// PadVocabToTokenizer sets the model's vocabulary to the tokenizer's, padded to a multiple of 64 (the CPU
	// recipes, whose presets are sized for small vocabularies); otherwise the preset's vocabulary is kept and
	// must hold the tokenizer's ids.
	PadVocabToTokenizer bool
	Note                string
}

// Paper-scale optimisation [choice unless noted; the paper gives no recipe, docs/model.md §7 gives a GDN-style
// one for orientation]: AdamW β = (0.9, 0.95), ε 1e-8, weight decay 0.1 (not on norms, A_log, Δ bias, D:
// DecayParam), gradient clip 1.0 [§7], cosine decay to 10 % of the peak [§7: 4e-4 → 4e-5], about
// 0.5M-token global batches (256 × 2048) [§7], sequence length 2048; token budgets ≈ 20 tokens per
// parameter (Chinchilla, as the Mamba paper's scaling runs); peak LR 4e-4 at 1.4B [§7] and, at smaller
// sizes, scaled as GPT-3's learning-rate ladder (125M 6e-4, 350M 3e-4, 760M 2.5e-4, 1.3B 2e-4, i.e. ×3,
// ×1.5, ×1.25 of the 1.3B value): 1.2e-3, 6e-4, 5e-4; bf16 compute with float32 master weights (XLA);
// warm-up 500 steps at 130M, 1000 above; mixed-mode training with
// 128-token blocks (two chunks of 64), each in attention mode with probability 0.5 [docs/model.md §3.11,
// choice].
var paperSizes = []struct {
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

// paperTrain returns the shared train.TrainConfig of a paper-scale size.
func paperTrain(tokens int64, lr float64, warmup, micro int) train.TrainConfig {
	const seqLen, batch = 2048, 256
	return train.TrainConfig{
		SeqLen: seqLen, Batch: batch, MicroBatch: micro, Steps: int(tokens / (seqLen * batch)),
		LR: lr, MinLRRatio: 0.1, WarmupSteps: warmup, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.1,
		ClipNorm: 1, Precision: "bf16", BlockLen: 128, AttentionProb: 0.5, Seed: 1,
		CheckpointEvery: 1000, KeepCheckpoints: 3, EvalEvery: 1000, EvalBatches: 16, LogEvery: 10,
	}
}

// tinyTrain is the CPU recipe shared by the tiny models: sequences of 256 bytes of the synthetic language,
// 16 per step, 300 steps (1.2M tokens): about 6 minutes per model on 2 cores (BENCHMARKS.md).
func tinyTrain() train.TrainConfig {
	return train.TrainConfig{
		SeqLen: 256, Batch: 16, MicroBatch: 16, Steps: 300,
		LR: 3e-3, MinLRRatio: 0.1, WarmupSteps: 30, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.1,
		ClipNorm: 1, Precision: "f32", BlockLen: 64, AttentionProb: 0.5, Seed: 1,
		CheckpointEvery: 50, KeepCheckpoints: 2, EvalEvery: 50, EvalBatches: 4, LogEvery: 1,
	}
}

// smallTrain is the CPU recipe shared by the small models (small preset: d 128, 4 layers, ≈ 0.9M parameters
// with the byte vocabulary): the tiny recipe's shape (sequences of 256 bytes of the synthetic language, 16 per
// step, blocks of 64 tokens in attention mode with probability 0.5) for 400 steps (1.6M tokens) at a lower peak
// LR (2e-3: twice the width and depth of tiny). Measured on XLA CPU on 2 shared cores (load ≈ 8): 2.1K
// tokens/s, ≈ 13 minutes for the 400 steps (BENCHMARKS.md "Self-speculative decoding": 240 steps in 588 s);
// several times slower on the pure-Go backend.
func smallTrain() train.TrainConfig {
	tc := tinyTrain()
	tc.Steps, tc.LR, tc.WarmupSteps = 400, 2e-3, 40
	return tc
}

// recipes is the table, filled by init.
var recipes = map[string]Recipe{}

func init() {
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
}

// Lookup returns the named recipe, or an error listing them all.
func Lookup(name string) (Recipe, error) {
	r, ok := recipes[name]
	if !ok {
		return Recipe{}, fmt.Errorf("unknown recipe %q: want one of %s", name, strings.Join(Names(), ", "))
	}
	return r, nil
}

// Names lists the recipes, sorted.
func Names() []string {
	var n []string
	for k := range recipes {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// ModelConfig returns the recipe's architecture for a tokenizer of vocab ids.
func (r Recipe) ModelConfig(vocab int) (oryx.Config, error) {
	c, err := oryx.Preset(r.Preset, r.Variant)
	if err != nil {
		return c, err
	}
	if r.PadVocabToTokenizer && vocab > 0 {
		c.Vocab = (vocab + 63) / 64 * 64
	}
	return c, c.Validate()
}
