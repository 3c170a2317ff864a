package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInitThenGenerate runs the two subcommands end to end on a tiny random-weight checkpoint.
func TestInitThenGenerate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ckpt")
	var out, errOut bytes.Buffer
	require.NoError(t, initCmd([]string{"--preset", "tiny", "--variant", "oryx-tg", "--out", dir, "--seed", "3"}, &out, &errOut))
	assert.Contains(t, out.String(), "wrote "+dir+": oryx-tg, preset tiny")
	assert.Regexp(t, `parameters: total 108k .* tied 9\d\.\d%`, out.String())
	assert.Contains(t, out.String(), "tied fraction (shared / total): ")

	gen := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		require.NoError(t, generateCmd(append([]string{"--checkpoint", dir}, args...), &out, &errOut))
		assert.Empty(t, errOut.String(), "no progress line when stderr is not a terminal")
		return out.String()
	}
	args := []string{"--prompt", "Hello, Oryx", "--prompt", "ab", "--tokens", "1,2,3", "--schedule", "attention-last:4", "--max-tokens", "6"}
	first := gen(args...)
	assert.Contains(t, first, "[0] prompt: Hello, Oryx\n")
	assert.Contains(t, first, "[1] prompt: ab\n")
	assert.Contains(t, first, "[2] prompt: 1 2 3\n")
	assert.Regexp(t, `(?m)^\[2\] continuation: \d+ \d+ \d+ \d+ \d+ \d+$`, first)
	// Prompts of 11, 2 and 3 tokens with the last 4 (or all) in attention, then 5 fed generated tokens per
	// row in attention: (4 + 2 + 3 + 15) / (16 + 15) = 77.4 %.
	assert.Contains(t, first, "generated 18 tokens for 3 prompt(s)")
	assert.Contains(t, first, "attention fraction 77.4% of the tokens run")
	assert.Contains(t, first, "prefill ")
	assert.Contains(t, first, "for 16 prompt tokens")
	assert.Regexp(t, `\d+\.\d tokens/s decode`, first)
	// Greedy is deterministic.
	assert.Equal(t, stripTimes(first), stripTimes(gen(args...)))

	// All linear: no token in attention.
	lin := gen("--prompt-ids", "5,6,7", "--schedule", "linear", "--max-tokens", "3")
	assert.Contains(t, lin, "attention fraction 0.0%")
	// Budgets: 8 prompt tokens, 2 in attention, then 4 fed generated tokens under the running budget
	// (BudgetCount(0.25, 12) = 3): last spends it on the token at position 9; entropy escalates at most one.
	last := gen("--prompt-ids", "5,6,7,8,9,10,11,12", "--schedule", "budget:0.25:last", "--max-tokens", "5")
	assert.Contains(t, last, "attention fraction 25.0%")
	ent := gen("--prompt-ids", "5,6,7,8,9,10,11,12", "--schedule", "budget:0.25:entropy", "--max-tokens", "5")
	assert.Regexp(t, `attention fraction (16\.7|25\.0)%`, ent)
	// Sampling flags and a stop token run too.
	sampled := gen("--prompt", "xyz", "--temperature", "0.9", "--top-k", "50", "--top-p", "0.95", "--seed", "7",
		"--stop", "10,32", "--capacity", "64")
	assert.Contains(t, sampled, "[0] continuation: ")
}

var timesRE = regexp.MustCompile(`in [0-9.]+ s \([0-9.]+ tokens/s decode\); prefill [0-9.]+ s`)

func stripTimes(s string) string { return timesRE.ReplaceAllString(s, "") }

