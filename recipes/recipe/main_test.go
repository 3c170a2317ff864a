package recipe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/human"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/recipes/train"
)

func TestRecipeTable(t *testing.T) {
	require.Len(t, Names(), 30)
	for _, size := range []string{"tiny", "small", "130m", "370m", "760m", "1.4b"} {
		var budget int64
		for _, v := range oryx.Variants {
			r, err := Lookup(string(v) + "-" + size)
			require.NoError(t, err)
			require.NoError(t, r.Train.WithDefaults().Validate(), r.Name)
			b := int64(r.Train.Steps) * r.Train.TokensPerStep()
			if budget == 0 {
				budget = b
			}
			require.Equal(t, budget, b, "%s: every variant of a size has the same token budget", r.Name)
			_, err = r.ModelConfig(258)
			require.NoError(t, err)
		}
	}
	_, err := Lookup("oryx-tg-2b")
	require.ErrorContains(t, err, "oryx-tg-1.4b")

	// The CPU sizes: byte tokenizer and the synthetic language by default, the vocabulary padded to the
	// tokenizer's (258 byte ids → 320), the preset's width and depth kept.
	for _, size := range []string{"tiny", "small"} {
		for _, v := range oryx.Variants {
			r, err := Lookup(string(v) + "-" + size)
			require.NoError(t, err)
			require.Equal(t, size, r.Preset)
			require.Equal(t, v, r.Variant)
			require.Equal(t, "synth", r.Data, r.Name)
			require.Equal(t, "bytes", r.Tokenizer, r.Name)
			require.True(t, r.PadVocabToTokenizer, r.Name)
			cfg, err := r.ModelConfig(258)
			require.NoError(t, err)
			want, err := oryx.Preset(size, v)
			require.NoError(t, err)
			require.Equal(t, 320, cfg.Vocab, r.Name)
			require.Equal(t, want.DModel, cfg.DModel, r.Name)
			require.Equal(t, want.Layers, cfg.Layers, r.Name)
		}
	}
}

// TestRecipeCommands: every recipe has its command, recipes/<name>/main.go, and that command runs that recipe.
func TestRecipeCommands(t *testing.T) {
	for _, name := range Names() {
		src, err := os.ReadFile(filepath.Join("..", name, "main.go"))
		require.NoError(t, err, "recipe %s has no command recipes/%s/main.go", name, name)
		require.Contains(t, string(src), fmt.Sprintf("recipe.Main(%q)", name), "recipes/%s/main.go", name)
	}
}

func TestPlanJSON(t *testing.T) {
	var out, errb bytes.Buffer
	require.NoError(t, MainArgs("oryx-tm-130m", []string{"--plan"}, &out, &errb))
	var p Plan
	require.NoError(t, json.Unmarshal(out.Bytes(), &p))
	rep := oryx.CountParams(p.Model)
	require.Equal(t, rep.Total, p.Params)
	require.Equal(t, "130m", p.Preset)
	require.Equal(t, 2048, p.Train.SeqLen)
	if backend.IsPureGo(backend.MustGet()) {
		require.Equal(t, "f32", p.Train.Precision, "bf16 is not used on the pure-Go backend unless asked for")
	} else {
		rec, err := Lookup("oryx-tm-130m")
		require.NoError(t, err)
		require.Equal(t, rec.Train.Precision, p.Train.Precision, "XLA keeps the recipe's precision")
	}
	require.Equal(t, p.Train.Batch/p.Train.MicroBatch, p.AccumSteps)
	require.InDelta(t, 3*oryx.FLOPsPerToken(p.Model, 2048, 0.5), p.FLOPsPerToken, 1)
	require.Greater(t, p.ProbeGFLOPs, 0.0)
	require.Greater(t, p.EstimatedHours, 0.0)

	// --tokens/--batch keep or set the budget; steps follow.
	out.Reset()
	require.NoError(t, MainArgs("gdn-tiny", []string{"--plan", "--batch", "8", "--tokens", "204800"}, &out, &errb))
	require.NoError(t, json.Unmarshal(out.Bytes(), &p))
	require.Equal(t, 8, p.Train.Batch)
	require.Equal(t, 8, p.Train.MicroBatch)
	require.Equal(t, 100, p.Train.Steps)
	require.Equal(t, 320, p.Model.Vocab, "tiny recipes pad the vocabulary to the byte tokenizer's")
}

