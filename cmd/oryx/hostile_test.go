package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/clitest"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/internal/runwriter"
	"github.com/oryx-go/oryx/oryx"
)

func TestMain(m *testing.M) {
	clitest.RunMainIfChild("oryx", main)
	os.Exit(m.Run())
}

// hostileConfig writes the tiny preset's config with edits, plus trailing text.
func hostileConfig(t *testing.T, dir, name string, edits map[string]any, trailing string) string {
	t.Helper()
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	data, err := json.Marshal(cfg)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	for k, v := range edits {
		m[k] = v
	}
	data, err = json.Marshal(m)
	require.NoError(t, err)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, append(data, trailing...), 0o644))
	return path
}

// TestHostileInputs runs the bad-input campaign's inputs through the real `oryx` command: every one is an
// exit code 1 with a message naming the flag, field or file, never a panic or an out-of-memory crash.
func TestHostileInputs(t *testing.T) {
	tmp := t.TempDir()
	cfgFile := func(name string, edits map[string]any, trailing string) string {
		return hostileConfig(t, tmp, name, edits, trailing)
	}
	ckpt := filepath.Join(tmp, "ckpt")
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	require.NoError(t, oryx.InitCheckpoint(ckpt, cfg, 1))

	// A checkpoint whose config.json was edited after the weights were saved (rope true → false).
	edited := filepath.Join(tmp, "edited")
	require.NoError(t, oryx.InitCheckpoint(edited, cfg, 1))
	hostileConfig(t, edited, oryx.ConfigFileName, map[string]any{"rope": false}, "")

	// Checkpoints whose run.json sends the tokenizer out of the run directory.
	outside := func(name, spec string) string {
		dir := filepath.Join(tmp, name)
		require.NoError(t, oryx.InitCheckpoint(dir, cfg, 1))
		data, _ := json.Marshal(map[string]string{"tokenizer": spec})
		require.NoError(t, os.WriteFile(filepath.Join(dir, "run.json"), data, 0o644))
		return dir
	}
	absTok := outside("abs", "/etc/shadow.json")
	dotTok := outside("dotdot", "../../secrets/tokenizer.json")

	// Tokenizer files with hostile ids, and a file that is not JSON at all.
	tok := func(name, vocab, added string) string {
		p := filepath.Join(tmp, name)
		s := `{"added_tokens": [{"id": 0, "content": "<|endoftext|>", "normalized": false, "special": true}` + added + `],
  "normalizer": null, "pre_tokenizer": {"type": "ByteLevel"}, "decoder": {"type": "ByteLevel"},
  "model": {"type": "BPE", "vocab": ` + vocab + `, "merges": []}}`
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
		return p
	}
	bigID := tok("big-id.json", `{"<|endoftext|>": 0, "a": 5000000000}`, "")
	bigAdded := tok("big-added.json", `{"<|endoftext|>": 0, "a": 1}`, `, {"id": 2147483647, "content": "<x>"}`)
	oneID := tok("one-id.json", `{"<|endoftext|>": 0, "a": 0, "b": 0, "c": 0}`, "")
	secret := filepath.Join(tmp, "secret.json")
	require.NoError(t, os.WriteFile(secret, []byte("Qpassword\n"), 0o600))

	gen := []string{"generate", "--checkpoint", ckpt, "--prompt", "hi"}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"init d_model 1e9", []string{"init", "--out", filepath.Join(tmp, "o1"), "--config", cfgFile("d.json", map[string]any{"d_model": 1e9}, "")},
			[]string{"config field d_model: 1000000000 is above the supported maximum"}},
		{"init vocab 2e9", []string{"init", "--out", filepath.Join(tmp, "o2"), "--config", cfgFile("v.json", map[string]any{"vocab": 2e9}, "")},
			[]string{"config field vocab"}},
		{"init heads 1e8", []string{"init", "--out", filepath.Join(tmp, "o3"), "--config", cfgFile("h.json", map[string]any{"heads": 1e8}, "")},
			[]string{"config field heads"}},
		{"init layers 1e8", []string{"init", "--out", filepath.Join(tmp, "o4"), "--config", cfgFile("l.json", map[string]any{"layers": 1e8}, "")},
			[]string{"config field layers"}},
		{"init conv_width 1e6", []string{"init", "--out", filepath.Join(tmp, "o5"), "--config", cfgFile("c.json", map[string]any{"conv_width": 1e6}, "")},
			[]string{"config field conv_width"}},
		{"init trailing data", []string{"init", "--out", filepath.Join(tmp, "o6"), "--config", cfgFile("t.json", nil, "{}")},
			[]string{"trailing data after the JSON object", "t.json"}},
		{"init near-limit sizes", []string{"init", "--out", filepath.Join(tmp, "o7"), "--config", cfgFile("big.json",
			map[string]any{"d_model": 8192, "vocab": 1 << 20, "mlp_hidden": 32768, "layers": 64}, "")},
			[]string{"init: writing the weights of", "of memory, this machine has"}},
		{"info d_model 1e9", []string{"info", "--config", cfgFile("d2.json", map[string]any{"d_model": 1e9}, "")},
			[]string{"config field d_model"}},
		{"generate edited rope", []string{"generate", "--checkpoint", edited, "--prompt", "hi"},
			[]string{"--checkpoint", "rope: false vs true"}},
		{"generate absolute run.json tokenizer", []string{"generate", "--checkpoint", absTok, "--prompt", "hi"},
			[]string{"--checkpoint", `"/etc/shadow.json" is outside the run directory`, "--tokenizer"}},
		{"generate ../.. run.json tokenizer", []string{"generate", "--checkpoint", dotTok, "--prompt", "hi"},
			[]string{"outside the run directory"}},
		{"generate tokenizer id 5e9", append(gen, "--tokenizer", bigID), []string{"--tokenizer", bigID, "id 5000000000"}},
		{"generate added id 2147483647", append(gen, "--tokenizer", bigAdded), []string{bigAdded, "id 2147483647"}},
		{"generate one id for all", append(gen, "--tokenizer", oneID), []string{oneID, "have the same id 0"}},
		{"generate non-JSON tokenizer", append(gen, "--tokenizer", secret), []string{secret, "invalid JSON at byte 1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := clitest.Run(t, nil, c.args...)
			res.Check(t, 1, c.want...)
			require.NotContains(t, res.Output, "Qpassword")
		})
	}
	for _, o := range []string{"o1", "o2", "o3", "o4", "o5", "o6", "o7"} {
		require.NoDirExists(t, filepath.Join(tmp, o), "a refused init creates nothing")
	}

	// info describes any valid config, but says when its weights cannot be held here.
	res := clitest.Run(t, nil, "info", "--config", cfgFile("huge.json", map[string]any{"d_model": 8192, "vocab": 1 << 20,
		"mlp_hidden": 32768, "layers": 64}, ""))
	res.Check(t, 0, "note: the float32 weights alone need")
}

