package hf

import (
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/claim"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
)

// File names of an export directory (internal/rundir tells an export by them: claim.Dir).
const (
	WeightsFile  = claim.ExportWeightsFile
	ConfigFile   = rundir.ConfigFile
	ModelingFile = claim.ExportModelingFile // the PyTorch reference (ModelingPy)
)

// ModelingPy is modeling_oryx.py, the PyTorch reference implementation of every variant that Export writes
// beside the weights: torch only (1.13 and 2.x), float32 or float64, the parallel forward with a mode per
// token, the cached step for generation, and a transformers PreTrainedModel wrapper (auto_map in
// config.json) when transformers is importable. The Go library never runs it; tests do.
//
//go:embed modeling_oryx.py
var ModelingPy []byte

// safetensors and torch names of the float dtypes a checkpoint can hold.
var dtypeNames = map[dtypes.DType][2]string{
	dtypes.Float32:  {"F32", "float32"},
	dtypes.Float64:  {"F64", "float64"},
	dtypes.BFloat16: {"BF16", "bfloat16"},
	dtypes.Float16:  {"F16", "float16"},
}

// ExportOptions are Export's choices.
type ExportOptions struct {
	// Tokenizer is the tokenizers.Load spec of the tokenizer to export; "" is the run's (rundir.Tokenizer: the
	// run's copy of its tokenizer file, or the byte tokenizer for a checkpoint written outside a run).
	Tokenizer string
}

// Exported says what ExportWith wrote.
type Exported struct {
	Files     []string // the files written, by name
	Tokenizer string   // the exported tokenizer's name ("bytes", ...), "" for none
	// TokenizerNote says why no tokenizer files were written (the tokenizer has more ids than the model, or is a
	// SentencePiece model), "" when they were.
	TokenizerNote string
}

// Export writes the newest checkpoint of ckptDir to outDir with the run's tokenizer: ExportWith with the
// default options.
func Export(ckptDir, outDir string) error {
	_, err := ExportWith(ckptDir, outDir, ExportOptions{})
	return err
}

// ExportWith writes the newest checkpoint of ckptDir to outDir (created if needed) as a folder a Hugging Face
// user loads without reading this project:
//
//	model.safetensors         the weights under the Hugging Face / fla-style names of Params, the bytes
//	                          copied unchanged in the checkpoint's dtype (optimizer state and counters are not
//	                          exported), with metadata (format, variant, export format, parameter count,
//	                          oryx_config, tokenizer)
//	config.json               Config, with the tokenizer's bos/eos/pad_token_id
//	modeling_oryx.py          the PyTorch reference (ModelingPy)
//	tokenizer.json            the run's tokenizer in the tokenizers library's format (the byte tokenizer as
//	tokenizer_config.json     ByteTokenizer.HFJSON; a byte-level BPE tokenizer.json as it is), loaded by
//	special_tokens_map.json   AutoTokenizer as a PreTrainedTokenizerFast that adds nothing to the ids
//	generation_config.json    the special-token ids (generate() stops at end of text)
//	README.md                 the model card: variant, size, training data and tokens, readouts, loading,
//	                          what equals what
//
// A tokenizer with more ids than the model's vocabulary, or a SentencePiece one, gives no tokenizer files
// (Exported.TokenizerNote says why; the card too). It checks that the checkpoint holds exactly the
// parameters the config implies. Files of an earlier export in outDir that this one does not write are
// removed.
func ExportWith(ckptDir, outDir string, opts ExportOptions) (*Exported, error) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return nil, errBigEndian
	}
	m, ctx, err := oryx.LoadCheckpointRetrying(ckptDir, nil) // a training may be saving into it
	if err != nil {
		return nil, err
	}
	ps := Params(m.Config)
	if err := checkVariables(ctx, ps); err != nil {
		return nil, fmt.Errorf("export %s: %w", ckptDir, err)
	}
	names, ok := dtypeNames[m.DType]
	if !ok {
		return nil, fmt.Errorf("export %s: parameters have dtype %s, which safetensors export does not handle", ckptDir, m.DType)
	}
	spec := opts.Tokenizer
	if spec == "" {
		if spec, err = rundir.Tokenizer(ckptDir); err != nil {
			return nil, fmt.Errorf("export %s: %w", ckptDir, err)
		}
	}
	et, err := resolveTokenizer(spec, m.Config.Vocab)
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", ckptDir, err)
	}
	var ts []Tensor
	for _, p := range ps {
		v := ctx.GetVariableByScopeAndName(p.Scope, p.Name)
		val, err := v.Value()
		if err != nil {
			return nil, fmt.Errorf("export %s: %s/%s: %w", ckptDir, p.Scope, p.Name, err)
		}
		var data []byte
		if err := val.ConstBytes(func(b []byte) { data = slices.Clone(b) }); err != nil {
			return nil, fmt.Errorf("export %s: %s/%s: %w", ckptDir, p.Scope, p.Name, err)
		}
		ts = append(ts, Tensor{Name: p.HF, DType: names[0], Shape: p.HFShape, Data: data})
	}
	if err := os.MkdirAll(outDir, atomicfile.DirMode); err != nil {
		return nil, err
	}
	if err := WriteSafetensors(filepath.Join(outDir, WeightsFile), ts, weightsMetadata(m.Config, et)); err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(filepath.Join(outDir, ModelingFile), ModelingPy); err != nil {
		return nil, err
	}
	hc := NewConfig(m.Config, names[1])
	if et.IDs != nil {
		hc.BOSTokenID, hc.EOSTokenID, hc.PadTokenID = &et.IDs.BOS, &et.IDs.EOS, &et.IDs.Pad
	}
	if et.JSON != nil {
		hc.TokenizerClass = tokenizerClass
	}
	if err := writeJSON(filepath.Join(outDir, ConfigFile), hc); err != nil {
		return nil, err
	}
	if err := writeTokenizerFiles(outDir, et); err != nil {
		return nil, err
	}
	card := modelCard(m.Config, names[1], et, readTraining(ckptDir))
	if err := atomicfile.WriteFile(filepath.Join(outDir, CardFile), []byte(card)); err != nil {
		return nil, err
	}
	info := &Exported{TokenizerNote: et.Note}
	if et.JSON != nil {
		info.Tokenizer = et.Name
	}
	for _, n := range exportFiles {
		if _, err := os.Stat(filepath.Join(outDir, n)); err == nil {
			info.Files = append(info.Files, n)
		}
	}
	return info, nil
}

