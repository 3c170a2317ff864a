package hf

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/oryx"
)

// Config is the Hugging Face-style config.json of an export: the usual transformers/fla keys, so that tools
// that read hidden_size or num_hidden_layers find them, plus the exact oryx.Config under "oryx_config",
// which Import reads back (the HF keys alone cannot express every oryx field).
type Config struct {
	Architectures     []string    `json:"architectures"`
	ModelType         string      `json:"model_type"`
	VocabSize         int         `json:"vocab_size"`
	HiddenSize        int         `json:"hidden_size"`
	NumHiddenLayers   int         `json:"num_hidden_layers"`
	NumHeads          int         `json:"num_heads"`
	HeadDim           int         `json:"head_dim"`   // key/query dimension per head
	HeadVDim          int         `json:"head_v_dim"` // value dimension per head
	IntermediateSize  int         `json:"intermediate_size"`
	HiddenAct         string      `json:"hidden_act"`
	NormEps           float64     `json:"norm_eps"`
	TieWordEmbeddings bool        `json:"tie_word_embeddings"`
	UseShortConv      bool        `json:"use_short_conv"`
	ConvSize          int         `json:"conv_size"`
	RopeTheta         float64     `json:"rope_theta,omitempty"`
	TorchDType        string      `json:"torch_dtype"`
	Oryx              oryx.Config `json:"oryx_config"`
}

// modelTypes are the model_type / architectures of each variant: fla's names for the single-mixer models,
// "oryx" for the multi-mixer ones.
var modelTypes = map[oryx.Variant][2]string{
	oryx.Transformer: {"transformer", "TransformerForCausalLM"},
	oryx.Mamba2:      {"mamba2", "Mamba2ForCausalLM"},
	oryx.GDN:         {"gated_deltanet", "GatedDeltaNetForCausalLM"},
	oryx.OryxTM:      {"oryx", "OryxForCausalLM"},
	oryx.OryxTG:      {"oryx", "OryxForCausalLM"},
}

// NewConfig returns the HF-style config of c with weights of the given torch dtype name ("float32", ...).
func NewConfig(c oryx.Config, torchDType string) Config {
	mt := modelTypes[c.Variant]
	hc := Config{Architectures: []string{mt[1]}, ModelType: mt[0], VocabSize: c.Vocab, HiddenSize: c.DModel,
		NumHiddenLayers: c.Layers, NumHeads: c.Heads, HeadDim: c.KeyDim, HeadVDim: c.ValueDim,
		IntermediateSize: c.MLPHidden, HiddenAct: "swish", NormEps: c.NormEps, TieWordEmbeddings: c.TiedEmbeddings,
		UseShortConv: c.ConvWidth > 0, ConvSize: c.ConvWidth, TorchDType: torchDType, Oryx: c}
	if c.RoPE {
		hc.RopeTheta = c.RoPEBase
	}
	return hc
}

// ReadConfig reads an export's config.json and returns its oryx config, validated, checking that the HF
// keys agree with it (a hand-edited file whose keys disagree is refused rather than half-honoured).
func ReadConfig(path string) (oryx.Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return oryx.Config{}, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return oryx.Config{}, fmt.Errorf("%s: not a JSON object: %w", path, err)
	}
	if _, ok := raw["oryx_config"]; !ok {
		return oryx.Config{}, fmt.Errorf("%s: no \"oryx_config\" key: not an export of this project (oryx export "+
			"--format safetensors writes it); other Hugging Face models cannot be imported", path)
	}
	var hc Config
	if err := json.Unmarshal(data, &hc); err != nil {
		return oryx.Config{}, fmt.Errorf("%s: %w", path, err)
	}
	c := hc.Oryx
	if err := c.Validate(); err != nil {
		return oryx.Config{}, fmt.Errorf("%s: oryx_config: %w", path, err)
	}
	want := NewConfig(c, hc.TorchDType)
	for _, k := range []struct {
		key       string
		got, want any
	}{{"vocab_size", hc.VocabSize, want.VocabSize}, {"hidden_size", hc.HiddenSize, want.HiddenSize},
		{"num_hidden_layers", hc.NumHiddenLayers, want.NumHiddenLayers}, {"num_heads", hc.NumHeads, want.NumHeads},
		{"head_dim", hc.HeadDim, want.HeadDim}, {"head_v_dim", hc.HeadVDim, want.HeadVDim},
		{"intermediate_size", hc.IntermediateSize, want.IntermediateSize},
		{"tie_word_embeddings", hc.TieWordEmbeddings, want.TieWordEmbeddings}, {"conv_size", hc.ConvSize, want.ConvSize}} {
		if k.got != k.want {
			return oryx.Config{}, fmt.Errorf("%s: %s is %v but oryx_config implies %v", path, k.key, k.got, k.want)
		}
	}
	return c, nil
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'))
}
