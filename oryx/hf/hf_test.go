package hf

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/require"
)

// configs are the tiny preset of every variant plus one with an untied head and a full-width output norm,
// so that every branch of the mapping is exported.
func configs(t *testing.T) map[string]oryx.Config {
	out := map[string]oryx.Config{}
	for _, v := range oryx.Variants {
		c, err := oryx.Preset("tiny", v)
		require.NoError(t, err)
		out[string(v)] = c
	}
	c := out[string(oryx.OryxTG)]
	c.TiedEmbeddings, c.OutputNorm = false, "full"
	out["oryx-tg-untied-full"] = c
	return out
}

// paramBytes returns every model parameter's bytes by scope/name.
func paramBytes(t *testing.T, ctx *context.Context) map[string][]byte {
	out := map[string][]byte{}
	for v := range ctx.IterVariables() {
		if !oryx.IsModelParam(v.ScopeAndName()) {
			continue
		}
		val, err := v.Value()
		require.NoError(t, err)
		require.NoError(t, val.ConstBytes(func(b []byte) { out[v.ScopeAndName()] = bytes.Clone(b) }))
	}
	return out
}

// TestRoundTripIsBitExact exports a random checkpoint of each config, imports it into a new directory and
// checks that every parameter's bytes are identical, that the export holds exactly the mapping's tensors
// with their HF shapes, and that config.json states the HF keys.
func TestRoundTripIsBitExact(t *testing.T) {
	for name, cfg := range configs(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			ckpt, exp, back := filepath.Join(dir, "ckpt"), filepath.Join(dir, "export"), filepath.Join(dir, "back")
			require.NoError(t, oryx.InitCheckpoint(ckpt, cfg, 7))
			require.NoError(t, Export(ckpt, exp))
			ts, meta, err := ReadSafetensors(filepath.Join(exp, WeightsFile))
			require.NoError(t, err)
			require.Equal(t, "pt", meta["format"])
			ps := Params(cfg)
			require.Len(t, ts, len(ps))
			byHF := map[string]Tensor{}
			for _, t := range ts {
				byHF[t.Name] = t
			}
			for _, p := range ps {
				require.Contains(t, byHF, p.HF)
				require.Equal(t, p.HFShape, byHF[p.HF].Shape, p.HF)
				require.Equal(t, "F32", byHF[p.HF].DType, p.HF)
			}
			_, tied := byHF["lm_head.weight"]
			require.Equal(t, !cfg.TiedEmbeddings, tied)

			var hc map[string]any
			data, err := os.ReadFile(filepath.Join(exp, ConfigFile))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &hc))
			require.EqualValues(t, cfg.DModel, hc["hidden_size"])
			require.EqualValues(t, cfg.Layers, hc["num_hidden_layers"])
			require.Equal(t, cfg.TiedEmbeddings, hc["tie_word_embeddings"])

			require.NoError(t, importErr(t, exp, back))
			_, ctxA, err := oryx.LoadCheckpoint(ckpt, nil)
			require.NoError(t, err)
			mB, ctxB, err := oryx.LoadCheckpoint(back, &cfg)
			require.NoError(t, err)
			require.Equal(t, cfg, mB.Config)
			a, b := paramBytes(t, ctxA), paramBytes(t, ctxB)
			require.Equal(t, len(a), len(b))
			for k, va := range a {
				require.True(t, bytes.Equal(va, b[k]), "%s differs after the round trip", k)
			}
			require.ErrorContains(t, importErr(t, exp, back), "already holds")
		})
	}
}

