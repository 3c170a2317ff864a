package hf

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// modelingChecks runs testdata/modeling_checks.py (mode "refusals" or "expected") on the package's
// modeling_oryx.py with req, and decodes its answer into out.
func modelingChecks(t *testing.T, python, mode string, req, out any) {
	t.Helper()
	modeling, err := filepath.Abs(ModelingFile)
	require.NoError(t, err)
	runPythonJSON(t, python, nil, req, out, "modeling_checks.py", modeling, mode)
}

// rewriteHeader writes a copy of the safetensors file src to dst with its header entries changed by edit
// (the data section unchanged): offsets made to overlap or leave the file, which WriteSafetensors cannot
// write.
func rewriteHeader(t *testing.T, src, dst string, edit func(h map[string]map[string]any)) {
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	n := binary.LittleEndian.Uint64(data[:8])
	var h map[string]map[string]any
	require.NoError(t, json.Unmarshal(data[8:8+n], &h))
	edit(h)
	hj, err := json.Marshal(h)
	require.NoError(t, err)
	hj = append(hj, bytes.Repeat([]byte(" "), (8-len(hj)%8)%8)...)
	var b bytes.Buffer
	require.NoError(t, binary.Write(&b, binary.LittleEndian, uint64(len(hj))))
	b.Write(hj)
	b.Write(data[8+n:])
	require.NoError(t, os.WriteFile(dst, b.Bytes(), 0o644))
}

// TestModelingRefusesWhatImportRefuses: modeling_oryx.py (OryxLM.from_export) refuses every hostile export
// that `oryx import` refuses — each config.json edit of configEdits (every key compared with what
// oryx_config implies, unknown keys, the variant label, values it does not implement) and weights files with
// overlapping, out-of-range or gapped tensor offsets, a tensor named twice, or tensors in another dtype than
// torch_dtype — naming the key; it used to compute another model, exit 0, on most of them. The unedited
// export loads in both. Needs python3 with torch.
func TestModelingRefusesWhatImportRefuses(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the refusals are backend-independent (the pure-Go suite runs them)")
	}
	python := torchPython(t)
	exp, cfg, ts := exportFixture(t, oryx.OryxTG)
	type refusal struct{ name, dir, want, key string }
	var cases []refusal
	for _, e := range configEdits() {
		m := cloneMap(t, cfg)
		e.edit(m)
		cases = append(cases, refusal{"config.json: " + e.name, edited(t, m, ts), e.want, e.key})
	}
	weights := filepath.Join(exp, WeightsFile)
	withHeader := func(edit func(h map[string]map[string]any)) string {
		d := edited(t, cfg, ts)
		rewriteHeader(t, weights, filepath.Join(d, WeightsFile), edit)
		return d
	}
	a, b := "model.layers.0.attn_norm.weight", "model.layers.0.mlp_norm.weight" // both [d_model] float32
	cases = append(cases,
		refusal{"overlapping tensors", withHeader(func(h map[string]map[string]any) {
			h[b]["data_offsets"] = h[a]["data_offsets"]
		}), "leave a gap or overlap", "overlap"},
		refusal{"a tensor beyond the data section", withHeader(func(h map[string]map[string]any) {
			off := h[a]["data_offsets"].([]any)
			h[a]["data_offsets"] = []any{off[0].(float64) + 1e6, off[1].(float64) + 1e6}
		}), "outside the data section", "outside the data section"},
		refusal{"a negative offset", withHeader(func(h map[string]map[string]any) {
			off := h[a]["data_offsets"].([]any)
			h[a]["data_offsets"] = []any{-4.0, off[1]}
		}), "data offsets", "data offsets"},
		refusal{"a shape that disagrees with its bytes", withHeader(func(h map[string]map[string]any) {
			h[a]["shape"] = []any{7.0}
		}), "needs 28 bytes", "needs 28 bytes"},
	)
	mixed := append([]Tensor{}, ts...)
	mixed[3] = to16(t, ts[3:4], "BF16")[0]
	cases = append(cases, refusal{"a tensor in another dtype than torch_dtype", edited(t, cfg, mixed),
		`" is BF16, but config.json says torch_dtype "float32"`, "torch_dtype"})
	twice := edited(t, cfg, ts)
	require.NoError(t, os.WriteFile(filepath.Join(twice, WeightsFile), weightsNamingTwice(t, a), 0o644))
	cases = append(cases, refusal{"a tensor named twice", twice, "appears twice", "appears twice"})
	for _, h := range hostileExports(t, cfg, ts) {
		cases = append(cases, refusal(h))
	}

	var dirs []string
	for _, c := range cases {
		err := importErr(t, c.dir, filepath.Join(t.TempDir(), "ckpt"))
		require.ErrorContains(t, err, c.want, "oryx import: %s", c.name)
		dirs = append(dirs, c.dir)
	}
	good := edited(t, cfg, ts)
	require.NoError(t, importErr(t, good, filepath.Join(t.TempDir(), "ckpt")))
	var got map[string]string
	modelingChecks(t, python, "refusals", append(dirs, good), &got)
	require.Equal(t, "ok", got[good], "the unedited export")
	for _, c := range cases {
		msg := got[c.dir]
		assert.True(t, strings.HasPrefix(msg, "ValueError: "), "%s: modeling_oryx.py gave %q", c.name, msg)
		assert.Contains(t, msg, c.key, c.name)
		t.Logf("%-56s %s", c.name, firstLine(msg, 140))
	}
}

