package oryx

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/internal/human"
	"github.com/oryx-go/oryx/internal/safefile"
)

// Variant names the five models built from one block.
type Variant string

const (
	Transformer Variant = "transformer" // attention only
	Mamba2      Variant = "mamba2"      // Mamba-2 (SSD) recurrence only
	GDN         Variant = "gdn"         // Gated DeltaNet only
	OryxTM      Variant = "oryx-tm"     // attention + Mamba-2 on shared K/V ("Oryx-Mamba-2")
	OryxTG      Variant = "oryx-tg"     // attention + Gated DeltaNet on shared K/V ("Oryx-GDN")
)

// Variants lists every variant, in the order tables and recipes use.
var Variants = []Variant{Transformer, Mamba2, GDN, OryxTM, OryxTG}

// LinearMixer names the recurrence a variant uses ("" for the Transformer).
type LinearMixer string

const (
	NoLinear    LinearMixer = ""
	MixerMamba2 LinearMixer = "mamba2"
	MixerGDN    LinearMixer = "gdn"
)

// HasAttention tells whether the variant has the attention readout (W_QA).
func (v Variant) HasAttention() bool { return v == Transformer || v == OryxTM || v == OryxTG }

// LinearMixer returns the variant's recurrence.
func (v Variant) LinearMixer() LinearMixer {
	switch v {
	case Mamba2, OryxTM:
		return MixerMamba2
	case GDN, OryxTG:
		return MixerGDN
	}
	return NoLinear
}

// IsMultiMixer tells whether the variant has both readouts (an Oryx model).
func (v Variant) IsMultiMixer() bool { return v.HasAttention() && v.LinearMixer() != NoLinear }

// Config is the architecture of a model. It is saved as JSON with every checkpoint. Fields marked [choice]
// are this project's reconstruction where the paper is silent (docs/model.md §3–4).
type Config struct {
	Variant     Variant     `json:"variant"`
	LinearMixer LinearMixer `json:"linear_mixer"` // must agree with Variant (mamba2 | gdn | "" for transformer)

	Vocab     int `json:"vocab"`      // vocabulary size (padded to a multiple of 64 for the presets)
	DModel    int `json:"d_model"`    // residual width d
	Layers    int `json:"layers"`     // number of blocks
	Heads     int `json:"heads"`      // H: the same heads for both mixers [choice]
	KeyDim    int `json:"key_dim"`    // d_k per head (queries, keys, linear state rows)
	ValueDim  int `json:"value_dim"`  // d_v per head (values, outputs, linear state columns)
	MLPHidden int `json:"mlp_hidden"` // SwiGLU hidden width F

	ConvWidth      int    `json:"conv_width"`      // causal depthwise conv on the shared K and V (0 = none)
	ConvActivation string `json:"conv_activation"` // "silu" (GDN variants) or "none" (Mamba-2 variants, Transformer)

	RoPE     bool    `json:"rope"`      // rotary positions on the attention path only
	RoPEBase float64 `json:"rope_base"` // e.g. 10000

	TiedEmbeddings bool    `json:"tied_embeddings"` // LM head = embeddingᵀ
	NormEps        float64 `json:"norm_eps"`        // RMSNorm epsilon
	OutputNorm     string  `json:"output_norm"`     // gated RMSNorm over each "head" or the "full" width [unknown → flag]

	Chunk      int    `json:"chunk"`       // chunk length of the chunked linear mixers
	InterChunk string `json:"inter_chunk"` // "auto" (layers' per-backend choice), "loop" or "scan" (log depth, GPUs)

	// What attention reads as its key (and caches), for variants with attention. Both default ("") to the
	// shared key k = act(conv_K(x W_K)) as is [choice: docs/model.md §3.4]; they are
	// options so that the recall gap between Oryx-TG and the Transformer can be attributed (recipes/study,
	// attribution). omitempty: a config that leaves them at their default has the JSON (and ConfigHash) it
	// had before they existed.
	//
	// AttentionKeyNorm "l2" makes attention read k/‖k‖ per head, the key GDN's recurrence reads (both
	// memories then hold the same keys up to GDN's own normalisation).
	AttentionKeyNorm string `json:"attention_key_norm,omitempty"` // "" (the key as is) | "l2"
	// AttentionKeySource "projection" makes attention read the projection x W_K before the causal conv and
	// its activation (the linear mixer still reads the post-conv key).
	AttentionKeySource string `json:"attention_key_source,omitempty"` // "" (post-conv shared key) | "projection"
}

// Values of Config.AttentionKeyNorm and Config.AttentionKeySource other than the default "".
const (
	AttentionKeyL2         = "l2"
	AttentionKeyProjection = "projection"
)