func TestImportErrors(t *testing.T) {
	cfg, err := oryx.Preset("tiny", oryx.GDN)
	require.NoError(t, err)
	dir := t.TempDir()
	ckpt, exp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "export")
	require.NoError(t, oryx.InitCheckpoint(ckpt, cfg, 1))
	require.NoError(t, Export(ckpt, exp))
	ts, meta, err := ReadSafetensors(filepath.Join(exp, WeightsFile))
	require.NoError(t, err)

	variant := func(name string, edit func(ts []Tensor) []Tensor, cfgEdit func(m map[string]any)) string {
		d := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(d, 0o755))
		require.NoError(t, WriteSafetensors(filepath.Join(d, WeightsFile), edit(append([]Tensor(nil), ts...)), meta))
		var hc map[string]any
		data, _ := os.ReadFile(filepath.Join(exp, ConfigFile))
		require.NoError(t, json.Unmarshal(data, &hc))
		cfgEdit(hc)
		require.NoError(t, writeJSON(filepath.Join(d, ConfigFile), hc))
		return d
	}
	same := func(ts []Tensor) []Tensor { return ts }
	keep := func(map[string]any) {}
	out := func() string { return filepath.Join(t.TempDir(), "ckpt") }

	d := variant("missing", func(ts []Tensor) []Tensor { return ts[1:] }, keep)
	require.ErrorContains(t, importErr(t, d, out()), "has no tensor")
	d = variant("extra", func(ts []Tensor) []Tensor {
		return append(ts, Tensor{Name: "model.layers.0.attn.x.weight", DType: "F32", Shape: []int{1}, Data: make([]byte, 4)})
	}, keep)
	require.ErrorContains(t, importErr(t, d, out()), "model.layers.0.attn.x.weight")
	d = variant("shape", func(ts []Tensor) []Tensor {
		ts[0].Shape = []int{len(ts[0].Data) / 4}
		return ts
	}, keep)
	require.ErrorContains(t, importErr(t, d, out()), "has shape")
	d = variant("foreign", same, func(m map[string]any) { delete(m, "oryx_config") })
	require.ErrorContains(t, importErr(t, d, out()), "not an export of this project")
	d = variant("disagree", same, func(m map[string]any) { m["hidden_size"] = 65 })
	require.ErrorContains(t, importErr(t, d, out()), "hidden_size is 65")
	require.ErrorContains(t, Export(filepath.Join(dir, "nothing"), filepath.Join(dir, "x")), "does not exist")
}

func TestReadSafetensorsRejectsCorruptFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.safetensors")
	require.NoError(t, WriteSafetensors(good, []Tensor{{Name: "a", DType: "F32", Shape: []int{2}, Data: make([]byte, 8)},
		{Name: "b", DType: "BF16", Shape: []int{1, 3}, Data: make([]byte, 6)}}, nil))
	data, err := os.ReadFile(good)
	require.NoError(t, err)
	n := binary.LittleEndian.Uint64(data[:8])
	require.Zero(t, (8+n)%8, "data section aligned")
	ts, _, err := ReadSafetensors(good)
	require.NoError(t, err)
	require.Equal(t, []int{1, 3}, ts[1].Shape)

	write := func(b []byte) string {
		p := filepath.Join(dir, "bad.safetensors")
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	_, _, err = ReadSafetensors(write(data[:len(data)-2]))
	require.ErrorContains(t, err, "outside the data section")
	_, _, err = ReadSafetensors(write(append(bytes.Clone(data), 0)))
	require.ErrorContains(t, err, "after the last tensor")
	huge := bytes.Clone(data)
	binary.LittleEndian.PutUint64(huge, 1<<40)
	_, _, err = ReadSafetensors(write(huge))
	require.ErrorContains(t, err, "does not fit")
	_, _, err = ReadSafetensors(write([]byte{1, 2}))
	require.ErrorContains(t, err, "too short")
	hdr := strings.Replace(string(data[8:8+n]), `"F32"`, `"X99"`, 1)
	_, _, err = ReadSafetensors(write(append(append(bytes.Clone(data[:8]), hdr...), data[8+n:]...)))
	require.ErrorContains(t, err, "unsupported dtype")
	require.ErrorContains(t, WriteSafetensors(filepath.Join(dir, "x"), []Tensor{{Name: "a", DType: "F32", Shape: []int{3}, Data: make([]byte, 8)}}, nil),
		"needs 12 bytes")
}