// weightsMetadata is model.safetensors' metadata (strings only, as the format wants): "format": "pt" (what
// transformers' loader checks), the variant, the export format, the parameter count, the exact oryx_config
// and the tokenizer's name. Everything in it is the model's, so an export of an import of an export is the
// same file.
func weightsMetadata(c oryx.Config, et exportTokenizer) map[string]string {
	oc, _ := json.Marshal(c)
	meta := map[string]string{"format": "pt", "oryx_variant": string(c.Variant), "oryx_export_format": fmt.Sprint(FormatVersion),
		"oryx_params": fmt.Sprint(oryx.CountParams(c).Total), "oryx_config": string(oc)}
	if et.JSON != nil {
		meta["oryx_tokenizer"] = et.Name
	}
	return meta
}

// checkVariables checks that ctx's model parameters are exactly ps (names and shapes).
func checkVariables(ctx *context.Context, ps []Param) error {
	want := map[string][]int{}
	for _, p := range ps {
		want[p.Scope+"/"+p.Name] = p.Shape
	}
	var problems []string
	seen := map[string]bool{}
	for v := range ctx.IterVariables() {
		if !oryx.IsModelParam(v.ScopeAndName()) {
			continue
		}
		key := v.ScopeAndName()
		seen[key] = true
		shape, ok := want[key]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("unexpected parameter %s %v", key, v.Shape().Dimensions))
		case !slices.Equal(shape, v.Shape().Dimensions):
			problems = append(problems, fmt.Sprintf("parameter %s is %v, the mapping expects %v", key, v.Shape().Dimensions, shape))
		}
	}
	for _, p := range ps {
		if key := p.Scope + "/" + p.Name; !seen[key] {
			problems = append(problems, "missing parameter "+key)
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return fmt.Errorf("the checkpoint does not match the name mapping: %s", strings.Join(problems, "; "))
	}
	return nil
}

// Imported says what Import read.
type Imported struct {
	Config  oryx.Config
	Tensors int
	// DType is the safetensors dtype of the export's tensors ("F32", "BF16", ...); ConvertedTo is
	// "float32" when they were bfloat16 or float16 and were converted (exactly: every 16-bit float is a
	// float32), "" when they were stored as they are.
	DType, ConvertedTo string
	// Tokenizer is the tokenizer the export carried: "bytes" (a checkpoint reads as the byte tokenizer without
	// a run record), the checkpoint's copy of a BPE tokenizer.json (recorded in its run.json), "" for none.
	Tokenizer string
}

