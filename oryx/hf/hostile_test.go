package hf

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/require"
)

// The import must accept only what it can run, exactly. Each case below is a hostile edit of a real export
// that used to import silently (and then run with other values than the file states) or to crash later.

// exportFixture writes a tiny export of variant v and returns its directory, its config.json as a map and
// its tensors.
func exportFixture(t *testing.T, v oryx.Variant) (dir string, cfg map[string]any, ts []Tensor) {
	t.Helper()
	c, err := oryx.Preset("tiny", v)
	require.NoError(t, err)
	root := t.TempDir()
	ckpt, dir := filepath.Join(root, "ckpt"), filepath.Join(root, "export")
	require.NoError(t, oryx.InitCheckpoint(ckpt, c, 11))
	require.NoError(t, Export(ckpt, dir))
	data, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &cfg))
	ts, _, err = ReadSafetensors(filepath.Join(dir, WeightsFile))
	require.NoError(t, err)
	return dir, cfg, ts
}

// edited writes a copy of an export with config.json replaced by cfg (raw JSON when cfg is a string) and
// the tensors ts.
func edited(t *testing.T, cfg any, ts []Tensor) string {
	t.Helper()
	dir := t.TempDir()
	var data []byte
	if s, ok := cfg.(string); ok {
		data = []byte(s)
	} else {
		var err error
		data, err = json.MarshalIndent(cfg, "", "  ")
		require.NoError(t, err)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, ConfigFile), data, 0o644))
	require.NoError(t, WriteSafetensors(filepath.Join(dir, WeightsFile), ts, map[string]string{"format": "pt"}))
	return dir
}

