package hf

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/oryx"
)

// File names of an export directory.
const (
	WeightsFile = "model.safetensors"
	ConfigFile  = "config.json"
)

// safetensors and torch names of the float dtypes a checkpoint can hold.
var dtypeNames = map[dtypes.DType][2]string{
	dtypes.Float32:  {"F32", "float32"},
	dtypes.Float64:  {"F64", "float64"},
	dtypes.BFloat16: {"BF16", "bfloat16"},
	dtypes.Float16:  {"F16", "float16"},
}

// Export writes the newest checkpoint of ckptDir to outDir (created if needed) as model.safetensors
// under the Hugging Face / fla-style names of Params and a config.json (Config). The bytes are copied
// unchanged, in the checkpoint's dtype; optimizer state and counters are not exported. It checks that the
// checkpoint holds exactly the parameters the config implies.
func Export(ckptDir, outDir string) error {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return errBigEndian
	}
	m, ctx, err := oryx.LoadCheckpoint(ckptDir, nil)
	if err != nil {
		return err
	}
	ps := Params(m.Config)
	if err := checkVariables(ctx, ps); err != nil {
		return fmt.Errorf("export %s: %w", ckptDir, err)
	}
	names, ok := dtypeNames[m.DType]
	if !ok {
		return fmt.Errorf("export %s: parameters have dtype %s, which safetensors export does not handle", ckptDir, m.DType)
	}
	var ts []Tensor
	for _, p := range ps {
		v := ctx.GetVariableByScopeAndName(p.Scope, p.Name)
		val, err := v.Value()
		if err != nil {
			return fmt.Errorf("export %s: %s/%s: %w", ckptDir, p.Scope, p.Name, err)
		}
		var data []byte
		if err := val.ConstBytes(func(b []byte) { data = slices.Clone(b) }); err != nil {
			return fmt.Errorf("export %s: %s/%s: %w", ckptDir, p.Scope, p.Name, err)
		}
		ts = append(ts, Tensor{Name: p.HF, DType: names[0], Shape: p.HFShape, Data: data})
	}
	if err := os.MkdirAll(outDir, atomicfile.DirMode); err != nil {
		return err
	}
	meta := map[string]string{"format": "pt", "oryx_variant": string(m.Config.Variant)}
	if err := WriteSafetensors(filepath.Join(outDir, WeightsFile), ts, meta); err != nil {
		return err
	}
	return writeJSON(filepath.Join(outDir, ConfigFile), NewConfig(m.Config, names[1]))
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

// Import reads an export directory (config.json with "oryx_config", model.safetensors) and writes it to
// ckptDir as an oryx checkpoint that LoadCheckpoint, generate and evals read. Every tensor of the mapping
// must be present with its HF shape and one float dtype; an unknown tensor is an error. It refuses a
// ckptDir that already holds checkpoints.
func Import(exportDir, ckptDir string) error {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return errBigEndian
	}
	cfg, err := ReadConfig(filepath.Join(exportDir, ConfigFile))
	if err != nil {
		return fmt.Errorf("import %s: %w", exportDir, err)
	}
	weights := filepath.Join(exportDir, WeightsFile)
	ts, _, err := ReadSafetensors(weights)
	if err != nil {
		return fmt.Errorf("import %s: %w", exportDir, err)
	}
	if names, err := oryx.ListCheckpoints(ckptDir); err == nil && len(names) > 0 {
		return fmt.Errorf("import into %s: the directory already holds %d checkpoint(s); choose another one", ckptDir, len(names))
	}
	byName := map[string]Tensor{}
	for _, t := range ts {
		byName[t.Name] = t
	}
	ctx := context.New()
	var dtypeName string
	for _, p := range Params(cfg) {
		t, ok := byName[p.HF]
		if !ok {
			return fmt.Errorf("import %s: %s has no tensor %q (the config's %s model needs it)", exportDir, weights, p.HF, cfg.Variant)
		}
		delete(byName, p.HF)
		if !slices.Equal(t.Shape, p.HFShape) {
			return fmt.Errorf("import %s: tensor %q has shape %v, the config implies %v", exportDir, p.HF, t.Shape, p.HFShape)
		}
		if dtypeName == "" {
			dtypeName = t.DType
		} else if t.DType != dtypeName {
			return fmt.Errorf("import %s: tensor %q is %s, others are %s: mixed dtypes", exportDir, p.HF, t.DType, dtypeName)
		}
		dt := dtypes.InvalidDType
		for d, n := range dtypeNames {
			if n[0] == t.DType {
				dt = d
			}
		}
		if dt == dtypes.InvalidDType {
			return fmt.Errorf("import %s: tensor %q has dtype %s; want one of F32, F64, BF16, F16", exportDir, p.HF, t.DType)
		}
		val := tensors.FromShape(shapes.Make(dt, p.Shape...))
		if err := val.MutableBytes(func(b []byte) { copy(b, t.Data) }); err != nil {
			return fmt.Errorf("import %s: %q: %w", exportDir, p.HF, err)
		}
		ctx.InAbsPath(p.Scope).VariableWithValue(p.Name, val)
	}
	if len(byName) > 0 {
		var extra []string
		for n := range byName {
			extra = append(extra, n)
		}
		slices.Sort(extra)
		return fmt.Errorf("import %s: %s has tensors the %s mapping does not know: %s", exportDir, weights, cfg.Variant,
			strings.Join(extra, ", "))
	}
	return oryx.SaveCheckpoint(ckptDir, cfg, ctx)
}
