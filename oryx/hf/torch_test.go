package hf

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/infer"
	"github.com/oryx-go/oryx/oryx/oryxtest"
	"github.com/oryx-go/oryx/oryx/schedule"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The PyTorch reference (modeling_oryx.py, written by Export) against the Go model, on exports of random
// weights: logits under every schedule the variant has (all-attention, all-linear, and one that switches
// both ways inside and across chunks), in float64 (≤ 1e-10 relative to the largest logit) and float32
// (≤ 1e-4); greedy generation, token for token, for 32 tokens (float64: the prefill, then the cached
// recurrent/KV steps); the export imported back bit for bit. Needs a python3 that imports torch (Debian's
// python3-torch, which `make test` installs); skips with the command to install it otherwise.

// torchPython returns a python3 that imports torch: $ORYX_TORCH_PYTHON, /usr/bin/python3 (Debian's
// python3-torch is installed for it), or python3 on PATH.
func torchPython(t *testing.T) string {
	t.Helper()
	var tried []string
	for _, p := range []string{os.Getenv("ORYX_TORCH_PYTHON"), "/usr/bin/python3", "python3"} {
		if p == "" {
			continue
		}
		path, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		cmd := exec.Command(path, "-c", "import torch")
		cmd.Env = withoutPythonPath()
		if cmd.Run() == nil {
			return path
		}
		tried = append(tried, path)
	}
	t.Skipf("no python3 with torch (tried %v): `make torch` installs Debian's python3-torch "+
		"(apt-get install -y python3-torch), or set ORYX_TORCH_PYTHON", tried)
	return ""
}

// withoutPythonPath is the environment without PYTHONPATH: the reference must run on torch alone.
func withoutPythonPath() []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "PYTHONPATH=") {
			env = append(env, e)
		}
	}
	return env
}

// torchConfigs are small configs of every variant that reach every branch of the reference: chunk 8 (the
// sequences cross several chunks), RoPE off for Oryx-TM, an untied head and a full-width output norm for
// GDN, no conv for the Transformer.
func torchConfigs(t *testing.T) []oryx.Config {
	var out []oryx.Config
	for _, v := range testutil.Sweep([]oryx.Variant{oryx.OryxTG, oryx.OryxTM, oryx.Transformer, oryx.GDN, oryx.Mamba2}, 2) {
		c, err := oryx.Preset("tiny", v)
		require.NoError(t, err)
		c.Vocab, c.Chunk = 96, 8
		switch v {
		case oryx.OryxTM:
			c.RoPE = false
		case oryx.GDN:
			c.TiedEmbeddings, c.OutputNorm = false, "full"
		case oryx.Transformer:
			c.ConvWidth = 0
		}
		require.NoError(t, c.Validate())
		out = append(out, c)
	}
	return out
}

// randomCheckpoint writes a float64 checkpoint of cfg with random weights to dir: GoMLX's initialisation,
// then every parameter perturbed (the norms, D, the gates are not left at their constant initial values)
// and the embeddings scaled up (sharper next-token distributions, so greedy generation is not trivial).
func randomCheckpoint(t *testing.T, cfg oryx.Config, dir string, seed uint64) {
	m := &oryx.Model{Config: cfg, DType: dtypes.Float64}
	ctx := context.New()
	ctx.SetParam(context.ParamInitialSeed, int64(seed))
	exec, err := context.NewExec(backend.MustGet(), ctx, func(ctx *context.Context, tok, md *Node) *Node {
		return m.Logits(ctx, tok, md)
	})
	require.NoError(t, err)
	_, err = exec.Exec(tensors.FromFlatDataAndDimensions([]int32{0}, 1, 1), tensors.FromFlatDataAndDimensions([]int32{1}, 1, 1))
	require.NoError(t, err)
	exec.Finalize()
	r := rand.New(rand.NewPCG(seed, 99))
	eachParam(t, ctx, func(v *context.Variable, x []float64, dims []int) {
		scale := 1.0
		if strings.Contains(v.ScopeAndName(), "embeddings") {
			scale = 10
		}
		for i := range x {
			x[i] = scale*x[i]*(1+0.25*r.NormFloat64()) + 0.02*r.NormFloat64()
		}
		require.NoError(t, v.SetValue(tensors.FromFlatDataAndDimensions(x, dims...)))
	})
	require.NoError(t, oryxtest.SaveCheckpoint(t, dir, cfg, ctx))
}