// pyTools finds the project-local Python packages installed by `make py-tools` (.pytools, walking up).
func pyTools(t *testing.T) string {
	wd, err := os.Getwd()
	require.NoError(t, err)
	for d := wd; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, ".pytools", "safetensors")); err == nil && fi.IsDir() {
			return filepath.Join(d, ".pytools")
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// pyCheck is run by Python's safetensors (numpy framework): it prints, per tensor, the dtype, shape and the
// SHA-256 of the little-endian bytes, and the metadata.
const pyCheck = `
import hashlib, json, sys
from safetensors import safe_open
out = {}
with safe_open(sys.argv[1], framework="numpy") as f:
    meta = f.metadata()
    for k in f.keys():
        a = f.get_tensor(k)
        out[k] = [str(a.dtype), list(a.shape), hashlib.sha256(a.astype(a.dtype.newbyteorder("<")).tobytes()).hexdigest()]
print(json.dumps({"tensors": out, "metadata": meta}))
`

// TestPythonSafetensorsReadsExport reads an Oryx-TG export with the reference implementation (Python's
// safetensors package, installed project-locally by `make py-tools`) and checks every tensor's name,
// shape, dtype and bytes against the checkpoint.
func TestPythonSafetensorsReadsExport(t *testing.T) {
	py := pyTools(t)
	if py == "" {
		t.Skip("Python safetensors not installed: run `make py-tools` (pip install --target .pytools safetensors==0.8.0 numpy)")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	cfg := configs(t)["oryx-tg-untied-full"]
	dir := t.TempDir()
	ckpt, exp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "export")
	require.NoError(t, oryx.InitCheckpoint(ckpt, cfg, 3))
	require.NoError(t, Export(ckpt, exp))
	cmd := exec.Command(python, "-c", pyCheck, filepath.Join(exp, WeightsFile))
	cmd.Env = append(os.Environ(), "PYTHONPATH="+py)
	outB, err := cmd.CombinedOutput()
	require.NoError(t, err, "python: %s", outB)
	var got struct {
		Tensors  map[string][3]any `json:"tensors"`
		Metadata map[string]string `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(outB, &got), "%s", outB)
	require.Equal(t, "oryx-tg", got.Metadata["oryx_variant"])
	_, ctx, err := oryx.LoadCheckpoint(ckpt, nil)
	require.NoError(t, err)
	want := paramBytes(t, ctx)
	ps := Params(cfg)
	require.Len(t, got.Tensors, len(ps))
	for _, p := range ps {
		g, ok := got.Tensors[p.HF]
		require.True(t, ok, "python does not see %s", p.HF)
		require.Equal(t, "float32", g[0], p.HF)
		var shape []int
		for _, d := range g[1].([]any) {
			shape = append(shape, int(d.(float64)))
		}
		require.Equal(t, p.HFShape, shape, p.HF)
		sum := sha256.Sum256(want[p.Scope+"/"+p.Name])
		require.Equal(t, hex.EncodeToString(sum[:]), g[2], "values of %s", p.HF)
	}
	t.Logf("Python safetensors read %d tensors of the export, names, shapes, dtypes and bytes equal", len(ps))
}

// importErr is importInto's error alone.
func importErr(t testing.TB, exportDir, ckptDir string) error {
	_, err := importInto(t, exportDir, ckptDir)
	return err
}

// importInto imports exportDir into ckptDir, which it holds open (oryx.OpenCheckpointDir) for the import.
func importInto(t testing.TB, exportDir, ckptDir string) (*Imported, error) {
	t.Helper()
	w, err := oryx.OpenCheckpointDir(ckptDir, oryx.CheckpointDirOptions{})
	if err != nil {
		return nil, err
	}
	defer func() { require.NoError(t, w.Close()) }()
	return Import(exportDir, w)
}