// Import reads an export directory (config.json with "oryx_config", model.safetensors, and the tokenizer when
// there is one) and writes it into
// the checkpoint directory out holds open (oryx.OpenCheckpointDir: so an import never writes where a trainer
// or another import is writing) as an oryx checkpoint that LoadCheckpoint, generate and evals read. It accepts only what it can
// run exactly: config.json must be exactly what Export writes for its oryx_config (ReadConfig: no unknown,
// missing or disagreeing key), every tensor of the mapping must be present once with its HF shape and the
// dtype torch_dtype states, and no other tensor may be there. float32 and float64 weights are stored as
// they are; bfloat16 and float16 weights (Hugging Face's usual conversions) are converted to float32, which
// holds them exactly, because the model runs in float32 or float64. A tokenizer.json must be the byte tokenizer
// Export writes or a byte-level BPE tokenizer.json the Go tokenizers read, with the end-of-text id config.json
// states: a BPE one is copied into the checkpoint (its run.json records it, so generate and evals use it);
// the byte tokenizer is what a checkpoint without a run record reads as. generation_config.json, the
// tokenizer's other files and README.md are not read. It refuses a directory that already holds checkpoints.
func Import(exportDir string, out *oryx.CheckpointDir) (*Imported, error) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return nil, errBigEndian
	}
	cfg, torchDType, ids, err := readConfig(filepath.Join(exportDir, ConfigFile))
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", exportDir, err)
	}
	tokSpec, err := importedTokenizer(exportDir, cfg.Vocab, ids)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", exportDir, err)
	}
	weights := filepath.Join(exportDir, WeightsFile)
	if err := checkWeightsFileSize(weights, cfg, torchDType); err != nil {
		return nil, fmt.Errorf("import %s: %w", exportDir, err)
	}
	ts, meta, err := ReadSafetensors(weights)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", exportDir, err)
	}
	if err := out.Check(); err != nil {
		return nil, fmt.Errorf("import %s: %w", exportDir, err)
	}
	ckptDir := out.Dir()
	if names, err := oryx.ListCheckpoints(ckptDir); err == nil && len(names) > 0 {
		return nil, fmt.Errorf("import into %s: the directory already holds %d checkpoint(s); choose another one", ckptDir, len(names))
	}
	byName := map[string]Tensor{}
	for _, t := range ts {
		byName[t.Name] = t
	}
	ctx := context.New()
	info := &Imported{Config: cfg}
	for _, p := range Params(cfg) {
		t, ok := byName[p.HF]
		if !ok {
			return nil, fmt.Errorf("import %s: %s has no tensor %q (the config's %s model needs it)", exportDir, weights, p.HF, cfg.Variant)
		}
		delete(byName, p.HF)
		if !slices.Equal(t.Shape, p.HFShape) {
			return nil, fmt.Errorf("import %s: tensor %q has shape %v, the config implies %v", exportDir, p.HF, t.Shape, p.HFShape)
		}
		if TorchDTypes[t.DType] != torchDType {
			return nil, fmt.Errorf("import %s: tensor %q is %s, but config.json says torch_dtype %q (every tensor must have it)",
				exportDir, p.HF, t.DType, torchDType)
		}
		info.DType = t.DType
		val, converted, err := paramValue(t, p.Shape)
		if err != nil {
			return nil, fmt.Errorf("import %s: %q: %w", exportDir, p.HF, err)
		}
		if converted {
			info.ConvertedTo = "float32"
		}
		ctx.InAbsPath(p.Scope).VariableWithValue(p.Name, val)
		info.Tensors++
	}
	if len(byName) > 0 {
		var extra []string
		for n := range byName {
			extra = append(extra, n)
		}
		slices.Sort(extra)
		return nil, fmt.Errorf("import %s: %s has tensors the %s mapping does not know: %s", exportDir, weights, cfg.Variant,
			strings.Join(extra, ", "))
	}
	if err := oryx.SaveCheckpoint(out, cfg, ctx); err != nil {
		return nil, err
	}
	if tokSpec != "" {
		// The copy is named as the export's metadata names the tokenizer (else as the file: the export folder's
		// name), so that exporting the import again writes the same metadata.
		name := meta["oryx_tokenizer"]
		if name == "" {
			name = filepath.Base(exportDir)
		}
		rel, err := rundir.CopyTokenizer(ckptDir, tokSpec, name)
		if err != nil {
			return nil, fmt.Errorf("import %s: copying %s: %w", exportDir, tokSpec, err)
		}
		imported := struct {
			Tokenizer    string `json:"tokenizer"`
			ImportedFrom string `json:"imported_from"`
		}{rel, exportDir}
		if err := rundir.WriteRunRecord(ckptDir, imported, rundir.RunInfo{TokenizerFile: rel, GoVersion: runtime.Version(),
			Started: time.Now().UTC().Format(time.RFC3339)}); err != nil {
			return nil, err
		}
		info.Tokenizer = rel
	} else if _, err := os.Stat(filepath.Join(exportDir, TokenizerFile)); err == nil {
		info.Tokenizer = "bytes"
	}
	return info, nil
}