// TestInitRefusesLockedDirectory: `oryx init` on a directory another process is writing is refused.
func TestInitRefusesLockedDirectory(t *testing.T) {
	dir := t.TempDir()
	lock, err := runwriter.Open(dir, runwriter.Options{Command: "a training run"})
	require.NoError(t, err)
	res := clitest.Run(t, nil, "init", "--out", dir)
	res.Check(t, 1, "--out: run directory in use", dir, "(a training run)")
	require.NoError(t, lock.Close())
	res = clitest.Run(t, nil, "init", "--out", dir)
	res.Check(t, 0, "wrote "+dir)
	require.NoFileExists(t, filepath.Join(dir, rundir.LockFile))
	require.False(t, strings.Contains(res.Output, "stale"))
}

// TestExitCodes: a mistake in the command line exits 2 (an unknown subcommand or flag, a value that does not
// parse or is out of range, a missing required flag); a failure of the work (a file or checkpoint that is not
// there) exits 1; -h exits 0.
func TestExitCodes(t *testing.T) {
	tmp := t.TempDir()
	missing := filepath.Join(tmp, "missing")
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"frobnicate"}, 2, []string{`unknown subcommand "frobnicate"`}},
		{[]string{"info", "--bogus"}, 2, []string{"flag provided but not defined: -bogus"}},
		{[]string{"info", "--seq-len", "long"}, 2, []string{`invalid value "long" for flag -seq-len`}},
		{[]string{"info", "--seq-len", "0"}, 2, []string{"--seq-len must be in"}},
		{[]string{"info", "--preset", "huge"}, 2, []string{`--preset "huge"`}},
		{[]string{"init", "--seed", "x"}, 2, []string{`invalid value "x" for flag -seed`}},
		{[]string{"init"}, 2, []string{"--out DIR is required"}},
		{[]string{"synth", "--out", filepath.Join(tmp, "s.parquet"), "--kind", "poetry"}, 2, []string{"--kind must be"}},
		{[]string{"tokenize", "--workers", "-1", "--input", missing, "--out", tmp, "--tokenizer", "bytes"}, 2, []string{"--workers must be >= 0"}},
		{[]string{"export", "--out", tmp}, 2, []string{"--checkpoint is required"}},
		{[]string{"selfcheck", "-T", "0"}, 2, []string{"-T and -chunk must be > 0"}},
		{[]string{"info", "-h"}, 0, []string{"-seq-len"}},
		{[]string{"info", "--config", missing}, 1, []string{missing}},
		{[]string{"export", "--checkpoint", missing, "--out", filepath.Join(tmp, "hf")}, 1, []string{missing}},
		{[]string{"generate", "--checkpoint", missing, "--prompt", "hi"}, 1, []string{missing}},
		{[]string{"generate", "--bogus"}, 2, []string{"flag provided but not defined: -bogus"}},
		{[]string{"generate", "--checkpoint", missing, "--prompt", "hi", "--max-tokens", "2000000000"}, 2, []string{"--max-tokens must be in [1, 16777216]"}},
		{[]string{"generate", "--checkpoint", missing, "--prompt", "hi", "--max-tokens", "9223372036854775807"}, 2, []string{"--max-tokens must be in"}},
		{[]string{"generate", "--checkpoint", missing, "--prompt", "hi", "--capacity", "2000000000"}, 2, []string{"--capacity must be in [0, 16777216]"}},
		{[]string{"generate", "--checkpoint", missing, "--prompt", "hi", "--stop", "x"}, 2, []string{"--stop"}},
		{[]string{"generate", "--prompt", "hi"}, 2, []string{"--checkpoint DIR is required"}},
		{[]string{"generate", "--checkpoint", missing, "--prompt", "hi", "extra"}, 2, []string{"unexpected arguments"}},
	} {
		t.Run(strings.ReplaceAll(strings.Join(c.args, " "), tmp, "TMP"), func(t *testing.T) {
			clitest.Run(t, nil, c.args...).Check(t, c.code, c.want...)
		})
	}
}
