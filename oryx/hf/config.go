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
	"strconv"
	"strings"

	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/safefile"
	"github.com/oryx-go/oryx/layers"
	"github.com/oryx-go/oryx/oryx"
)

// FormatVersion is the export layout this package writes, stated in config.json as "oryx_export_format".
// Version 1 (no such key) had only the usual transformers/fla keys; version 2 added the keys that state
// every semantic choice of the architecture and the PyTorch reference modeling_oryx.py; version 3 states
// the attention key as configured (version 2 wrote "post_conv" whatever attention_key_norm and
// attention_key_source said), the RoPE pairing and the two rules of the multi-mixer block (memory_writes,
// mode_scope), and names a model class per variant (transformers pairs one config class with one model
// class). Import reads all three.
const FormatVersion = 3

// Config is the Hugging Face-style config.json of an export. Keys that exist in transformers keep their
// transformers meaning (vocab_size, hidden_size, num_hidden_layers, intermediate_size, hidden_act,
// tie_word_embeddings, rms_norm_eps, num_attention_heads, rope_theta, torch_dtype, auto_map, and for the
// Mamba-2 mixer state_size = the key size per head, as in transformers' Mamba2Config); fla's use_short_conv
// and conv_size likewise. Everything transformers has no key for gets a name of its own, so that the file
// states every semantic choice a reimplementation needs (the reference is modeling_oryx.py, written
// beside it). oryx_config is the exact oryx.Config, which Import reads back; Import refuses a file whose
// other keys are not exactly what NewConfig writes for it.
type Config struct {
	Architectures []string          `json:"architectures"` // the variant's class of modeling_oryx.py: OryxTGForCausalLM, ...
	AutoMap       map[string]string `json:"auto_map"`
	ModelType     string            `json:"model_type"` // "oryx_" + the variant: oryx_transformer, oryx_mamba2, oryx_gdn, oryx_tm, oryx_tg
	ExportFormat  int               `json:"oryx_export_format"`
	Variant       string            `json:"oryx_variant"`
	TorchDType    string            `json:"torch_dtype"` // dtype of the tensors in model.safetensors

	// The special-token ids of the export's tokenizer (TokenIDKeys), absent when the export has none: transformers
	// reads them (generate() stops at eos_token_id). They are the tokenizer's, not the architecture's, so the
	// format version does not change with them.
	BOSTokenID *int `json:"bos_token_id,omitempty"`
	EOSTokenID *int `json:"eos_token_id,omitempty"`
	PadTokenID *int `json:"pad_token_id,omitempty"`
	// TokenizerClass is "PreTrainedTokenizerFast" when the export has tokenizer.json (transformers' pipeline()
	// loads a tokenizer for a model of its own type only when its config names the class), else absent.
	TokenizerClass string `json:"tokenizer_class,omitempty"`

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

	// The rules of the block, the same for every variant: every token writes its key and value to every
	// memory the variant has (the KV cache and the linear state), whatever its mode ("all_memories"); a
	// token's mode is one per token, the same in every layer ("per_token_all_layers").
	MemoryWrites string `json:"memory_writes"`
	ModeScope    string `json:"mode_scope"`

	// Attention (variants with attention): softmax(AttentionScale · q·k) over the causal prefix, with
	// AttentionKey the key it reads and caches: "post_conv" (the shared key after the conv and its
	// activation, as the linear mixer reads it), "projection" (k_proj(x), before the conv; oryx_config's
	// attention_key_source), each with "_l2_normalized" (x / sqrt(Σx² + L2NormEps) per head;
	// attention_key_norm "l2"). PositionEncoding "rope" rotates the attention query and that key only
	// (RoPEInputs) with RoPEPairing "rotate_half": pairs (i, i + d/2), θ_i = rope_theta^(−2i/d), absolute
	// positions from 0; "none" leaves them, and rope_theta and rope_pairing are then null.
	AttentionScale   *float64 `json:"attention_scale,omitempty"`
	AttentionKey     string   `json:"attention_key,omitempty"`
	PositionEncoding string   `json:"position_encoding"`
	RopeTheta        *float64 `json:"rope_theta"`
	RoPEPairing      *string  `json:"rope_pairing"`
	RoPEInputs       []string `json:"rope_inputs"`

	// The linear readout (variants with a linear mixer): LinearMixer "mamba2" or "gated_deltanet";
	// LinearQuery and LinearKey say how its query and the shared key enter the recurrence ("l2_normalized":
	// x / sqrt(Σx² + L2NormEps), "raw" / "post_conv": as they are; L2NormEps is written wherever an L2 norm
	// is, here or in AttentionKey), LinearReadoutScale multiplies Sᵀq,
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

// classPrefixes name the transformers classes of modeling_oryx.py, one config class and one model class per
// model_type ("Oryx" + prefix + "Config", "…ForCausalLM"): transformers refuses a model class whose
// config_class is not the config class auto_map names (loading by Hub repo id).
var classPrefixes = map[oryx.Variant]string{
	oryx.Transformer: "Transformer",
	oryx.Mamba2:      "Mamba2",
	oryx.GDN:         "GDN",
	oryx.OryxTM:      "TM",
	oryx.OryxTG:      "TG",
}

// attentionKeys is config.json's attention_key for oryx_config's (attention_key_source, attention_key_norm).
var attentionKeys = map[[2]string]string{
	{"", ""}:                          "post_conv",
	{"", oryx.AttentionKeyL2}:         "post_conv_l2_normalized",
	{oryx.AttentionKeyProjection, ""}: "projection",
	{oryx.AttentionKeyProjection, oryx.AttentionKeyL2}: "projection_l2_normalized",
}

// l2NormEps is the epsilon of every L2 norm of the model: the Gated DeltaNet readout's of its query and key,
// and attention's of its key with attention_key_norm "l2" (oryx/linear.go, oryx/block.go).
const l2NormEps = 1e-6

// NewConfig returns the config.json of an export of c with weights of the given torch dtype name
// ("float32", ...).
func NewConfig(c oryx.Config, torchDType string) Config {
	v := c.Variant
	f := func(x float64) *float64 { return &x }
	prefix := "Oryx" + classPrefixes[v]
	hc := Config{Architectures: []string{prefix + "ForCausalLM"},
		AutoMap: map[string]string{"AutoConfig": "modeling_oryx." + prefix + "Config",
			"AutoModelForCausalLM": "modeling_oryx." + prefix + "ForCausalLM"},
		ModelType: modelTypes[v], ExportFormat: FormatVersion, Variant: string(v), TorchDType: torchDType,
		VocabSize: c.Vocab, HiddenSize: c.DModel, NumHiddenLayers: c.Layers, IntermediateSize: c.MLPHidden,
		HiddenAct: "silu", TieWordEmbeddings: c.TiedEmbeddings, RMSNormEps: c.NormEps,
		NumHeads: c.Heads, KeyHeadDim: c.KeyDim, ValueHeadDim: c.ValueDim,
		UseShortConv: c.ConvWidth > 0, ConvSize: c.ConvWidth, ConvActivation: "none", ConvInputs: []string{},
		PositionEncoding: "none", RoPEInputs: []string{},
		OutputNorm: map[string]string{"head": "per_head", "full": "full_width"}[c.OutputNorm], OutputNormEps: c.NormEps,
		OutputGate: "norm_then_silu_gate", MemoryWrites: "all_memories", ModeScope: "per_token_all_layers", Oryx: c}
	if c.ConvWidth > 0 {
		hc.ConvActivation, hc.ConvInputs = c.ConvActivation, []string{"key", "value"}
	}
	conv := "post_conv"
	if v.HasAttention() {
		hc.Readouts = append(hc.Readouts, "attention")
		hc.NumAttentionHeads = c.Heads
		hc.AttentionScale = f(layers.DefaultScale(c.KeyDim))
		hc.AttentionKey = attentionKeys[[2]string{c.AttentionKeySource, c.AttentionKeyNorm}]
		if c.AttentionKeyNorm == oryx.AttentionKeyL2 {
			hc.L2NormEps = f(l2NormEps)
		}
		if c.RoPE {
			pairing := "rotate_half"
			hc.PositionEncoding, hc.RopeTheta, hc.RoPEPairing = "rope", f(c.RoPEBase), &pairing
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

// configVersion2 is config.json as version 2 of the export wrote it for c, for reading such exports: the
// same keys less memory_writes, mode_scope and rope_pairing, one model class for every variant, and
// attention_key "post_conv" whatever the config (version 2 did not write attention_key_norm and
// attention_key_source into it: readConfigVersion2 refuses the exports that had them). An error only
// when hc does not marshal.
func configVersion2(hc Config) (map[string]any, error) {
	m, err := jsonMap(hc)
	if err != nil {
		return nil, err
	}
	m["oryx_export_format"] = 2.0
	m["architectures"] = []any{"OryxForCausalLM"}
	m["auto_map"].(map[string]any)["AutoModelForCausalLM"] = "modeling_oryx.OryxForCausalLM"
	for _, k := range []string{"memory_writes", "mode_scope", "rope_pairing"} {
		delete(m, k)
	}
	if _, ok := m["attention_key"]; ok {
		m["attention_key"] = "post_conv"
	}
	if hc.Oryx.Variant.LinearMixer() != oryx.MixerGDN {
		delete(m, "l2_norm_eps")
	}
	return m, nil
}

// jsonMap is v marshalled and decoded into a map (numbers as float64, as json.Unmarshal decodes a file).
func jsonMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	err = json.Unmarshal(b, &m)
	return m, err
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
//
// The special-token ids (TokenIDKeys) may each be absent or an integer id of the vocabulary.
func ReadConfig(path string) (oryx.Config, string, error) {
	c, dtype, _, err := readConfig(path)
	return c, dtype, err
}

// readConfig is ReadConfig, with the special-token ids the file has (TokenIDKeys) by key.
func readConfig(path string) (oryx.Config, string, map[string]int, error) {
	data, err := safefile.ReadFile(path)
	if err != nil {
		return oryx.Config{}, "", nil, err
	}
	errf := func(format string, args ...any) (oryx.Config, string, map[string]int, error) {
		return oryx.Config{}, "", nil, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
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
	if err := checkIntegers(raw); err != nil {
		return errf("%v", err)
	}
	var dtype string
	if err := json.Unmarshal(raw["torch_dtype"], &dtype); err != nil || !slices.Contains(slices.Collect(maps.Values(TorchDTypes)), dtype) {
		return errf("torch_dtype %s: want one of float32, float64, bfloat16, float16", raw["torch_dtype"])
	}
	var gotMap map[string]any
	if err := json.Unmarshal(data, &gotMap); err != nil {
		return errf("%v", err)
	}
	for _, k := range TransformersKeys {
		delete(gotMap, k)
	}
	wantMap, err := expectedConfig(c, dtype, gotMap)
	if err != nil {
		return errf("%v", err)
	}
	ids, err := tokenIDs(gotMap, c.Vocab)
	if err != nil {
		return errf("%v", err)
	}
	for k, id := range ids {
		wantMap[k] = float64(id)
	}
	if tc, ok := gotMap["tokenizer_class"]; ok {
		if tc != tokenizerClass {
			return errf("tokenizer_class is %s: want %q (the class of the export's tokenizer.json) or no such key", jsonText(tc), tokenizerClass)
		}
		wantMap["tokenizer_class"] = tc
	}
	if problems := diffJSON("", gotMap, wantMap); len(problems) > 0 {
		return errf("%s (the keys must be exactly what `oryx export` writes for its oryx_config; "+
			"edit oryx_config and re-export instead)", strings.Join(problems, "; "))
	}
	return c, dtype, ids, nil
}

// checkIntegers refuses a key of config.json that counts something (vocab_size, hidden_size, conv_size, ...,
// oryx_export_format) written as a number with a fraction or an exponent: 320.0 equals the 320 oryx_config
// implies as a number, but a reader that takes the file's value as it is (modeling_oryx.py: an embedding
// of 320.0 rows) fails on it. oryx_config's own integers are refused by its decoding.
func checkIntegers(raw map[string]json.RawMessage) error {
	for _, k := range integerKeys(true) {
		v := strings.TrimSpace(string(raw[k]))
		if v != "" && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') && strings.ContainsAny(v, ".eE") {
			return fmt.Errorf("%s is %s: want an integer", k, v)
		}
	}
	return nil
}

// integerKeys are the keys of config.json whose values are integers, sorted: Config's integer fields (formats
// 2 and 3; modeling_oryx.py's CONFIG_INT_KEYS), and with legacy those of format 1 (legacyConfig's).
func integerKeys(legacy bool) []string {
	keys := map[string]bool{}
	isInt := func(t reflect.Type) bool {
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			return true
		}
		return false
	}
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		if isInt(t.Field(i).Type) {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			keys[name] = true
		}
	}
	for k, v := range legacyConfig(oryx.Config{Variant: oryx.Transformer, RoPE: true}, "") {
		if legacy && v != nil && isInt(reflect.TypeOf(v)) {
			keys[k] = true
		}
	}
	return slices.Sorted(maps.Keys(keys))
}

// TransformersKeys are the keys transformers adds to a config.json it writes (save_pretrained): the folder or
// repo id it was loaded from and its version. They say nothing about the model; ReadConfig ignores them, and
// them only (modeling_oryx.py does the same).
var TransformersKeys = []string{"_name_or_path", "transformers_version"}

// expectedConfig is the config.json `oryx export` writes for c with weights of dtype, in the format got
// states (oryx_export_format: absent 1, 2 or FormatVersion), as a decoded JSON object. A format-2 file of a
// config whose attention reads another key than the post-conv one is refused: that format wrote "post_conv"
// for every model, so the modeling_oryx.py beside it computes another model.
func expectedConfig(c oryx.Config, dtype string, got map[string]any) (map[string]any, error) {
	hc := NewConfig(c, dtype)
	format, ok := got["oryx_export_format"]
	switch {
	case !ok:
		return jsonMap(legacyConfig(c, dtype))
	case format == 2.0:
		if hc.AttentionKey != "post_conv" {
			want, err := jsonMap(hc)
			if err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("oryx_export_format 2 states attention_key \"post_conv\", but oryx_config reads "+
				"attention through %q (attention_key_source %q, attention_key_norm %q): format 2 wrote "+
				"\"post_conv\" for every model, and its modeling_oryx.py computes another model. Export the "+
				"checkpoint again (`oryx export` writes format %d), or bring the file to format %d: %s",
				hc.AttentionKey, c.AttentionKeySource, c.AttentionKeyNorm, FormatVersion, FormatVersion,
				strings.Join(diffJSON("", got, want), "; "))
		}
		return configVersion2(hc)
	case format == float64(FormatVersion):
		return jsonMap(hc)
	}
	return nil, fmt.Errorf("oryx_export_format %s: this version reads 2 and %d (and exports without the key, "+
		"format 1)", jsonText(format), FormatVersion)
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
// refuses anything after the first JSON value, and JSON nested deeper than encoding/json reads it
// (maxJSONDepth).
func checkUniqueKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := uniqueKeysValue(dec, nil); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("trailing data after the JSON object (at byte %d)", dec.InputOffset())
	}
	return nil
}

// maxJSONDepth is encoding/json's nesting limit: deeper JSON is no export's, and reading it token by token
// (which has no limit of its own) would recurse as deep as the file goes.
const maxJSONDepth = 10000

// uniqueKeysValue reads one JSON value from dec, checking every object in it; path holds the keys and
// indices of the value (spelt out only in an error: building it at every level took memory quadratic in
// the depth, and a 200 KB config.json of nested arrays took 20 GB).
func uniqueKeysValue(dec *json.Decoder, path []string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if len(path) >= maxJSONDepth {
		return fmt.Errorf("JSON nested more than %d deep (at byte %d)", maxJSONDepth, dec.InputOffset())
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
			if err := uniqueKeysValue(dec, append(path, "."+k)); err != nil {
				return err
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if err := uniqueKeysValue(dec, append(path, "["+strconv.Itoa(i)+"]")); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token() // the closing delimiter
	return err
}

func where(path []string) string {
	if len(path) == 0 {
		return ""
	}
	return " in " + strings.TrimPrefix(strings.Join(path, ""), ".")
}

// writeJSON writes v as indented JSON with a final newline, "<" and ">" as they are (a special token's text).
func writeJSON(path string, v any) error {
	data, err := encodeJSONNoEscape(v)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data)
}
