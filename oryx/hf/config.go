package hf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/safefile"
	"github.com/oryx-go/oryx/layers"
	"github.com/oryx-go/oryx/oryx"
)

// FormatVersion is the export layout this package writes, stated in config.json as "oryx_export_format".
// Version 1 (no such key) had only the usual transformers/fla keys; version 2 adds the keys that state
// every semantic choice of the architecture and the PyTorch reference modeling_oryx.py. Import reads both.
const FormatVersion = 2

// Config is the Hugging Face-style config.json of an export. Keys that exist in transformers keep their
// transformers meaning (vocab_size, hidden_size, num_hidden_layers, intermediate_size, hidden_act,
// tie_word_embeddings, rms_norm_eps, num_attention_heads, rope_theta, torch_dtype, auto_map, and for the
// Mamba-2 mixer state_size = the key size per head, as in transformers' Mamba2Config); fla's use_short_conv
// and conv_size likewise. Everything transformers has no key for gets a name of its own, so that the file
// states every semantic choice a reimplementation needs (the reference is modeling_oryx.py, written
// beside it). oryx_config is the exact oryx.Config, which Import reads back; Import refuses a file whose
// other keys are not exactly what NewConfig writes for it.
type Config struct {
	Architectures []string          `json:"architectures"`
	AutoMap       map[string]string `json:"auto_map"`
	ModelType     string            `json:"model_type"` // "oryx_" + the variant: oryx_transformer, oryx_mamba2, oryx_gdn, oryx_tm, oryx_tg
	ExportFormat  int               `json:"oryx_export_format"`
	Variant       string            `json:"oryx_variant"`
	TorchDType    string            `json:"torch_dtype"` // dtype of the tensors in model.safetensors

	VocabSize         int     `json:"vocab_size"`
	HiddenSize        int     `json:"hidden_size"`
	NumHiddenLayers   int     `json:"num_hidden_layers"`
	IntermediateSize  int     `json:"intermediate_size"` // SwiGLU hidden width: down(silu(gate(x)) * up(x))
	HiddenAct         string  `json:"hidden_act"`        // "silu"
	TieWordEmbeddings bool    `json:"tie_word_embeddings"`
	RMSNormEps        float64 `json:"rms_norm_eps"` // attn_norm, mlp_norm, the final norm: x / sqrt(mean(x²) + eps) · w

	// Readouts are the mixers a token can be read by: ["attention"], ["linear"] or both (an Oryx model:
	// each token picks one, the same in every layer; DefaultMode is the one used when none is given).
	Readouts    []string `json:"readouts"`
	DefaultMode string   `json:"default_mode"`
	// NumHeads is H for every mixer (attention and the linear mixer use the same heads and the same keys
	// and values); KeyHeadDim (queries, keys, linear-state rows) and ValueHeadDim (values, outputs, state
	// columns) per head. NumAttentionHeads = NumHeads where there is attention (no grouped-query sharing).
	NumHeads          int `json:"num_heads"`
	NumAttentionHeads int `json:"num_attention_heads,omitempty"`
	KeyHeadDim        int `json:"key_head_dim"`
	ValueHeadDim      int `json:"value_head_dim"`
	StateSize         int `json:"state_size,omitempty"`

	// The short causal depthwise convolution on the shared keys and values (never on queries): width
	// ConvSize, then ConvActivation ("silu" or "none"; "none" whenever there is no conv).
	UseShortConv   bool     `json:"use_short_conv"`
	ConvSize       int      `json:"conv_size"`
	ConvActivation string   `json:"conv_activation"`
	ConvInputs     []string `json:"conv_inputs"` // ["key", "value"], or [] without a conv

	// Attention (variants with attention): softmax(AttentionScale · q·k) over the causal prefix, with
	// AttentionKey the key it reads ("post_conv": the shared key after the conv and its activation, no L2
	// norm). PositionEncoding "rope" rotates the attention query and that key only (RoPEInputs; rotate-half
	// pairs (i, i + d/2), θ_i = rope_theta^(−2i/d), absolute positions from 0); "none" leaves them, and
	// rope_theta is then null.
	AttentionScale   *float64 `json:"attention_scale,omitempty"`
	AttentionKey     string   `json:"attention_key,omitempty"`
	PositionEncoding string   `json:"position_encoding"`
	RopeTheta        *float64 `json:"rope_theta"`
	RoPEInputs       []string `json:"rope_inputs"`

	// The linear readout (variants with a linear mixer): LinearMixer "mamba2" or "gated_deltanet";
	// LinearQuery and LinearKey say how its query and the shared key enter the recurrence ("l2_normalized":
	// x / sqrt(Σx² + L2NormEps), "raw" / "post_conv": as they are), LinearReadoutScale multiplies Sᵀq,
	// LinearWrite is what a token writes ("dt_times_post_conv_value": S ← exp(−Δ·exp(A_log)) S + k (Δ v)ᵀ,
	// Δ = softplus(dt_proj(x) + dt_bias); "gated_delta_rule": S ← exp(g)(I − β k kᵀ) S + β k vᵀ with g =
	// −exp(A_log)·softplus(a_proj(x) + dt_bias), β = sigmoid(b_proj(x))), and DSkipValue the value the
	// Mamba-2 D skip multiplies (o += D·v).
	LinearMixer        string   `json:"linear_mixer,omitempty"`
	LinearQuery        string   `json:"linear_query,omitempty"`
	LinearKey          string   `json:"linear_key,omitempty"`
	L2NormEps          *float64 `json:"l2_norm_eps,omitempty"`
	LinearReadoutScale *float64 `json:"linear_readout_scale,omitempty"`
	LinearWrite        string   `json:"linear_write,omitempty"`
	DSkipValue         string   `json:"d_skip_value,omitempty"`

	// The shared output path: o_proj(RMSNorm(o) · o_norm.weight ⊙ silu(g_proj(x))), the norm over each
	// head's values ("per_head") or all heads at once ("full_width"), with OutputNormEps.
	OutputNorm    string  `json:"output_norm"`
	OutputNormEps float64 `json:"output_norm_eps"`
	OutputGate    string  `json:"output_gate"` // "norm_then_silu_gate"

	Oryx oryx.Config `json:"oryx_config"`
}