// Validate checks the config and returns every problem found, each naming the field.
func (c *Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("config field %s: %s", field, fmt.Sprintf(format, args...)))
	}
	known := false
	for _, v := range Variants {
		known = known || c.Variant == v
	}
	if !known {
		bad("variant", "unknown variant %q: want one of %v", c.Variant, Variants)
	} else if c.LinearMixer != c.Variant.LinearMixer() {
		bad("linear_mixer", "%q does not match variant %q (which uses %q)", c.LinearMixer, c.Variant, c.Variant.LinearMixer())
	}
	// Sizes are bounded above too (internal/guard): a mistyped d_model 1e9 must be an error here, not a Go
	// "out of memory" crash when the weights are allocated.
	sizes := map[string]int{"vocab": c.Vocab, "d_model": c.DModel, "layers": c.Layers, "heads": c.Heads,
		"key_dim": c.KeyDim, "value_dim": c.ValueDim, "mlp_hidden": c.MLPHidden, "chunk": c.Chunk}
	limits := map[string]int{"vocab": guard.MaxVocab, "d_model": guard.MaxDModel, "layers": guard.MaxLayers,
		"heads": guard.MaxHeads, "key_dim": guard.MaxHeadDim, "value_dim": guard.MaxHeadDim,
		"mlp_hidden": guard.MaxMLPHidden, "chunk": guard.MaxChunk}
	sane := true
	for _, f := range []string{"vocab", "d_model", "layers", "heads", "key_dim", "value_dim", "mlp_hidden", "chunk"} {
		if sizes[f] <= 0 {
			bad(f, "must be > 0, got %d", sizes[f])
		} else if sizes[f] > limits[f] {
			bad(f, "%d is above the supported maximum %d", sizes[f], limits[f])
			sane = false
		}
	}
	if c.ConvWidth < 0 || c.ConvWidth > guard.MaxConvWidth {
		bad("conv_width", "must be in [0, %d], got %d", guard.MaxConvWidth, c.ConvWidth)
	}
	// Within the bounds the count cannot overflow, but the product of several large sizes can still exceed
	// anything a machine holds.
	if sane && len(errs) == 0 {
		if n := CountParams(*c).Total; n > guard.MaxParams {
			errs = append(errs, fmt.Errorf("config: %s parameters is above the supported maximum %s (vocab, d_model, "+
				"layers, heads, key_dim, value_dim, mlp_hidden)", human.Int(n), human.Int(guard.MaxParams)))
		}
	}
	if c.ConvActivation != "silu" && c.ConvActivation != "none" {
		bad("conv_activation", "must be \"silu\" or \"none\", got %q", c.ConvActivation)
	}
	if c.RoPE {
		if c.KeyDim%2 != 0 {
			bad("key_dim", "must be even with rope, got %d", c.KeyDim)
		}
		if !(c.RoPEBase > 0) {
			bad("rope_base", "must be > 0 with rope, got %g", c.RoPEBase)
		}
	}
	if !(c.NormEps > 0) {
		bad("norm_eps", "must be > 0, got %g", c.NormEps)
	}
	if c.OutputNorm != "head" && c.OutputNorm != "full" {
		bad("output_norm", "must be \"head\" or \"full\", got %q", c.OutputNorm)
	}
	if c.InterChunk != "auto" && c.InterChunk != "loop" && c.InterChunk != "scan" {
		bad("inter_chunk", "must be \"auto\", \"loop\" or \"scan\", got %q", c.InterChunk)
	}
	if c.AttentionKeyNorm != "" && c.AttentionKeyNorm != AttentionKeyL2 {
		bad("attention_key_norm", "must be \"\" (the shared key as is) or %q, got %q", AttentionKeyL2, c.AttentionKeyNorm)
	}
	if c.AttentionKeySource != "" && c.AttentionKeySource != AttentionKeyProjection {
		bad("attention_key_source", "must be \"\" (the post-conv shared key) or %q, got %q", AttentionKeyProjection, c.AttentionKeySource)
	}
	if (c.AttentionKeyNorm != "" || c.AttentionKeySource != "") && known && !c.Variant.HasAttention() {
		bad("attention_key_norm", "attention_key_norm and attention_key_source apply to variants with attention, not %q", c.Variant)
	}
	return errors.Join(errs...)
}

// WithDefaults fills unset optional fields with the documented defaults [choice]: linear mixer from the
// variant, conv width 4 with SiLU for GDN variants and none otherwise, RoPE base 10000, norm eps 1e-5,
// per-head output norm, chunk 64, loop inter-chunk.
func (c Config) WithDefaults() Config {
	if c.LinearMixer == "" {
		c.LinearMixer = c.Variant.LinearMixer()
	}
	if c.ConvActivation == "" {
		c.ConvActivation = "none"
		if c.Variant.LinearMixer() == MixerGDN {
			c.ConvActivation = "silu"
		}
	}
	if c.RoPEBase == 0 {
		c.RoPEBase = 10000
	}
	if c.NormEps == 0 {
		c.NormEps = 1e-5
	}
	if c.OutputNorm == "" {
		c.OutputNorm = "head"
	}
	if c.Chunk == 0 {
		c.Chunk = 64
	}
	if c.InterChunk == "" {
		c.InterChunk = "auto"
	}
	return c
}

// Diff lists the JSON names of the fields where c and other differ, as "name: this vs other". inter_chunk is
// not compared: it chooses how the chunked mixers compute, not what (every method gives the same function, tested),
// so a run trained with "loop" loads and resumes under the "auto" of newer presets.
func (c Config) Diff(other Config) []string {
	var out []string
	a, b := reflect.ValueOf(c), reflect.ValueOf(other)
	for i := range a.NumField() {
		name, _, _ := strings.Cut(a.Type().Field(i).Tag.Get("json"), ",")
		if name == "inter_chunk" {
			continue // how the chunked mixers carry their state between chunks: every method computes the same function
		}
		if !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
			out = append(out, fmt.Sprintf("%s: %v vs %v", name, a.Field(i).Interface(), b.Field(i).Interface()))
		}
	}
	return out
}

// SaveConfig writes c as indented JSON, atomically (internal/atomicfile).
func SaveConfig(c Config, path string) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'))
}

// LoadConfig reads and validates a JSON config; unknown fields are an error (a typo must not be ignored).
func LoadConfig(path string) (Config, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return Config{}, err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	// One JSON object and nothing after it: trailing data is an edit gone wrong (two configs pasted, a
	// truncated rewrite), not something to ignore.
	if tok, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("%v", tok)
		}
		return Config{}, fmt.Errorf("config %s: trailing data after the JSON object (at byte %d): %v", path,
			dec.InputOffset(), err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}