// eachParam calls fn with every model parameter of a float64 context, its values and its shape.
func eachParam(t *testing.T, ctx *context.Context, fn func(v *context.Variable, x []float64, dims []int)) {
	for v := range ctx.IterVariables() {
		if !oryx.IsModelParam(v.ScopeAndName()) {
			continue
		}
		val, err := v.Value()
		require.NoError(t, err)
		fn(v, tensors.MustCopyFlatData[float64](val), val.Shape().Dimensions)
	}
}

// float32Checkpoint writes the float64 checkpoint src rounded to float32 to dir.
func float32Checkpoint(t *testing.T, src, dir string) {
	m, ctx, err := oryx.LoadCheckpoint(src, nil)
	require.NoError(t, err)
	ctx32 := context.New()
	eachParam(t, ctx, func(v *context.Variable, x []float64, dims []int) {
		y := make([]float32, len(x))
		for i := range x {
			y[i] = float32(x[i])
		}
		ctx32.InAbsPath(v.Scope()).VariableWithValue(v.Name(), tensors.FromFlatDataAndDimensions(y, dims...))
	})
	require.NoError(t, oryxtest.SaveCheckpoint(t, dir, m.Config, ctx32))
}

// goLogits is the Go model's parallel forward on tokens with modes, flattened to [B·T·V] float64.
func goLogits(t *testing.T, ckpt string, tokens [][]int32, modes [][]oryx.Mode) []float64 {
	m, ctx, err := oryx.LoadCheckpoint(ckpt, nil)
	require.NoError(t, err)
	b, n := len(tokens), len(tokens[0])
	if modes == nil {
		modes = constModes(b, n, map[bool]oryx.Mode{true: oryx.Attention, false: oryx.Linear}[m.Config.Variant.HasAttention()])
	}
	exec, err := context.NewExec(backend.MustGet(), ctx, func(ctx *context.Context, tok, md *Node) *Node {
		return m.Logits(ctx, tok, md)
	})
	require.NoError(t, err)
	defer exec.Finalize()
	var tf, mf []int32
	for i := range tokens {
		tf = append(tf, tokens[i]...)
		for _, x := range modes[i] {
			mf = append(mf, int32(x))
		}
	}
	outs, err := exec.Exec(tensors.FromFlatDataAndDimensions(tf, b, n), tensors.FromFlatDataAndDimensions(mf, b, n))
	require.NoError(t, err)
	switch m.DType {
	case dtypes.Float64:
		return tensors.MustCopyFlatData[float64](outs[0])
	default:
		x := tensors.MustCopyFlatData[float32](outs[0])
		out := make([]float64, len(x))
		for i := range x {
			out[i] = float64(x[i])
		}
		return out
	}
}

func constModes(b, n int, m oryx.Mode) [][]oryx.Mode {
	out := make([][]oryx.Mode, b)
	for i := range out {
		out[i] = make([]oryx.Mode, n)
		for j := range out[i] {
			out[i][j] = m
		}
	}
	return out
}

// goGenerate is greedy generation with the Go engine: max tokens after prompt under spec.
func goGenerate(t *testing.T, ckpt string, prompt []int32, spec string, maxTokens int) []int32 {
	m, ctx, err := oryx.LoadCheckpoint(ckpt, nil)
	require.NoError(t, err)
	e, err := infer.NewEngine(backend.MustGet(), ctx, m, 1, len(prompt)+maxTokens)
	require.NoError(t, err)
	g, err := e.Generate([][]int32{prompt}, infer.GenerateOptions{Schedule: spec, MaxTokens: maxTokens})
	require.NoError(t, err)
	return g.Tokens[0]
}

// specModes is the mode of every position fed to the model for a prompt of n tokens and max generated
// tokens under spec: the prompt's (ScheduleRows), then DecodeMode at each generated position.
func specModes(t *testing.T, spec string, n, maxTokens int) []int {
	parsed, err := schedule.ParseSpec(spec)
	require.NoError(t, err)
	s, err := parsed.ScheduleRows([]int{n}, 0)
	require.NoError(t, err)
	var out []int
	for _, m := range s.Row(0) {
		out = append(out, int(m))
	}
	for pos := n; pos < n+maxTokens-1; pos++ {
		m, err := parsed.DecodeMode(pos, n)
		require.NoError(t, err)
		out = append(out, int(m))
	}
	return out
}

// switchSpec switches attention → linear → attention → linear, inside chunks of 8 and across them, in the
// prompt and again in the generated tokens (prompts of 24 tokens).
const switchSpec = "A:0-6,L:7-18,A:19-29,L:30-"

// perRow names the logits case whose rows have different schedules (switchSpec, and its inverse in row 1).
const perRow = "per-row"

