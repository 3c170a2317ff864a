package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/hf"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// compareResult is what modeling_oryx.py --compare prints.
type compareResult struct {
	MaxAbs      float64 `json:"max_abs"`
	MaxRel      float64 `json:"max_rel"`
	ArgmaxAgree int     `json:"argmax_agree"`
	Positions   int     `json:"positions"`
	Torch       string  `json:"torch"`
}

// compareCmd implements `oryx compare`: the Go model's logits for one prompt under a mode schedule, against the
// export's PyTorch reference (modeling_oryx.py --compare, run with --python), printed as the largest absolute and
// relative difference and the agreement of the greedy tokens. It fails when the relative difference is above
// --tolerance.
func compareCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ckpt := fs.String("checkpoint", "", "checkpoint directory (required)")
	export := fs.String("export", "", "export directory of that checkpoint (`oryx export`; required)")
	prompt := fs.String("prompt", "", "text, encoded by the export's tokenizer.json (the byte tokenizer without one)")
	idsFlag := fs.String("ids", "", "the prompt as comma-separated token ids instead of --prompt")
	spec := fs.String("schedule", "", "each position's mode (a schedule spec: attention, linear, A:0-3,L:4-, ...; default: the variant's default readout)")
	python := fs.String("python", "python3", "the Python with torch that runs modeling_oryx.py")
	tol := fs.Float64("tolerance", 1e-4, "largest difference accepted, relative to max(1, max |logit|)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: oryx compare --checkpoint DIR --export DIR (--prompt TEXT | --ids 1,2,3) [--schedule SPEC]\n\n"+
			"Computes the Go model's logits for the prompt and has the export's modeling_oryx.py (PyTorch, float64)\n"+
			"compute its own; prints the largest difference and at how many positions the greedy tokens agree, and\n"+
			"exits 1 when the difference exceeds --tolerance.")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageErr(fs, "unexpected argument %q", fs.Arg(0))
	case *ckpt == "" || *export == "":
		return usageErr(fs, "--checkpoint and --export are required")
	case (*prompt == "") == (*idsFlag == ""):
		return usageErr(fs, "give exactly one of --prompt and --ids")
	case !(*tol >= 0):
		return usageErr(fs, "--tolerance must be ≥ 0, got %v", *tol)
	}
	m, ctx, err := oryx.LoadCheckpoint(*ckpt, nil)
	if err != nil {
		return fmt.Errorf("--checkpoint: %w", err)
	}
	if _, _, err := hf.ReadConfig(filepath.Join(*export, hf.ConfigFile)); err != nil {
		return fmt.Errorf("--export: %w", err)
	}
	var ids []int32
	if *idsFlag != "" {
		if ids, err = parseIDs(*idsFlag); err != nil {
			return usageErr(fs, "--ids: %v", err)
		}
	} else {
		spec := "bytes"
		if _, err := os.Stat(filepath.Join(*export, hf.TokenizerFile)); err == nil {
			spec = filepath.Join(*export, hf.TokenizerFile)
		}
		tok, err := tokenizers.Load(spec)
		if err != nil {
			return fmt.Errorf("--export: %w", err)
		}
		for _, id := range tok.Encode(*prompt) {
			ids = append(ids, int32(id))
		}
	}
	if len(ids) == 0 {
		return usageErr(fs, "the prompt has no tokens")
	}
	for _, id := range ids {
		if int(id) >= m.Config.Vocab {
			return usageErr(fs, "token %d is outside the model's vocabulary [0, %d)%s", id, m.Config.Vocab,
				oryx.ByteTokenizerVocabHint(int(id), m.Config.Vocab))
		}
	}
	modes, err := compareModes(m.Config, *spec, len(ids))
	if err != nil {
		return usageErr(fs, "--schedule: %v", err)
	}
	logits, err := goLogits(m, ctx, ids, modes)
	if err != nil {
		return err
	}
	res, err := runCompare(*python, *export, ids, modes, m.Config.Vocab, logits)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "logits of %d positions × %d: max |Δ| %.3g, relative %.3g; greedy tokens agree at %d/%d "+
		"positions (Go in %s, modeling_oryx.py in float64 with torch %s)\n", len(ids), m.Config.Vocab, res.MaxAbs,
		res.MaxRel, res.ArgmaxAgree, res.Positions, m.DType, res.Torch)
	if !(res.MaxRel <= *tol) {
		return fmt.Errorf("compare: the export's reference differs from the Go model by %.3g (relative), more than "+
			"--tolerance %g: is --export an export of --checkpoint?", res.MaxRel, *tol)
	}
	return nil
}

// compareModes is the mode of each of n positions: spec's, or every position in the variant's default readout.
func compareModes(c oryx.Config, spec string, n int) ([]int32, error) {
	out := make([]int32, n)
	if spec == "" {
		def := oryx.Attention
		if !c.Variant.HasAttention() {
			def = oryx.Linear
		}
		for i := range out {
			out[i] = int32(def)
		}
		return out, nil
	}
	s, err := schedule.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	sch, err := s.Schedule(1, n, 0)
	if err != nil {
		return nil, err
	}
	for i, md := range sch.Row(0) {
		if !c.Variant.IsMultiMixer() && (md == oryx.Attention) != c.Variant.HasAttention() {
			return nil, fmt.Errorf("%q gives position %d another readout than the %s variant's only one", spec, i, c.Variant)
		}
		out[i] = int32(md)
	}
	return out, nil
}

// goLogits is the Go model's logits [len(ids)·vocab] (the parallel forward), as float64.
func goLogits(m *oryx.Model, ctx *context.Context, ids, modes []int32) ([]float64, error) {
	be, err := oryx.Backend()
	if err != nil {
		return nil, err
	}
	out, err := context.ExecOnce(be, ctx.Reuse(), func(ctx *context.Context, tokens, modes *graph.Node) *graph.Node {
		return m.Logits(ctx, tokens, modes)
	}, [][]int32{ids}, [][]int32{modes})
	if err != nil {
		return nil, err
	}
	switch out.DType() {
	case dtypes.Float64:
		return tensors.MustCopyFlatData[float64](out), nil
	case dtypes.Float32:
		var r []float64
		for _, x := range tensors.MustCopyFlatData[float32](out) {
			r = append(r, float64(x))
		}
		return r, nil
	}
	return nil, fmt.Errorf("compare: logits of dtype %s", out.DType())
}

// runCompare writes the Go logits to a temporary file and runs the export's modeling_oryx.py --compare on it.
func runCompare(python, export string, ids, modes []int32, vocab int, logits []float64) (compareResult, error) {
	var res compareResult
	f, err := os.CreateTemp("", "oryx-compare-*.json")
	if err != nil {
		return res, err
	}
	defer os.Remove(f.Name())
	err = json.NewEncoder(f).Encode(map[string]any{"ids": ids, "modes": modes, "vocab": vocab, "logits": logits})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return res, err
	}
	cmd := exec.Command(python, filepath.Join(export, hf.ModelingFile), export, "--compare", f.Name())
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return res, fmt.Errorf("--python %s: %w (give a Python with torch)", python, err)
		}
		return res, fmt.Errorf("%s %s --compare: %w: %s", python, filepath.Join(export, hf.ModelingFile), err, errOut.String())
	}
	if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &res); err != nil {
		return res, fmt.Errorf("modeling_oryx.py --compare printed %q: %w", out.String(), err)
	}
	return res, nil
}
