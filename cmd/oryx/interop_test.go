package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/internal/runwriter"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/hf"
	"github.com/stretchr/testify/require"
)

// TestExportImportCommands: init → export → import → generate gives the same continuation from the
// imported checkpoint as from the original one; usage mistakes are usage errors (exit status 2).
func TestExportImportCommands(t *testing.T) {
	dir := t.TempDir()
	ckpt, exp, back := filepath.Join(dir, "ckpt"), filepath.Join(dir, "hf"), filepath.Join(dir, "back")
	var out, errOut bytes.Buffer
	require.NoError(t, initCmd([]string{"--preset", "tiny", "--variant", "gdn", "--out", ckpt, "--seed", "5"}, &out, &errOut))
	out.Reset()
	require.NoError(t, exportCmd([]string{"--checkpoint", ckpt, "--format", "safetensors", "--out", exp}, &out, &errOut))
	require.Contains(t, out.String(), "model.safetensors")
	require.NoError(t, importCmd([]string{"--from", exp, "--out", back}, &out, &errOut))
	require.Contains(t, out.String(), "with its tokenizer (bytes)")
	gen := func(c string) string {
		var o, e bytes.Buffer
		require.NoError(t, generateCmd([]string{"--checkpoint", c, "--prompt", "ab", "--max-tokens", "5"}, &o, &e))
		return o.String()
	}
	a, b := gen(ckpt), gen(back)
	require.Equal(t, continuation(t, a), continuation(t, b))

	for _, args := range [][]string{{"--out", exp}, {"--checkpoint", ckpt}, {"--checkpoint", ckpt, "--out", exp, "--format", "gguf"}} {
		err := exportCmd(args, &out, &errOut)
		require.True(t, cli.IsUsage(err), "%v: %v", args, err)
	}
	require.True(t, cli.IsUsage(importCmd([]string{"--out", back}, &out, &errOut)))
	require.ErrorContains(t, importCmd([]string{"--from", exp, "--out", back}, &out, &errOut), "already holds")
}

// continuation returns the "[0] continuation: ..." line of generate's output.
func continuation(t *testing.T, s string) string {
	for _, line := range bytes.Split([]byte(s), []byte("\n")) {
		if bytes.HasPrefix(line, []byte("[0] continuation:")) {
			return string(line)
		}
	}
	t.Fatalf("no continuation line in %q", s)
	return ""
}

// TestImportedHalfPrecisionExportsGenerate runs the exact hostile input: an export converted to bfloat16
// (or float16, or float64) by a Hugging Face tool, imported, then generate. bf16 used to panic in generate
// ("unexpected dtype BFloat16") and f16 to fail inside GoMLX; now 16-bit weights are converted to float32
// on import (saying so) and every case generates.
func TestImportedHalfPrecisionExportsGenerate(t *testing.T) {
	dir := t.TempDir()
	ckpt, exp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "hf")
	var out, errOut bytes.Buffer
	require.NoError(t, initCmd([]string{"--preset", "tiny", "--variant", "oryx-tg", "--out", ckpt, "--seed", "5"}, &out, &errOut))
	require.NoError(t, exportCmd([]string{"--checkpoint", ckpt, "--out", exp}, &out, &errOut))
	ts, meta, err := hf.ReadSafetensors(filepath.Join(exp, hf.WeightsFile))
	require.NoError(t, err)
	cfgData, err := os.ReadFile(filepath.Join(exp, hf.ConfigFile))
	require.NoError(t, err)
	for _, c := range []struct{ st, torch string }{{"BF16", "bfloat16"}, {"F16", "float16"}, {"F64", "float64"}} {
		t.Run(c.torch, func(t *testing.T) {
			conv := filepath.Join(t.TempDir(), "hf-"+c.torch)
			require.NoError(t, os.MkdirAll(conv, 0o755))
			var cts []hf.Tensor
			for _, x := range ts {
				cts = append(cts, convertTensor(t, x, c.st))
			}
			require.NoError(t, hf.WriteSafetensors(filepath.Join(conv, hf.WeightsFile), cts, meta))
			cfg := strings.Replace(string(cfgData), `"torch_dtype": "float32"`, `"torch_dtype": "`+c.torch+`"`, 1)
			require.NoError(t, os.WriteFile(filepath.Join(conv, hf.ConfigFile), []byte(cfg), 0o644))
			back := filepath.Join(t.TempDir(), "back")
			var o, e bytes.Buffer
			require.NoError(t, importCmd([]string{"--from", conv, "--out", back}, &o, &e))
			if c.st != "F64" {
				require.Contains(t, o.String(), "converted the")
				require.Contains(t, o.String(), c.torch+" tensors to float32")
			} else {
				require.NotContains(t, o.String(), "converted")
			}
			o.Reset()
			require.NoError(t, generateCmd([]string{"--checkpoint", back, "--prompt", "ab", "--max-tokens", "5"}, &o, &e))
			continuation(t, o.String())
		})
	}
}

// convertTensor converts an F32 tensor to BF16 (truncated), F16 (truncated; the tiny model's weights are in
// its normal range) or F64.
func convertTensor(t *testing.T, x hf.Tensor, dtype string) hf.Tensor {
	require.Equal(t, "F32", x.DType)
	n := len(x.Data) / 4
	size := map[string]int{"BF16": 2, "F16": 2, "F64": 8}[dtype]
	data := make([]byte, size*n)
	for i := range n {
		bits := binary.LittleEndian.Uint32(x.Data[4*i:])
		f := math.Float32frombits(bits)
		switch dtype {
		case "BF16":
			binary.LittleEndian.PutUint16(data[2*i:], uint16(bits>>16))
		case "F16":
			sign, exp, mant := uint16(bits>>16)&0x8000, int(bits>>23&0xff)-112, bits&0x7fffff
			h := sign
			if exp > 0 && exp < 31 {
				h |= uint16(exp)<<10 | uint16(mant>>13)
			}
			binary.LittleEndian.PutUint16(data[2*i:], h)
		case "F64":
			binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(float64(f)))
		}
	}
	return hf.Tensor{Name: x.Name, DType: dtype, Shape: x.Shape, Data: data}
}