// cloneMap deep-copies a decoded JSON object.
func cloneMap(t *testing.T, m map[string]any) map[string]any {
	b, err := json.Marshal(m)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// configEdit is a hand edit of an Oryx-TG export's config.json that `oryx import` and modeling_oryx.py must
// both refuse, with an error that contains want (Go) and key (both).
type configEdit struct {
	name      string
	edit      func(m map[string]any)
	want, key string
}

// configEdits are the hostile edits of config.json (TestImportRefusesConfigsItCannotRunExactly,
// TestModelingRefusesWhatImportRefuses): each used to import, or to run in PyTorch, silently computing
// another model than the file states.
func configEdits() []configEdit {
	oc := func(m map[string]any) map[string]any { return m["oryx_config"].(map[string]any) }
	edits := []configEdit{
		// A misspelt field of oryx_config used to decode as the default (RoPE off) and generate other text.
		{"misspelt rop", func(m map[string]any) {
			oc(m)["rop"] = oc(m)["rope"]
			delete(oc(m), "rope")
		}, `unknown field "rop"`, "rop"},
		{"missing oryx_config field", func(m map[string]any) { delete(oc(m), "norm_eps") }, "missing field(s) norm_eps", "norm_eps"},
		{"oryx_config value it does not implement", func(m map[string]any) { oc(m)["output_norm"] = "group" }, "output_norm", "output_norm"},
		{"rope_theta disagrees", func(m map[string]any) { m["rope_theta"] = 500000.0 },
			"rope_theta is 500000 but oryx_config implies 10000", "rope_theta"},
		{"rope_theta dropped", func(m map[string]any) { delete(m, "rope_theta") }, `missing key "rope_theta"`, "rope_theta"},
		{"rms_norm_eps disagrees", func(m map[string]any) { m["rms_norm_eps"] = 1e-6 }, "rms_norm_eps is 0.000001", "rms_norm_eps"},
		{"norm_eps added", func(m map[string]any) { m["norm_eps"] = 1e-6 }, `unknown key "norm_eps"`, "norm_eps"},
		{"output_norm_eps disagrees", func(m map[string]any) { m["output_norm_eps"] = 1e-6 }, "output_norm_eps", "output_norm_eps"},
		{"l2_norm_eps disagrees", func(m map[string]any) { m["l2_norm_eps"] = 1e-3 }, "l2_norm_eps is 0.001", "l2_norm_eps"},
		{"use_short_conv disagrees", func(m map[string]any) { m["use_short_conv"] = false }, "use_short_conv is false", "use_short_conv"},
		{"model_type disagrees", func(m map[string]any) { m["model_type"] = "oryx_tm" }, `model_type is "oryx_tm"`, "model_type"},
		{"variant disagrees", func(m map[string]any) { m["oryx_variant"] = "gdn" }, `oryx_variant is "gdn"`, "oryx_variant"},
		{"torch_dtype unknown", func(m map[string]any) { m["torch_dtype"] = "int8" }, `torch_dtype "int8"`, "torch_dtype"},
		{"torch_dtype disagrees with the tensors", func(m map[string]any) { m["torch_dtype"] = "bfloat16" },
			`is F32, but config.json says torch_dtype "bfloat16"`, "torch_dtype"},
		{"unknown key", func(m map[string]any) { m["sliding_window"] = 128.0 }, `unknown key "sliding_window"`, "sliding_window"},
		{"eos_token_id outside the vocabulary", func(m map[string]any) { m["eos_token_id"] = 1e6 }, "eos_token_id is 1000000: want an integer id", "eos_token_id"},
		{"pad_token_id a boolean", func(m map[string]any) { m["pad_token_id"] = true }, "pad_token_id is true: want an integer id", "pad_token_id"},
		{"tokenizer_class another", func(m map[string]any) { m["tokenizer_class"] = "LlamaTokenizer" }, `tokenizer_class is "LlamaTokenizer"`, "tokenizer_class"},
		{"semantic key changed", func(m map[string]any) { m["linear_readout_scale"] = 1.0 }, "linear_readout_scale is 1", "linear_readout_scale"},
		{"attention_scale changed", func(m map[string]any) { m["attention_scale"] = 0.125 }, "attention_scale is 0.125", "attention_scale"},
		{"conv_activation changed", func(m map[string]any) { m["conv_activation"] = "none" }, `conv_activation is "none"`, "conv_activation"},
		{"position_encoding changed", func(m map[string]any) { m["position_encoding"] = "none" }, `position_encoding is "none"`, "position_encoding"},
		{"attention_key changed", func(m map[string]any) { m["attention_key"] = "post_conv_l2_normalized" },
			`attention_key is "post_conv_l2_normalized"`, "attention_key"},
		{"rope_pairing changed", func(m map[string]any) { m["rope_pairing"] = "interleaved" }, `rope_pairing is "interleaved"`, "rope_pairing"},
		{"memory_writes changed", func(m map[string]any) { m["memory_writes"] = "own_mode_only" }, `memory_writes is "own_mode_only"`, "memory_writes"},
		{"mode_scope changed", func(m map[string]any) { m["mode_scope"] = "per_layer" }, `mode_scope is "per_layer"`, "mode_scope"},
		{"a number as a boolean", func(m map[string]any) { m["tie_word_embeddings"] = 1.0 }, "tie_word_embeddings is 1", "tie_word_embeddings"},
		{"an export format this version does not write", func(m map[string]any) { m["oryx_export_format"] = 4.0 },
			"oryx_export_format 4", "oryx_export_format"},
	}
	// A count written with a fraction ("vocab_size": 320.0) equals what oryx_config implies as a number:
	// `oryx import` took it, and modeling_oryx.py built an embedding of 320.0 rows (TypeError).
	for _, k := range []string{"vocab_size", "hidden_size", "num_hidden_layers", "intermediate_size", "num_heads",
		"num_attention_heads", "key_head_dim", "value_head_dim", "conv_size", "oryx_export_format"} {
		edits = append(edits, configEdit{k + " with a fraction", func(m map[string]any) {
			m[k] = json.Number(strconv.FormatFloat(m[k].(float64), 'f', 1, 64)) // written as it is: 320.0
		}, ".0: want an integer", k})
	}
	edits = append(edits, configEdit{"vocab_size with an exponent", func(m map[string]any) {
		m["vocab_size"] = json.Number(strconv.FormatFloat(m["vocab_size"].(float64), 'e', -1, 64)) // 3.2e+02
	}, "e+0", "vocab_size"})
	return edits
}

func TestImportRefusesConfigsItCannotRunExactly(t *testing.T) {
	_, cfg, ts := exportFixture(t, oryx.OryxTG)
	cases := configEdits()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := cloneMap(t, cfg)
			c.edit(m)
			err := importErr(t, edited(t, m, ts), filepath.Join(t.TempDir(), "ckpt"))
			require.ErrorContains(t, err, c.want)
			require.ErrorContains(t, err, c.key)
			require.ErrorContains(t, err, ConfigFile)
		})
	}
	// The same key twice: encoding/json would keep the second silently.
	raw, err := json.MarshalIndent(cfg, "", "  ")
	require.NoError(t, err)
	twice := strings.Replace(string(raw), `"rope_theta": 10000,`, `"rope_theta": 10000, "rope_theta": 500000,`, 1)
	require.NotEqual(t, string(raw), twice)
	require.ErrorContains(t, importErr(t, edited(t, twice, ts), filepath.Join(t.TempDir(), "ckpt")), `key "rope_theta" appears twice`)
	// Unedited, it imports.
	require.NoError(t, importErr(t, edited(t, cfg, ts), filepath.Join(t.TempDir(), "ckpt")))
}