func TestMainErrors(t *testing.T) {
	var out, errb bytes.Buffer
	// Every call names a run directory under the test's temporary directory: a call that trained by mistake
	// (as one did on a backend with more devices) would otherwise write runs/<recipe> into the package.
	run := filepath.Join(t.TempDir(), "run")
	err := MainArgs("oryx-tg-1.4b", []string{"--out", run, "--data", "x", "--tokenizer", "bytes"}, &out, &errb)
	require.ErrorContains(t, err, "does not fit this machine")
	require.ErrorContains(t, err, "xla")
	err = MainArgs("oryx-tg-130m", []string{"--out", run, "--steps", "1", "--batch", "1", "--seq-len", "64"}, &out, &errb)
	require.ErrorContains(t, err, "needs --data")
	// More devices than the backend has (a power of two, so that it divides the micro-batch as asked).
	n := backend.MustGet().NumDevices()
	err = MainArgs("oryx-tg-tiny", []string{"--out", run, "--devices", fmt.Sprint(2 * n), "--batch", fmt.Sprint(2 * n)}, &out, &errb)
	require.ErrorContains(t, err, fmt.Sprintf("has %d device", n))
	err = MainArgs("oryx-tg-tiny", []string{"--out", run, "--micro-batch", "5"}, &out, &errb)
	require.ErrorContains(t, err, "micro_batch")
	err = MainArgs("oryx-tg-tiny", []string{"--out", run, "--tokenizer", "nope.txt"}, &out, &errb)
	require.ErrorContains(t, err, "--tokenizer")
	err = MainArgs("oryx-tg-tiny", []string{"--out", run, "extra"}, &out, &errb)
	require.ErrorContains(t, err, "unexpected arguments")
	require.NoDirExists(t, run, "a refused run creates nothing")
}

func TestMainTrainsTinyRecipe(t *testing.T) {
	var out, errb bytes.Buffer
	dir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, MainArgs("mamba2-tiny", []string{"--out", dir, "--steps", "3", "--batch", "2", "--seq-len", "32",
		"--eval-batches", "1"}, &out, &errb), errb.String())
	var s train.Summary
	require.NoError(t, json.Unmarshal(out.Bytes(), &s))
	require.Equal(t, 3, s.Steps)
	require.Contains(t, s.ValLoss, "linear")
}

// TestPlanHardware: --plan --hardware sizes the run for a named GPU and --devices: the step time is the
// step's model FLOPs over devices × peak × MFU, activations are split across devices while weights,
// optimizer state and gradients are replicated, and a run too big for one device does not fit.
func TestPlanHardware(t *testing.T) {
	var out, errb bytes.Buffer
	require.NoError(t, MainArgs("oryx-tg-1.4b", []string{"--plan", "--hardware", "h100-80g", "--devices", "2", "--mfu", "0.5"}, &out, &errb))
	var p Plan
	require.NoError(t, json.Unmarshal(out.Bytes(), &p))
	h := p.Hardware
	require.NotNil(t, h)
	require.Equal(t, "h100-80g", h.Name)
	require.Equal(t, 2, h.Devices)
	require.Equal(t, "bf16", p.Train.Precision, "a GPU plan uses the recipe's precision")
	require.InDelta(t, p.FLOPsPerToken*float64(p.TokensPerStep)/(989e12*0.5*2), h.StepSeconds, 1e-9)
	require.InDelta(t, h.StepSeconds*float64(p.Train.Steps)/3600, h.TotalHours, 1e-9)
	m := p.MemoryDetail
	require.Equal(t, m.Weights+m.Optimizer+m.Gradients+m.Accumulator+m.Activations/2, h.MemoryPerDevice)
	require.True(t, h.Fits)
	require.Equal(t, h.Fits, p.Fits)
	require.Contains(t, errb.String(), fmt.Sprintf("oryx-tg-1.4b on 2 × h100-80g: %s parameters, %s tokens", human.Int(p.Params), human.Int(p.Tokens)))
	require.Contains(t, errb.String(), "(fits); step ")

	// 64 sequences of 2048 tokens per micro-batch cannot fit one A100's 80 GiB.
	out.Reset()
	errb.Reset()
	require.NoError(t, MainArgs("oryx-tg-1.4b", []string{"--plan", "--hardware", "a100-80g", "--micro-batch", "64"}, &out, &errb))
	require.NoError(t, json.Unmarshal(out.Bytes(), &p))
	require.False(t, p.Hardware.Fits)
	require.False(t, p.Fits)
	require.Contains(t, p.Advice, "per device")
	require.Contains(t, errb.String(), "does NOT fit")

	require.ErrorContains(t, MainArgs("gdn-tiny", []string{"--plan", "--hardware", "tpu"}, &out, &errb), "cpu-here, a100-80g, h100-80g, h200")
	require.ErrorContains(t, MainArgs("gdn-tiny", []string{"--plan", "--hardware", "h200", "--mfu", "2"}, &out, &errb), "--mfu")
	for _, h := range Hardwares {
		require.NotEmpty(t, h.Source, h.Name)
	}
}

// TestMainHostileFlags: the campaign's flag values are errors naming the flag, before anything runs.
func TestMainHostileFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--steps", "9223372036854775807", "--plan"}, "steps: 9223372036854775807 × 4096 tokens per step overflows the token count"},
		{[]string{"--tokens", "-5", "--plan"}, "--tokens must be > 0, got -5"},
		{[]string{"--tokens", "0", "--plan"}, "--tokens must be > 0, got 0"},
		{[]string{"--tokens", "100", "--plan"}, "--tokens 100 is less than one step"},
		{[]string{"--seq-len", "2000000000", "--plan"}, "seq_len: 2000000000, must be in [1, 16777216]"},
		{[]string{"--batch", "2000000000", "--plan"}, "batch: 2000000000, must be in [1, 1048576]"},
	} {
		var out, errb bytes.Buffer
		err := MainArgs("oryx-tg-tiny", append([]string{"--out", filepath.Join(t.TempDir(), "run")}, c.args...), &out, &errb)
		require.ErrorContains(t, err, c.want, c.args)
	}
}