type torchJob struct {
	Export       string         `json:"export"`
	DType        string         `json:"dtype"`
	Tokens       [][]int32      `json:"tokens"`
	Logits       []torchLogits  `json:"logits"`
	Generate     []torchGenCase `json:"generate"`
	Transformers bool           `json:"transformers"`
}

type torchLogits struct {
	Name    string  `json:"name"`
	Modes   [][]int `json:"modes"`
	Chunked int     `json:"chunked,omitempty"`
}

type torchGenCase struct {
	Name      string  `json:"name"`
	Prompt    []int32 `json:"prompt"`
	MaxTokens int     `json:"max_new_tokens"`
	Modes     []int   `json:"modes"`
}

type torchResult struct {
	Logits             map[string][]float64 `json:"logits"`
	Generate           map[string][]int32   `json:"generate"`
	TransformersClass  string               `json:"transformers_class"`
	TransformersLogits []float64            `json:"transformers_logits"`
}

// runTorch runs testdata/torch_reference.py on the jobs with python (env: extra environment entries).
func runTorch(t *testing.T, python string, jobs []torchJob, env []string) ([]torchResult, string) {
	var res struct {
		Jobs  []torchResult `json:"jobs"`
		Torch string        `json:"torch"`
	}
	runPythonJSON(t, python, env, map[string]any{"jobs": jobs}, &res, "torch_reference.py")
	require.Len(t, res.Jobs, len(jobs))
	return res.Jobs, res.Torch
}

// runPythonJSON runs python on testdata/<script> with args, then a request file (req as JSON) and an answer
// file, which it decodes into out; env adds to the environment (without PYTHONPATH). The test fails with
// the script's standard error when it exits non-zero.
func runPythonJSON(t *testing.T, python string, env []string, req, out any, script string, args ...string) {
	t.Helper()
	dir := t.TempDir()
	reqPath, outPath := filepath.Join(dir, "request.json"), filepath.Join(dir, "out.json")
	data, err := json.Marshal(req)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(reqPath, data, 0o644))
	path, err := filepath.Abs(filepath.Join("testdata", script))
	require.NoError(t, err)
	cmd := exec.Command(python, append(append([]string{path}, args...), reqPath, outPath)...)
	// No __pycache__ beside a module it imports from the checkout (modeling_checks.py loads modeling_oryx.py
	// there): the tests write only under their temporary directories.
	cmd.Env = append(append(withoutPythonPath(), "PYTHONDONTWRITEBYTECODE=1"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run(), "python %s: %s", script, stderr.String())
	data, err = os.ReadFile(outPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, out))
}

func modeRows(t *testing.T, spec string, b, n int) ([][]oryx.Mode, [][]int) {
	parsed, err := schedule.ParseSpec(spec)
	require.NoError(t, err)
	s, err := parsed.Schedule(b, n, 0)
	require.NoError(t, err)
	var goRows [][]oryx.Mode
	var pyRows [][]int
	for i := range b {
		goRows = append(goRows, s.Row(i))
		var r []int
		for _, m := range s.Row(i) {
			r = append(r, int(m))
		}
		pyRows = append(pyRows, r)
	}
	return goRows, pyRows
}