// paramValue turns an export tensor into a parameter of shape (same elements): float32 and float64 as
// they are, bfloat16 and float16 converted to float32 (exact). converted tells which. A NaN or an infinity
// is refused: no trained model holds one (the trainer skips non-finite steps), and every forward of a model
// that does is NaN — it used to import silently and generate token 0 forever.
func paramValue(t Tensor, shape []int) (val *tensors.Tensor, converted bool, err error) {
	if i, x, ok := firstNonFinite(t); ok {
		return nil, false, fmt.Errorf("element %d is %v: a model's weights are finite numbers", i, x)
	}
	switch t.DType {
	case "F32", "F64":
		dt := dtypes.Float32
		if t.DType == "F64" {
			dt = dtypes.Float64
		}
		val = tensors.FromShape(shapes.Make(dt, shape...))
		err = val.MutableBytes(func(b []byte) { copy(b, t.Data) })
		return val, false, err
	case "BF16", "F16":
		n := len(t.Data) / 2
		out := make([]float32, n)
		for i := range n {
			h := binary.LittleEndian.Uint16(t.Data[2*i:])
			if t.DType == "BF16" {
				out[i] = math.Float32frombits(uint32(h) << 16)
			} else {
				out[i] = float16ToFloat32(h)
			}
		}
		return tensors.FromFlatDataAndDimensions(out, shape...), true, nil
	}
	return nil, false, fmt.Errorf("dtype %s: want one of F32, F64, BF16, F16", t.DType)
}

// firstNonFinite finds the first NaN or infinity of a float tensor (F32, F64, BF16, F16): its index and
// value.
func firstNonFinite(t Tensor) (int, float64, bool) {
	var size int
	var at func(b []byte) float64
	switch t.DType {
	case "F32":
		size, at = 4, func(b []byte) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))) }
	case "F64":
		size, at = 8, func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }
	case "BF16":
		size, at = 2, func(b []byte) float64 {
			return float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b)) << 16))
		}
	case "F16":
		size, at = 2, func(b []byte) float64 { return float64(float16ToFloat32(binary.LittleEndian.Uint16(b))) }
	default:
		return 0, 0, false
	}
	for i := 0; (i+1)*size <= len(t.Data); i++ {
		if x := at(t.Data[i*size:]); math.IsNaN(x) || math.IsInf(x, 0) {
			return i, x, true
		}
	}
	return 0, 0, false
}

// float16ToFloat32 converts an IEEE 754 half-precision value (its bits) to float32, exactly.
func float16ToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch exp {
	case 0x1f: // infinities and NaNs keep their payload
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	case 0: // zero and subnormals: frac · 2^−24
		v := float32(frac) / (1 << 24)
		return math.Float32frombits(sign | math.Float32bits(v))
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}

// checkWeightsFileSize refuses, before anything is read, a weights file larger than the config's parameters
// can take in the dtype config.json states, with the largest header: a 9 GB file for a tiny model was read
// whole before its size was compared with anything.
func checkWeightsFileSize(path string, cfg oryx.Config, torchDType string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	bytesPer := map[string]int64{"float32": 4, "float64": 8, "bfloat16": 2, "float16": 2}[torchDType]
	if bytesPer == 0 {
		bytesPer = 8
	}
	params := oryx.CountParams(cfg).Total
	limit := params*bytesPer + 8 + maxHeader
	if st.Size() > limit {
		return fmt.Errorf("%s is %d bytes, more than the %d parameters of its config.json take in %s (%d bytes) "+
			"plus the largest header: not this model's weights", path, st.Size(), params, torchDType, params*bytesPer)
	}
	return nil
}