// TestImportReadsVersion1Exports: exports written before oryx_export_format (the usual keys only) still
// import, with the same strictness against the keys that version wrote (norm_eps, rope_theta, ...).
func TestImportReadsVersion1Exports(t *testing.T) {
	_, cfg, ts := exportFixture(t, oryx.OryxTM)
	c, err := decodeOryxConfig(mustJSON(t, cfg["oryx_config"]))
	require.NoError(t, err)
	var legacy map[string]any
	require.NoError(t, json.Unmarshal(mustJSON(t, legacyConfig(c, "float32")), &legacy))
	require.NoError(t, importErr(t, edited(t, legacy, ts), filepath.Join(t.TempDir(), "ckpt")))
	for key, val := range map[string]any{"norm_eps": 1e-6, "rope_theta": 500000.0, "use_short_conv": false,
		"model_type": "gated_deltanet", "torch_dtype": "float16", "head_dim": 32.0} {
		m := cloneMap(t, legacy)
		m[key] = val
		err := importErr(t, edited(t, m, ts), filepath.Join(t.TempDir(), "ckpt"))
		require.Error(t, err, key)
		require.Contains(t, err.Error(), key)
	}
}

// TestImportReadsVersion2Exports: format-2 exports (before the attention key, the RoPE pairing and the
// block's rules were stated, with one model class for every variant) still import, with the same strictness;
// one of a config whose attention reads another key than the post-conv one (format 2 wrote "post_conv" for
// it, and its modeling_oryx.py computed another model) is refused, naming the field and how to fix it.
func TestImportReadsVersion2Exports(t *testing.T) {
	_, cfg, ts := exportFixture(t, oryx.OryxTG)
	c, err := decodeOryxConfig(mustJSON(t, cfg["oryx_config"]))
	require.NoError(t, err)
	v2, err := configVersion2(NewConfig(c, "float32"))
	require.NoError(t, err)
	require.Equal(t, 2.0, v2["oryx_export_format"])
	require.Equal(t, "post_conv", v2["attention_key"])
	require.NotContains(t, v2, "rope_pairing")
	require.NoError(t, importErr(t, edited(t, v2, ts), filepath.Join(t.TempDir(), "ckpt")))
	for key, val := range map[string]any{"rms_norm_eps": 1e-6, "rope_theta": 500000.0, "rope_pairing": "rotate_half"} {
		m := cloneMap(t, v2)
		m[key] = val
		err := importErr(t, edited(t, m, ts), filepath.Join(t.TempDir(), "ckpt"))
		require.Error(t, err, key)
		require.Contains(t, err.Error(), key)
	}
	l2 := cloneMap(t, v2)
	l2["oryx_config"].(map[string]any)["attention_key_norm"] = "l2"
	err = importErr(t, edited(t, l2, ts), filepath.Join(t.TempDir(), "ckpt"))
	require.ErrorContains(t, err, `oryx_export_format 2 states attention_key "post_conv", but oryx_config reads attention through "post_conv_l2_normalized"`)
	require.ErrorContains(t, err, "Export the checkpoint again")
	require.ErrorContains(t, err, `attention_key is "post_conv" but oryx_config implies "post_conv_l2_normalized"`)
	require.ErrorContains(t, err, `missing key "rope_pairing"`)
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// to16 converts F32 tensors to BF16 (truncating) or F16 (round to nearest even; the tiny model's values
// are in range).
func to16(t *testing.T, ts []Tensor, dtype string) []Tensor {
	var out []Tensor
	for _, x := range ts {
		require.Equal(t, "F32", x.DType)
		n := len(x.Data) / 4
		data := make([]byte, 2*n)
		for i := range n {
			f := math.Float32frombits(binary.LittleEndian.Uint32(x.Data[4*i:]))
			var h uint16
			if dtype == "BF16" {
				h = uint16(math.Float32bits(f) >> 16)
			} else {
				h = float32ToFloat16(f)
			}
			binary.LittleEndian.PutUint16(data[2*i:], h)
		}
		out = append(out, Tensor{Name: x.Name, DType: dtype, Shape: x.Shape, Data: data})
	}
	return out
}

// float32ToFloat16 rounds a normal-range float32 to the nearest half (ties to even), for the test data.
func float32ToFloat16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	if exp <= 0 { // tiny values: flush to zero (none of the test weights is this small but zero)
		return sign
	}
	h := uint32(exp)<<10 | mant>>13
	rest := mant & 0x1fff
	if rest > 0x1000 || (rest == 0x1000 && h&1 == 1) {
		h++
	}
	return sign | uint16(h)
}