// modelTypes are the model_type of each variant: every variant its own, none a transformers or fla type.
var modelTypes = map[oryx.Variant]string{
	oryx.Transformer: "oryx_transformer",
	oryx.Mamba2:      "oryx_mamba2",
	oryx.GDN:         "oryx_gdn",
	oryx.OryxTM:      "oryx_tm",
	oryx.OryxTG:      "oryx_tg",
}

// configClasses are the transformers config classes of modeling_oryx.py, one per model_type.
var configClasses = map[oryx.Variant]string{
	oryx.Transformer: "OryxTransformerConfig",
	oryx.Mamba2:      "OryxMamba2Config",
	oryx.GDN:         "OryxGDNConfig",
	oryx.OryxTM:      "OryxTMConfig",
	oryx.OryxTG:      "OryxTGConfig",
}

// l2NormEps is the epsilon of the Gated DeltaNet readout's L2 norm of its query and key (oryx/linear.go).
const l2NormEps = 1e-6

// NewConfig returns the config.json of an export of c with weights of the given torch dtype name
// ("float32", ...).
func NewConfig(c oryx.Config, torchDType string) Config {
	v := c.Variant
	f := func(x float64) *float64 { return &x }
	hc := Config{Architectures: []string{"OryxForCausalLM"},
		AutoMap: map[string]string{"AutoConfig": "modeling_oryx." + configClasses[v],
			"AutoModelForCausalLM": "modeling_oryx.OryxForCausalLM"},
		ModelType: modelTypes[v], ExportFormat: FormatVersion, Variant: string(v), TorchDType: torchDType,
		VocabSize: c.Vocab, HiddenSize: c.DModel, NumHiddenLayers: c.Layers, IntermediateSize: c.MLPHidden,
		HiddenAct: "silu", TieWordEmbeddings: c.TiedEmbeddings, RMSNormEps: c.NormEps,
		NumHeads: c.Heads, KeyHeadDim: c.KeyDim, ValueHeadDim: c.ValueDim,
		UseShortConv: c.ConvWidth > 0, ConvSize: c.ConvWidth, ConvActivation: "none", ConvInputs: []string{},
		PositionEncoding: "none", RoPEInputs: []string{},
		OutputNorm: map[string]string{"head": "per_head", "full": "full_width"}[c.OutputNorm], OutputNormEps: c.NormEps,
		OutputGate: "norm_then_silu_gate", Oryx: c}
	if c.ConvWidth > 0 {
		hc.ConvActivation, hc.ConvInputs = c.ConvActivation, []string{"key", "value"}
	}
	conv := "post_conv"
	if v.HasAttention() {
		hc.Readouts = append(hc.Readouts, "attention")
		hc.NumAttentionHeads = c.Heads
		hc.AttentionScale, hc.AttentionKey = f(layers.DefaultScale(c.KeyDim)), conv
		if c.RoPE {
			hc.PositionEncoding, hc.RopeTheta = "rope", f(c.RoPEBase)
			hc.RoPEInputs = []string{"attention_query", "attention_key"}
		}
	}
	switch v.LinearMixer() {
	case oryx.MixerMamba2:
		hc.Readouts = append(hc.Readouts, "linear")
		hc.LinearMixer, hc.LinearQuery, hc.LinearKey = "mamba2", "raw", conv
		hc.LinearReadoutScale, hc.LinearWrite, hc.DSkipValue = f(1), "dt_times_post_conv_value", "post_conv_value"
		hc.StateSize = c.KeyDim
	case oryx.MixerGDN:
		hc.Readouts = append(hc.Readouts, "linear")
		hc.LinearMixer, hc.LinearQuery, hc.LinearKey = "gated_deltanet", "l2_normalized", "post_conv_l2_normalized"
		hc.L2NormEps, hc.LinearReadoutScale = f(l2NormEps), f(layers.DefaultScale(c.KeyDim))
		hc.LinearWrite = "gated_delta_rule"
	}
	hc.DefaultMode = hc.Readouts[0]
	return hc
}