// TestGenerateFlagErrors: bad flags are refused with errors naming the flag.
func TestGenerateFlagErrors(t *testing.T) {
	dir := t.TempDir()
	cfg, err := oryx.Preset("tiny", oryx.Transformer)
	require.NoError(t, err)
	require.NoError(t, oryx.InitCheckpoint(dir, cfg, 1))
	small := t.TempDir()
	cfgSmall := cfg
	cfgSmall.Vocab = 64
	require.NoError(t, oryx.InitCheckpoint(small, cfgSmall, 1))

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--prompt", "x"}, "--checkpoint DIR is required"},
		{[]string{"--checkpoint", dir}, "at least one --prompt or --prompt-ids"},
		{[]string{"--checkpoint", dir, "--prompt", "x", "--schedule", "block"}, `--schedule "block": random schedules do not define generated-token modes`},
		{[]string{"--checkpoint", dir, "--prompt", "x", "--schedule", "sequence:0.3"}, `--schedule "sequence:0.3": random schedules`},
		{[]string{"--checkpoint", dir, "--prompt", "x", "--schedule", "attention-last:x"}, `--schedule "attention-last:x"`},
		{[]string{"--checkpoint", dir, "--prompt", "x", "--schedule", "budget:0.1:question"}, `--schedule "budget:0.1:question": the question policy needs`},
		{[]string{"--checkpoint", dir, "--prompt", "x", "--schedule", "budget:2:last"}, `--schedule "budget:2:last": budget fraction`},
		{[]string{"--checkpoint", dir, "--prompt", "x", "--max-tokens", "0"}, "--max-tokens must be in [1, 16777216], got 0"},
		{[]string{"--checkpoint", dir, "--prompt", "x", "--temperature", "-1"}, "--temperature"},
		{[]string{"--checkpoint", dir, "--prompt", "x", "--top-k", "-2"}, "--top-k"},
		{[]string{"--checkpoint", dir, "--prompt", "x", "--top-p", "1.5"}, "--top-p"},
		{[]string{"--checkpoint", dir, "--prompt", "x", "--stop", "a"}, "--stop"},
		{[]string{"--checkpoint", dir, "--prompt", "x", "--stop", "256"}, "--stop: token 256 is outside"},
		{[]string{"--checkpoint", dir, "--prompt-ids", "1,300"}, "--prompt-ids (prompt 0): token 300 is outside"},
		{[]string{"--checkpoint", dir, "--prompt", "hello", "--max-tokens", "8", "--capacity", "4"}, "--capacity 4 is too small"},
		{[]string{"--checkpoint", filepath.Join(dir, "nope"), "--prompt", "x"}, "--checkpoint: checkpoint"},
		{[]string{"--checkpoint", small, "--prompt", "x"}, "outside the model's vocabulary [0, 64)"},
		{[]string{"--checkpoint", small, "--prompt", "x", "--tokenizer", "nope.txt"}, "--tokenizer"},
		{[]string{"--checkpoint", dir, "--tokens", "1,x"}, `"x" is not a token id`},
		{[]string{"--checkpoint", dir, "--prompt", ""}, "empty prompt"},
		{[]string{"--checkpoint", dir, "--prompt", "x", "--speculative", "often"}, `want auto or a draft length K ≥ 0, got "often"`},
		{[]string{"--checkpoint", dir, "--prompt", "x", "--speculative", "65"}, "--speculative must be auto or in [0, 64]"},
		{[]string{"--checkpoint", dir, "--prompt", "x", "--speculative", "auto"}, "--speculative: the checkpoint's variant transformer has one readout"},
	} {
		var out, errOut bytes.Buffer
		err := generateCmd(c.args, &out, &errOut)
		require.Error(t, err, strings.Join(c.args, " "))
		assert.Contains(t, err.Error(), c.want, strings.Join(c.args, " "))
	}
}

// TestInitFlagErrors: init needs --out, refuses unknown presets and existing checkpoints.
func TestInitFlagErrors(t *testing.T) {
	var out, errOut bytes.Buffer
	require.ErrorContains(t, initCmd(nil, &out, &errOut), "--out DIR is required")
	require.ErrorContains(t, initCmd([]string{"--out", t.TempDir(), "--preset", "huge"}, &out, &errOut), `unknown preset "huge"`)
	require.ErrorContains(t, initCmd([]string{"--out", t.TempDir(), "--config", "x.json", "--preset", "tiny"}, &out, &errOut),
		"--config cannot be combined")
	dir := t.TempDir()
	require.NoError(t, initCmd([]string{"--out", dir, "--variant", "mamba2"}, &out, &errOut))
	require.ErrorContains(t, initCmd([]string{"--out", dir}, &out, &errOut), "already holds 1 checkpoint")
	// --config: a JSON config file.
	cfgPath := filepath.Join(t.TempDir(), "c.json")
	cfg, err := oryx.Preset("tiny", oryx.GDN)
	require.NoError(t, err)
	require.NoError(t, oryx.SaveConfig(cfg, cfgPath))
	out.Reset()
	require.NoError(t, initCmd([]string{"--out", t.TempDir(), "--config", cfgPath}, &out, &errOut))
	assert.Contains(t, out.String(), "gdn, config "+cfgPath)
	assert.Contains(t, out.String(), "tied fraction (shared / total): n/a")
}

func TestInfo(t *testing.T) {
	var out, errOut strings.Builder
	require.NoError(t, infoCmd([]string{"--preset", "130m", "--variant", "oryx-tg", "--seq-len", "2048",
		"--schedule", "attention", "--schedule", "attention-last:128"}, &out, &errOut))
	text := out.String()
	for _, want := range []string{"parameters:", "tied", "per token of context", "attention-last:128", "gathered"} {
		require.Contains(t, text, want)
	}
	require.ErrorContains(t, infoCmd([]string{"--schedule", "block:0"}, &out, &errOut), "--schedule")
	require.ErrorContains(t, infoCmd([]string{"--T", "0"}, &out, &errOut), "--seq-len") // the deprecated alias still works
}

func TestSynth(t *testing.T) {
	dir := t.TempDir()
	var out, errOut strings.Builder
	for _, kind := range []string{"mqar", "synthlang"} {
		path := dir + "/" + kind + ".parquet"
		require.NoError(t, synthCmd([]string{"--kind", kind, "--out", path, "--n", "20", "--seq-len", "64", "--pairs", "4"}, &out, &errOut))
		set, err := hfparquet.Open(path)
		require.NoError(t, err)
		rows, err := set.NumRows()
		require.NoError(t, err)
		require.EqualValues(t, 20, rows)
	}
	require.ErrorContains(t, synthCmd([]string{"--kind", "nope", "--out", dir + "/x.parquet"}, &out, &errOut), "--kind")
	require.ErrorContains(t, synthCmd([]string{"--kind", "mqar"}, &out, &errOut), "--out")
}