// TestImportConverts16BitWeights: bfloat16 and float16 exports (what Hugging Face tools convert to) import
// as float32 checkpoints holding exactly the 16-bit values; they used to import as 16-bit checkpoints on
// which generate panicked (bf16) or GoMLX failed (f16).
func TestImportConverts16BitWeights(t *testing.T) {
	_, cfg, ts := exportFixture(t, oryx.OryxTG)
	for _, c := range []struct{ dtype, torch string }{{"BF16", "bfloat16"}, {"F16", "float16"}} {
		t.Run(c.torch, func(t *testing.T) {
			m := cloneMap(t, cfg)
			m["torch_dtype"] = c.torch
			half := to16(t, ts, c.dtype)
			ckpt := filepath.Join(t.TempDir(), "ckpt")
			info, err := importInto(t, edited(t, m, half), ckpt)
			require.NoError(t, err)
			require.Equal(t, c.dtype, info.DType)
			require.Equal(t, "float32", info.ConvertedTo)
			mdl, ctx, err := oryx.LoadCheckpoint(ckpt, nil)
			require.NoError(t, err)
			require.Equal(t, dtypes.Float32, mdl.DType)
			got := paramBytes(t, ctx)
			byHF := map[string]Tensor{}
			for _, x := range half {
				byHF[x.Name] = x
			}
			for _, p := range Params(mdl.Config) {
				h, f := byHF[p.HF].Data, got[p.Scope+"/"+p.Name]
				require.Equal(t, 2*len(h), len(f), p.HF)
				for i := 0; i < len(h)/2; i++ {
					want := binary.LittleEndian.Uint16(h[2*i:])
					v := math.Float32frombits(binary.LittleEndian.Uint32(f[4*i:]))
					if c.dtype == "BF16" {
						require.Equal(t, uint32(want)<<16, math.Float32bits(v), "%s[%d]", p.HF, i)
					} else {
						require.Equal(t, want, float32ToFloat16(v), "%s[%d]", p.HF, i)
					}
				}
			}
		})
	}
	// A mix of dtypes is refused, naming the tensor.
	mixed := append([]Tensor{}, ts...)
	mixed[3] = to16(t, ts[3:4], "BF16")[0]
	require.ErrorContains(t, importErr(t, edited(t, cfg, mixed), filepath.Join(t.TempDir(), "ckpt")),
		mixed[3].Name+`" is BF16, but config.json says torch_dtype "float32"`)
}

func TestFloat16ToFloat32(t *testing.T) {
	for h, want := range map[uint16]float32{0x0000: 0, 0x3c00: 1, 0xc000: -2, 0x7bff: 65504, 0x0001: 1.0 / (1 << 24),
		0x03ff: 1023.0 / (1 << 24), 0x0400: 1.0 / (1 << 14), 0x3555: 0.333251953125} {
		require.Equal(t, want, float16ToFloat32(h), "%#04x", h)
	}
	require.True(t, math.IsInf(float64(float16ToFloat32(0x7c00)), 1))
	require.True(t, math.IsInf(float64(float16ToFloat32(0xfc00)), -1))
	require.True(t, math.IsNaN(float64(float16ToFloat32(0x7e00))))
	require.Equal(t, math.Float32bits(float32(math.Copysign(0, -1))), math.Float32bits(float16ToFloat32(0x8000)))
}