// legacyConfig is config.json as version 1 of the export wrote it (before oryx_export_format), for
// reading old exports: the same checks, against the keys that version wrote.
func legacyConfig(c oryx.Config, torchDType string) map[string]any {
	mt := map[oryx.Variant][2]string{oryx.Transformer: {"transformer", "TransformerForCausalLM"},
		oryx.Mamba2: {"mamba2", "Mamba2ForCausalLM"}, oryx.GDN: {"gated_deltanet", "GatedDeltaNetForCausalLM"},
		oryx.OryxTM: {"oryx", "OryxForCausalLM"}, oryx.OryxTG: {"oryx", "OryxForCausalLM"}}[c.Variant]
	m := map[string]any{"architectures": []string{mt[1]}, "model_type": mt[0], "vocab_size": c.Vocab,
		"hidden_size": c.DModel, "num_hidden_layers": c.Layers, "num_heads": c.Heads, "head_dim": c.KeyDim,
		"head_v_dim": c.ValueDim, "intermediate_size": c.MLPHidden, "hidden_act": "swish", "norm_eps": c.NormEps,
		"tie_word_embeddings": c.TiedEmbeddings, "use_short_conv": c.ConvWidth > 0, "conv_size": c.ConvWidth,
		"torch_dtype": torchDType, "oryx_config": c}
	if c.RoPE {
		m["rope_theta"] = c.RoPEBase
	}
	return m
}

// TorchDTypes are the torch names of the dtypes an export's tensors can have, by safetensors name.
var TorchDTypes = map[string]string{"F32": "float32", "F64": "float64", "BF16": "bfloat16", "F16": "float16"}