func TestTorchReferenceMatchesGo(t *testing.T) {
	python := torchPython(t)
	const b, n, prompt, gen = 2, 40, 24, 32
	type variantRun struct {
		cfg        oryx.Config
		ckpt       map[string]string // dtype → checkpoint
		specs      []string
		tokens     [][]int32
		goModes    map[string][][]oryx.Mode
		promptToks []int32
	}
	var runs []variantRun
	var jobs []torchJob
	root := t.TempDir()
	for i, cfg := range torchConfigs(t) {
		v := cfg.Variant
		r := rand.New(rand.NewPCG(uint64(i), 5))
		run := variantRun{cfg: cfg, ckpt: map[string]string{}, goModes: map[string][][]oryx.Mode{}}
		for range b {
			row := make([]int32, n)
			for j := range row {
				row[j] = int32(r.IntN(cfg.Vocab))
			}
			run.tokens = append(run.tokens, row)
		}
		run.promptToks = run.tokens[0][:prompt]
		switch {
		case v.IsMultiMixer():
			run.specs = []string{"attention", "linear", switchSpec}
		case v.HasAttention():
			run.specs = []string{"attention"}
		default:
			run.specs = []string{"linear"}
		}
		dir := filepath.Join(root, string(v))
		run.ckpt["float64"], run.ckpt["float32"] = filepath.Join(dir, "ckpt64"), filepath.Join(dir, "ckpt32")
		randomCheckpoint(t, cfg, run.ckpt["float64"], uint64(10+i))
		float32Checkpoint(t, run.ckpt["float64"], run.ckpt["float32"])
		for _, dt := range []string{"float64", "float32"} {
			exp := filepath.Join(dir, "export-"+dt)
			require.NoError(t, Export(run.ckpt[dt], exp))
			// The export imports back bit for bit.
			back := filepath.Join(dir, "back-"+dt)
			require.NoError(t, importErr(t, exp, back))
			_, ctxA, err := oryx.LoadCheckpoint(run.ckpt[dt], nil)
			require.NoError(t, err)
			_, ctxB, err := oryx.LoadCheckpoint(back, nil)
			require.NoError(t, err)
			pa, pb := paramBytes(t, ctxA), paramBytes(t, ctxB)
			require.Equal(t, len(pa), len(pb))
			for k := range pa {
				require.True(t, bytes.Equal(pa[k], pb[k]), "%s %s: %s differs after export and import", v, dt, k)
			}
			job := torchJob{Export: exp, DType: dt, Tokens: run.tokens}
			for _, spec := range run.specs {
				c := torchLogits{Name: spec}
				if v.IsMultiMixer() {
					run.goModes[spec], c.Modes = modeRows(t, spec, b, n)
				}
				if dt == "float64" && v.LinearMixer() != oryx.NoLinear && spec != "attention" {
					c.Chunked = cfg.Chunk
				}
				job.Logits = append(job.Logits, c)
				if dt == "float64" {
					g := torchGenCase{Name: spec, Prompt: run.promptToks, MaxTokens: gen}
					if v.IsMultiMixer() {
						g.Modes = specModes(t, spec, prompt, gen)
					}
					job.Generate = append(job.Generate, g)
				}
			}
			if v.IsMultiMixer() { // rows with schedules of their own: row 1 reads each token the other way
				c := torchLogits{Name: perRow}
				run.goModes[perRow], c.Modes = modeRows(t, switchSpec, b, n)
				run.goModes[perRow][1], c.Modes[1] = invertModes(run.goModes[perRow][1]), invertInts(c.Modes[1])
				if dt == "float64" {
					c.Chunked = cfg.Chunk
				}
				job.Logits = append(job.Logits, c)
			}
			jobs = append(jobs, job)
		}
		runs = append(runs, run)
	}
	results, torchVersion := runTorch(t, python, jobs, nil)
	t.Logf("torch %s (%s)", torchVersion, python)
	for i, run := range runs {
		v := run.cfg.Variant
		for k, dt := range []string{"float64", "float32"} {
			res := results[2*i+k]
			bound := map[string]float64{"float64": 1e-10, "float32": 1e-4}[dt]
			logitCases := run.specs
			if v.IsMultiMixer() {
				logitCases = append(slices.Clone(logitCases), perRow)
			}
			for _, spec := range logitCases {
				want := goLogits(t, run.ckpt[dt], run.tokens, run.goModes[spec])
				got := res.Logits[spec]
				if spec == perRow {
					// The case must catch a reference that applies row 0's modes to every row: that mutant's
					// logits (computed here by the Go model) are far outside the bound.
					rows := run.goModes[perRow]
					mutant := goLogits(t, run.ckpt[dt], run.tokens, [][]oryx.Mode{rows[0], rows[0]})
					m := testutil.RelErr(mutant, want)
					t.Logf("%-11s %s %-26s the row-0 mutant would be off by %.2e", v, dt, spec, m)
					require.Greater(t, m, 1e3*bound, "%s %s: the per-row case cannot tell a row-0 mutant", v, dt)
				}
				e := testutil.RelErr(got, want)
				t.Logf("%-11s %s %-26s max |torch − go| / max |go| = %.2e", v, dt, spec, e)
				assert.LessOrEqual(t, e, bound, "%s %s %s", v, dt, spec)
				if c, ok := res.Logits[spec+"/chunked"]; ok {
					e := testutil.RelErr(c, want)
					t.Logf("%-11s %s %-26s chunked reference: %.2e", v, dt, spec, e)
					assert.LessOrEqual(t, e, bound, "%s %s %s chunked", v, dt, spec)
				}
			}
			if dt != "float64" {
				continue
			}
			for _, spec := range run.specs {
				goSpec := spec
				if !v.IsMultiMixer() {
					goSpec = ""
				}
				want := goGenerate(t, run.ckpt[dt], run.promptToks, goSpec, gen)
				require.Len(t, want, gen)
				assert.Equal(t, want, res.Generate[spec], "%s %s greedy generation", v, spec)
				t.Logf("%-11s %s %-26s greedy: 32 tokens identical (%v...)", v, dt, spec, want[:8])
			}
		}
	}
}