// weightsNamingTwice is a safetensors file whose header names the tensor name twice.
func weightsNamingTwice(t *testing.T, name string) []byte {
	hdr := `{"__metadata__":{"format":"pt"},"` + name + `":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"` +
		name + `":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`
	var b bytes.Buffer
	require.NoError(t, binary.Write(&b, binary.LittleEndian, uint64(len(hdr))))
	b.WriteString(hdr)
	b.Write(make([]byte, 8))
	return b.Bytes()
}

// TestReadSafetensorsRefusesDuplicateNames: a header naming one tensor twice (JSON keeps the last) is
// refused; it used to import whichever entry came last.
func TestReadSafetensorsRefusesDuplicateNames(t *testing.T) {
	dir, _, ts := exportFixture(t, oryx.GDN)
	name := ts[0].Name
	require.NoError(t, os.WriteFile(filepath.Join(dir, WeightsFile), weightsNamingTwice(t, name), 0o644))
	_, _, err := ReadSafetensors(filepath.Join(dir, WeightsFile))
	require.ErrorContains(t, err, `key "`+name+`" appears twice`)
	require.ErrorContains(t, err, "tensor names must be unique")
	require.ErrorContains(t, importErr(t, dir, filepath.Join(t.TempDir(), "ckpt")), "appears twice")
}

// TestImportRefusesOversizedWeightsFile runs the case of a weights file far larger than its config's model
// (a 9 GB model.safetensors beside a tiny config was read whole first): refused from its size alone, before
// any read (the file here is sparse: nothing is written to disk).
func TestImportRefusesOversizedWeightsFile(t *testing.T) {
	cfg, err := oryx.Preset("tiny", oryx.GDN)
	require.NoError(t, err)
	ckpt, exp := filepath.Join(t.TempDir(), "ckpt"), filepath.Join(t.TempDir(), "exp")
	require.NoError(t, oryx.InitCheckpoint(ckpt, cfg, 1))
	require.NoError(t, Export(ckpt, exp))
	require.NoError(t, os.Truncate(filepath.Join(exp, WeightsFile), 9<<30))
	_, err = importInto(t, exp, filepath.Join(t.TempDir(), "back"))
	require.ErrorContains(t, err, "more than the")
	require.ErrorContains(t, err, "not this model's weights")
}

// hostileExport is a hostile edit of an export (hostile round 5) that `oryx import` refuses with want and
// modeling_oryx.py with a message containing key.
type hostileExport struct{ name, dir, want, key string }