// TestWritersRefuseOtherCommandsOutput runs the exact inputs that replaced another command's config.json:
// `export --out` a run directory (its own checkpoint), `import --out` the export it reads, `init --out` an
// export. Each is refused naming the path and what it holds, the file is left as it was, and --force writes.
func TestWritersRefuseOtherCommandsOutput(t *testing.T) {
	dir := t.TempDir()
	ckpt, exp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "hf")
	var out, errOut bytes.Buffer
	require.NoError(t, initCmd([]string{"--preset", "tiny", "--variant", "gdn", "--out", ckpt, "--seed", "5"}, &out, &errOut))
	require.NoError(t, exportCmd([]string{"--checkpoint", ckpt, "--out", exp}, &out, &errOut))
	runConfig, err := os.ReadFile(filepath.Join(ckpt, "config.json"))
	require.NoError(t, err)
	expConfig, err := os.ReadFile(filepath.Join(exp, "config.json"))
	require.NoError(t, err)

	err = exportCmd([]string{"--checkpoint", ckpt, "--out", ckpt}, &out, &errOut)
	require.ErrorContains(t, err, "--out "+ckpt+" holds a run directory")
	err = importCmd([]string{"--from", exp, "--out", exp}, &out, &errOut)
	require.ErrorContains(t, err, "--out "+exp+" holds an export")
	err = initCmd([]string{"--preset", "tiny", "--variant", "gdn", "--out", exp}, &out, &errOut)
	require.ErrorContains(t, err, "--out "+exp+" holds an export")
	got, err := os.ReadFile(filepath.Join(ckpt, "config.json"))
	require.NoError(t, err)
	require.Equal(t, string(runConfig), string(got), "the run's config.json is unchanged")
	got, err = os.ReadFile(filepath.Join(exp, "config.json"))
	require.NoError(t, err)
	require.Equal(t, string(expConfig), string(got), "the export's config.json is unchanged")
	// A rerun of the same export replaces its own output.
	require.NoError(t, exportCmd([]string{"--checkpoint", ckpt, "--out", exp}, &out, &errOut))
	// --force writes anyway.
	require.NoError(t, exportCmd([]string{"--checkpoint", ckpt, "--out", filepath.Join(dir, "ckpt2"), "--force"}, &out, &errOut))
}

// TestImportRefusesLockedDirectory runs a hostile input of the fourth campaign: `oryx import` into a
// directory a trainer holds (its lock taken, as Train takes it) is refused naming the path and the holder,
// and writes nothing there; once the holder is gone the same import succeeds.
func TestImportRefusesLockedDirectory(t *testing.T) {
	exp := exportForImport(t)
	dir := t.TempDir()
	lock, err := runwriter.Open(dir, runwriter.Options{Command: "a training run"})
	require.NoError(t, err)
	var out, errOut bytes.Buffer
	err = importCmd([]string{"--from", exp, "--out", dir}, &out, &errOut)
	require.ErrorContains(t, err, "run directory in use")
	require.ErrorContains(t, err, dir)
	require.ErrorContains(t, err, "(a training run)")
	names, err := oryx.ListCheckpoints(dir)
	require.NoError(t, err)
	require.Empty(t, names, "a refused import writes no checkpoint")
	require.NoFileExists(t, filepath.Join(dir, "config.json"))
	require.NoError(t, lock.Close())
	require.NoError(t, importCmd([]string{"--from", exp, "--out", dir}, &out, &errOut))
}

// TestConcurrentImportsOneWins runs a hostile input of the fourth campaign: two `oryx import`s into one
// fresh directory at the same moment, several rounds. Exactly one succeeds each round; the other is refused
// with a message (the directory is in use, or already holds the winner's checkpoint), and the directory
// holds the one checkpoint.
func TestConcurrentImportsOneWins(t *testing.T) {
	exp := exportForImport(t)
	for round := range 4 {
		dir := filepath.Join(t.TempDir(), "back")
		errs := make([]error, 2)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var out, errOut bytes.Buffer
				<-start
				errs[i] = importCmd([]string{"--from", exp, "--out", dir}, &out, &errOut)
			}()
		}
		close(start)
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
				continue
			}
			require.Regexp(t, "run directory in use|already holds 1 checkpoint", err.Error(), "round %d", round)
			require.ErrorContains(t, err, dir)
		}
		require.Equal(t, 1, ok, "round %d: exactly one import succeeds (errors: %v)", round, errs)
		names, err := oryx.ListCheckpoints(dir)
		require.NoError(t, err)
		require.Len(t, names, 1, "round %d", round)
	}
}

// exportForImport writes a tiny checkpoint and its export, returning the export directory.
func exportForImport(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ckpt, exp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "hf")
	var out, errOut bytes.Buffer
	require.NoError(t, initCmd([]string{"--preset", "tiny", "--variant", "gdn", "--out", ckpt, "--seed", "5"}, &out, &errOut))
	require.NoError(t, exportCmd([]string{"--checkpoint", ckpt, "--out", exp}, &out, &errOut))
	return exp
}
