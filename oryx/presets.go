package oryx

import (
	"fmt"
	"strings"
)

// PresetNames lists the presets Preset knows, smallest first: two CPU presets and the paper-scale sizes.
var PresetNames = []string{"tiny", "small", "130m", "370m", "760m", "1.4b"}

// PresetVocab is the vocabulary of the paper-scale presets: the GPT-NeoX-20B tokenizer's 50277 tokens
// padded up to a multiple of 64 [choice].
const PresetVocab = 50304

// presetShape holds the per-size fields; everything else is common (see Preset).
type presetShape struct {
	nominal                    int64 // nominal parameter count (0 for the CPU presets)
	vocab, d, layers, heads    int
	keyDim, valueDim, mlp, chk int
}

// presets: the CPU presets "tiny" and "small", and the paper-scale sizes with d_k = 64, d_v = 128 and
// H·d_v = d [choice]. The MLP width F (a multiple of 64) is tuned so that every variant lies within ±5 % of
// the nominal size — in fact within ±2.1 %: F minimises the largest deviation over the five variants, which
// differ by one [d, H, d_k] query per layer (CountParams; presets_test.go logs the table).
var presets = map[string]presetShape{
	"tiny":  {0, 256, 64, 2, 2, 16, 32, 128, 16},
	"small": {0, 512, 128, 4, 4, 16, 32, 256, 32},
	"130m":  {130_000_000, PresetVocab, 768, 12, 6, 64, 128, 2240, 64},
	"370m":  {370_000_000, PresetVocab, 1024, 24, 8, 64, 128, 2880, 64},
	"760m":  {760_000_000, PresetVocab, 1536, 24, 12, 64, 128, 3968, 64},
	"1.4b":  {1_400_000_000, PresetVocab, 2048, 24, 16, 64, 128, 5888, 64},
}

// Preset returns the named architecture for variant v, with every field filled (WithDefaults) and
// validated.
//
// Common to all presets [choice]: tied embeddings, RoPE on the attention path (base 10000), causal K/V conv
// of width 4 (SiLU after it for GDN variants, none otherwise — WithDefaults), RMSNorm eps 1e-5, per-head
// gated output norm, "auto" inter-chunk pass (layers.Auto: per backend and length), linear mixer from the variant.
//
//   - "tiny" (CPU, bytes or synthetic tasks): vocab 256, d 64, 2 layers, H 2, d_k 16, d_v 32, F 128, chunk 16.
//   - "small" (CPU): vocab 512, d 128, 4 layers, H 4, d_k 16, d_v 32, F 256, chunk 32.
//   - "130m", "370m", "760m", "1.4b": vocab 50304 (GPT-NeoX-20B's 50277, padded to a multiple of 64),
//     d_k = 64, d_v = 128 (keys and queries narrower than values, as in GDN) and H·d_v = d, chunk 64:
//     130m d 768 / 12 layers / H 6 / F 2240; 370m d 1024 / 24 / 8 / 2880; 760m d 1536 / 24 / 12 / 3968;
//     1.4b d 2048 / 24 / 16 / 5888.
//
// Unknown names or variants are an error that lists the valid ones.
func Preset(name string, v Variant) (Config, error) {
	p, ok := presets[name]
	if !ok {
		return Config{}, fmt.Errorf("unknown preset %q: want one of %s", name, strings.Join(PresetNames, ", "))
	}
	known := false
	for _, vv := range Variants {
		known = known || v == vv
	}
	if !known {
		return Config{}, fmt.Errorf("unknown variant %q: want one of %v", v, Variants)
	}
	c := Config{
		Variant:        v,
		Vocab:          p.vocab,
		DModel:         p.d,
		Layers:         p.layers,
		Heads:          p.heads,
		KeyDim:         p.keyDim,
		ValueDim:       p.valueDim,
		MLPHidden:      p.mlp,
		ConvWidth:      4,
		RoPE:           true,
		RoPEBase:       10000,
		TiedEmbeddings: true,
		NormEps:        1e-5,
		OutputNorm:     "head",
		Chunk:          p.chk,
		InterChunk:     "auto",
	}.WithDefaults()
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("preset %q / %q: %w", name, v, err)
	}
	return c, nil
}

// NominalParams returns a preset's nominal parameter count (130e6 for "130m", …); false for the CPU
// presets and unknown names.
func NominalParams(name string) (int64, bool) {
	p, ok := presets[name]
	if !ok || p.nominal == 0 {
		return 0, false
	}
	return p.nominal, true
}

// ByteTokenizerVocabHint is what an error about token id out of a model's vocabulary adds when id is one of
// the byte tokenizer's special tokens (256 "<|endoftext|>", 257 "<|pad|>": datasets/tokenizers.ByteTokenizerEOS,
// ByteTokenizerPad) and the vocabulary is too small for them, as Preset("tiny")'s 256 is: which vocabulary to
// use instead. "" otherwise.
func ByteTokenizerVocabHint(id, vocab int) string {
	name := map[int]string{256: "<|endoftext|>", 257: "<|pad|>"}[id]
	if name == "" || vocab > id {
		return ""
	}
	return fmt.Sprintf(" (%d is the byte tokenizer's %q: a model that uses the byte tokenizer needs a vocabulary of at "+
		"least 258, and Preset(\"tiny\")'s is 256; set Config.Vocab = 320 as `oryx init --preset tiny` and the tiny "+
		"recipes do)", id, name)
}