// hostileExports are exports whose files are not files, whose JSON nests without end, whose config.json
// states a model far larger than its weights, or whose weights are not numbers: each used to hang, exhaust
// the memory or import silently in one of the two readers (TestImportRefusesHostileExports,
// TestModelingRefusesWhatImportRefuses).
func hostileExports(t *testing.T, cfg map[string]any, ts []Tensor) []hostileExport {
	var out []hostileExport
	add := func(name, dir, want, key string) { out = append(out, hostileExport{name, dir, want, key}) }
	// A 40 KB config.json of nested arrays: the duplicate-key check built each level's path anew (20 GB at
	// 100,000 levels, the OOM killer); Python's parser raised RecursionError, not a refusal.
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	add("config.json nested 20,000 deep", edited(t, deep, ts), "nested more than 10000 deep", ConfigFile)
	replaced := func(file string, make func(path string) error) string {
		d := edited(t, cfg, ts)
		require.NoError(t, os.Remove(filepath.Join(d, file)))
		require.NoError(t, make(filepath.Join(d, file)))
		return d
	}
	fifo := func(path string) error { return syscall.Mkfifo(path, 0o644) }
	add("config.json a FIFO", replaced(ConfigFile, fifo), "not a regular file", "not a regular file")
	add("model.safetensors a FIFO", replaced(WeightsFile, fifo), "not a regular file", "not a regular file") // Python blocked forever
	add("model.safetensors a link to /dev/zero", replaced(WeightsFile, func(p string) error { return os.Symlink("/dev/zero", p) }),
		"not a regular file", "not a regular file") // Python read until MemoryError
	add("model.safetensors a directory", replaced(WeightsFile, func(p string) error { return os.Mkdir(p, 0o755) }),
		"not a regular file", "not a regular file")
	// Sizes beyond the supported maxima (internal/guard): Python allocated them (d_model 1e12: a 1 PB
	// RuntimeError) or built them (layers 1e8: hours).
	sized := func(field, hfKey string, v float64) string {
		m := cloneMap(t, cfg)
		m["oryx_config"].(map[string]any)[field], m[hfKey] = v, v
		return edited(t, m, ts)
	}
	add("d_model 1e12", sized("d_model", "hidden_size", 1e12), "1000000000000 is above the supported maximum 32768", "above the supported maximum")
	add("layers 1e8", sized("layers", "num_hidden_layers", 1e8), "100000000 is above the supported maximum 1024", "above the supported maximum")
	// Within the maxima, a model far larger than the file's weights: Python allocated it before reading them.
	add("a config.json of a model larger than its weights", sized("vocab", "vocab_size", 1<<22),
		`tensor "model.embeddings.weight" has shape [256 64], the config implies [4194304 64]`, "not this model's weights")
	// Weights that are not numbers: every forward NaN, generation token 0 forever.
	poisoned := func(dtype string, bits uint64) string {
		m, ws := cloneMap(t, cfg), append([]Tensor{}, ts...)
		if dtype != "F32" {
			m["torch_dtype"] = TorchDTypes[dtype]
			ws = to16(t, ws, dtype)
		}
		x := ws[0]
		x.Data = append([]byte{}, x.Data...)
		switch dtype {
		case "F32":
			binary.LittleEndian.PutUint32(x.Data[4:], uint32(bits))
		default:
			binary.LittleEndian.PutUint16(x.Data[2:], uint16(bits))
		}
		ws[0] = x
		return edited(t, m, ws)
	}
	add("a NaN weight", poisoned("F32", 0x7fc00000), `"model.embeddings.weight": element 1 is NaN`, "finite numbers")
	add("an infinite weight", poisoned("F32", 0xff800000), `"model.embeddings.weight": element 1 is -Inf`, "finite numbers")
	add("a NaN bfloat16 weight", poisoned("BF16", 0x7fc0), `"model.embeddings.weight": element 1 is NaN`, "finite numbers")
	return out
}

// TestImportRefusesHostileExports: `oryx import` refuses every hostileExports case with its message and
// writes no checkpoint.
func TestImportRefusesHostileExports(t *testing.T) {
	_, cfg, ts := exportFixture(t, oryx.OryxTG)
	for _, h := range hostileExports(t, cfg, ts) {
		ckpt := filepath.Join(t.TempDir(), "ckpt")
		require.ErrorContains(t, importErr(t, h.dir, ckpt), h.want, h.name)
		require.NoDirExists(t, ckpt, h.name)
	}
}

// TestUniqueKeysCheckMemoryIsLinear: the duplicate-key check of deeply nested JSON allocates in proportion
// to the file, not to the square of its depth (it built every level's path: 700 MB for a 40 KB file nested
// 20,000 deep, 20 GB for 200 KB), and refuses beyond encoding/json's depth.
func TestUniqueKeysCheckMemoryIsLinear(t *testing.T) {
	for _, doc := range []string{strings.Repeat("[", 9000) + strings.Repeat("]", 9000),
		strings.Repeat(`{"a":`, 9000) + "1" + strings.Repeat("}", 9000)} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		require.NoError(t, checkUniqueKeys([]byte(doc)))
		runtime.ReadMemStats(&after)
		require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(32<<20), "%.20s…", doc)
	}
	require.ErrorContains(t, checkUniqueKeys([]byte(`{"a":`+strings.Repeat("[", 10001)+strings.Repeat("]", 10001)+"}")), "nested more than 10000 deep")
	require.ErrorContains(t, checkUniqueKeys([]byte(`{"a":[{"b":1,"b":2}]}`)), `key "b" appears twice in a[0]`)
}