// TestModelingExpectedConfigIsNewConfig: modeling_oryx.py's expected_config (what it compares config.json
// with) is NewConfig, key for key, for every config option and dtype. Needs python3 with torch.
func TestModelingExpectedConfigIsNewConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: backend-independent (the pure-Go suite runs it)")
	}
	python := torchPython(t)
	var req []modelingRequest
	var want []map[string]any
	for i, c := range optionConfigs(t) {
		dtype := []string{"float32", "float64", "bfloat16", "float16"}[i%4]
		req = append(req, modelingRequest{c, dtype})
		m, err := jsonMap(NewConfig(c, dtype))
		require.NoError(t, err)
		want = append(want, m)
	}
	var got []map[string]any
	modelingChecks(t, python, "expected", req, &got)
	require.Len(t, got, len(want))
	for i := range want {
		require.Empty(t, diffJSON("", got[i], want[i]), "%+v", req[i].Oryx)
	}
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// TestModelingSizesAreImports: modeling_oryx.py's param_count is oryx.CountParams for every config option,
// and the number of parameters of the model it builds; its size limits are internal/guard's, and the keys it
// wants as integers ReadConfig's. Needs python3
// with torch.
func TestModelingSizesAreImports(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: backend-independent (the pure-Go suite runs it)")
	}
	python := torchPython(t)
	var req []modelingRequest
	var want []int64
	for _, c := range optionConfigs(t) {
		req = append(req, modelingRequest{c, "float32"})
		want = append(want, oryx.CountParams(c).Total)
	}
	var got struct {
		Counts  [][2]int64       `json:"counts"`
		Limits  map[string]int64 `json:"limits"`
		IntKeys []string         `json:"int_keys"`
	}
	modelingChecks(t, python, "params", req, &got)
	require.Len(t, got.Counts, len(want))
	for i, w := range want {
		require.Equal(t, [2]int64{w, w}, got.Counts[i], "%+v", req[i].Oryx)
	}
	require.Equal(t, map[string]int64{"vocab": guard.MaxVocab, "d_model": guard.MaxDModel, "layers": guard.MaxLayers,
		"heads": guard.MaxHeads, "key_dim": guard.MaxHeadDim, "value_dim": guard.MaxHeadDim, "mlp_hidden": guard.MaxMLPHidden,
		"chunk": guard.MaxChunk, "conv_width": guard.MaxConvWidth, "params": guard.MaxParams}, got.Limits)
	require.Equal(t, integerKeys(false), got.IntKeys, "the keys both readers refuse as non-integer numbers")
}

// modelingRequest is one configuration sent to modeling_checks.py: a model's config and its torch dtype.
type modelingRequest struct {
	Oryx  oryx.Config `json:"oryx_config"`
	DType string      `json:"torch_dtype"`
}

// optionConfigs is the base configuration and the base with each configOption applied, in that order.
func optionConfigs(t *testing.T) []oryx.Config {
	var out []oryx.Config
	for _, o := range append([]configOption{{"base", "", func(*oryx.Config) {}}}, configOptions()...) {
		c := optionBase(t)
		o.edit(&c)
		out = append(out, c)
	}
	return out
}