// ReadConfig reads an export's config.json strictly and returns its oryx config (validated) and the torch
// dtype it states. Refused, each with the key named: a file that is not one JSON object or repeats a key;
// an oryx_config with an unknown, missing or invalid field; any other key that is unknown, missing or not
// exactly the value NewConfig writes for that oryx_config (a hand-edited rope_theta, norm eps,
// use_short_conv or model_type would otherwise be half-honoured: the weights would run with the values
// of oryx_config while the file says something else).
func ReadConfig(path string) (oryx.Config, string, error) {
	data, err := safefile.ReadFile(path)
	if err != nil {
		return oryx.Config{}, "", err
	}
	errf := func(format string, args ...any) (oryx.Config, string, error) {
		return oryx.Config{}, "", fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
	if err := checkUniqueKeys(data); err != nil {
		return errf("%v", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return errf("not a JSON object: %v", err)
	}
	ocRaw, ok := raw["oryx_config"]
	if !ok {
		return errf("no \"oryx_config\" key: not an export of this project (oryx export --format safetensors " +
			"writes it); other Hugging Face models cannot be imported")
	}
	c, err := decodeOryxConfig(ocRaw)
	if err != nil {
		return errf("oryx_config: %v", err)
	}
	var dtype string
	if err := json.Unmarshal(raw["torch_dtype"], &dtype); err != nil || !slices.Contains(slices.Collect(maps.Values(TorchDTypes)), dtype) {
		return errf("torch_dtype %s: want one of float32, float64, bfloat16, float16", raw["torch_dtype"])
	}
	var want any = NewConfig(c, dtype)
	if _, v2 := raw["oryx_export_format"]; !v2 {
		want = legacyConfig(c, dtype)
	}
	wb, err := json.Marshal(want)
	if err != nil {
		return errf("%v", err)
	}
	var wantMap, gotMap map[string]any
	if err := json.Unmarshal(wb, &wantMap); err != nil {
		return errf("%v", err)
	}
	if err := json.Unmarshal(data, &gotMap); err != nil {
		return errf("%v", err)
	}
	if problems := diffJSON("", gotMap, wantMap); len(problems) > 0 {
		return errf("%s (the keys must be exactly what `oryx export` writes for its oryx_config; "+
			"edit oryx_config and re-export instead)", strings.Join(problems, "; "))
	}
	return c, dtype, nil
}

// decodeOryxConfig decodes oryx_config strictly: unknown fields (a misspelt "rop") and missing fields are
// errors (except the omitempty ones, which the export leaves out at their zero value), and the config must
// validate.
func decodeOryxConfig(raw json.RawMessage) (oryx.Config, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var c oryx.Config
	if err := dec.Decode(&c); err != nil {
		return oryx.Config{}, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return oryx.Config{}, err
	}
	t := reflect.TypeFor[oryx.Config]()
	var missing []string
	for i := range t.NumField() {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if strings.Contains(opts, "omitempty") {
			continue // written only when set (Export marshals oryx.Config), absent means its zero value
		}
		if _, ok := fields[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return oryx.Config{}, fmt.Errorf("missing field(s) %s", strings.Join(missing, ", "))
	}
	if err := c.Validate(); err != nil {
		return oryx.Config{}, err
	}
	return c, nil
}

// diffJSON compares a decoded JSON object with the expected one and lists every key that is unknown,
// missing or different, by its dotted path.
func diffJSON(prefix string, got, want map[string]any) []string {
	var out []string
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	names := slices.Sorted(maps.Keys(keys))
	for _, k := range names {
		g, inGot := got[k]
		w, inWant := want[k]
		path := prefix + k
		switch {
		case !inWant:
			out = append(out, fmt.Sprintf("unknown key %q", path))
		case !inGot:
			out = append(out, fmt.Sprintf("missing key %q (want %s)", path, jsonText(w)))
		default:
			gm, gok := g.(map[string]any)
			wm, wok := w.(map[string]any)
			if gok && wok {
				out = append(out, diffJSON(path+".", gm, wm)...)
			} else if !reflect.DeepEqual(g, w) {
				out = append(out, fmt.Sprintf("%s is %s but oryx_config implies %s", path, jsonText(g), jsonText(w)))
			}
		}
	}
	return out
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// checkUniqueKeys refuses JSON in which an object repeats a key (encoding/json keeps the last silently):
// a safetensors header naming a tensor twice, or a config.json with two values for one key. It also
// refuses anything after the first JSON value.
func checkUniqueKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := uniqueKeysValue(dec, ""); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("trailing data after the JSON object (at byte %d)", dec.InputOffset())
	}
	return nil
}

// uniqueKeysValue reads one JSON value from dec, checking every object in it.
func uniqueKeysValue(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k := kt.(string)
			if seen[k] {
				return fmt.Errorf("key %q appears twice%s", k, where(path))
			}
			seen[k] = true
			if err := uniqueKeysValue(dec, path+"."+k); err != nil {
				return err
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if err := uniqueKeysValue(dec, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token() // the closing delimiter
	return err
}

func where(path string) string {
	if path == "" {
		return ""
	}
	return " in " + strings.TrimPrefix(path, ".")
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'))
}
