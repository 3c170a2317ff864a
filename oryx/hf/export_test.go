package hf

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bytesConfig is the tiny Oryx-TG preset with a vocabulary that holds the byte tokenizer's 258 ids (as `oryx
// init`'s default does).
func bytesConfig(t *testing.T) oryx.Config {
	c, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	c.Vocab = 320
	require.NoError(t, c.Validate())
	return c
}

func readJSONMap(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m), path)
	return m
}

// TestExportFolderIsComplete: an export of a checkpoint without a run record carries the byte tokenizer as
// tokenizer.json (ByteTokenizer.HFJSON) with tokenizer_config.json and special_tokens_map.json, the special
// token ids in config.json and generation_config.json, a model card and metadata that states the model; an
// import of it exported again gives every file byte for byte, and the weights bit for bit.
func TestExportFolderIsComplete(t *testing.T) {
	cfg := bytesConfig(t)
	dir := t.TempDir()
	ckpt, exp, back, again := filepath.Join(dir, "ckpt"), filepath.Join(dir, "export"), filepath.Join(dir, "back"), filepath.Join(dir, "again")
	require.NoError(t, oryx.InitCheckpoint(ckpt, cfg, 3))
	info, err := ExportWith(ckpt, exp, ExportOptions{})
	require.NoError(t, err)
	assert.Equal(t, exportFiles, info.Files)
	assert.Equal(t, "bytes", info.Tokenizer)
	assert.Empty(t, info.TokenizerNote)

	tokJSON, err := os.ReadFile(filepath.Join(exp, TokenizerFile))
	require.NoError(t, err)
	assert.Equal(t, tokenizers.NewByteTokenizer().HFJSON(), tokJSON)
	hc := readJSONMap(t, filepath.Join(exp, ConfigFile))
	assert.EqualValues(t, 256, hc["bos_token_id"])
	assert.EqualValues(t, 256, hc["eos_token_id"])
	assert.EqualValues(t, 257, hc["pad_token_id"])
	assert.Equal(t, "PreTrainedTokenizerFast", hc["tokenizer_class"])
	gc := readJSONMap(t, filepath.Join(exp, GenerationConfigFile))
	assert.Equal(t, map[string]any{"bos_token_id": 256.0, "eos_token_id": 256.0, "pad_token_id": 257.0, "do_sample": false}, gc)
	tc := readJSONMap(t, filepath.Join(exp, TokenizerConfigFile))
	assert.Equal(t, "PreTrainedTokenizerFast", tc["tokenizer_class"])
	assert.Equal(t, false, tc["clean_up_tokenization_spaces"])
	assert.Equal(t, "<|endoftext|>", tc["eos_token"])
	assert.Equal(t, "<|pad|>", tc["pad_token"])
	sm := readJSONMap(t, filepath.Join(exp, SpecialTokensFile))
	assert.Equal(t, map[string]any{"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "pad_token": "<|pad|>"}, sm)
	card, err := os.ReadFile(filepath.Join(exp, CardFile))
	require.NoError(t, err)
	for _, want := range []string{"# Oryx oryx-tg", "trust_remote_code=True", "AutoTokenizer", "pipeline(\"text-generation\"",
		"Not recorded", "`block[:LEN[:P]]`", "oryx import --from DIR", "<|endoftext|>` (id 256)"} {
		assert.Contains(t, string(card), want)
	}
	_, meta, err := ReadSafetensors(filepath.Join(exp, WeightsFile))
	require.NoError(t, err)
	oc, err := json.Marshal(cfg)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"format": "pt", "oryx_variant": "oryx-tg", "oryx_export_format": "3",
		"oryx_params": jsonText(oryx.CountParams(cfg).Total), "oryx_config": string(oc), "oryx_tokenizer": "bytes"}, meta)

	require.NoError(t, importErr(t, exp, back))
	tok, err := rundir.Tokenizer(back)
	require.NoError(t, err)
	assert.Equal(t, "bytes", tok, "the import reads as the byte tokenizer")
	require.NoError(t, Export(back, again))
	for _, n := range exportFiles {
		a, err := os.ReadFile(filepath.Join(exp, n))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(again, n))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(a, b), "%s differs after export → import → export", n)
	}
}

// TestExportWithoutFittingTokenizer: a model whose vocabulary is smaller than its tokenizer's ids (the tiny
// preset's 256 against the byte tokenizer's 258) is exported without tokenizer files and without token ids,
// the note saying why; exporting it into a folder that held a tokenizer removes the stale files.
func TestExportWithoutFittingTokenizer(t *testing.T) {
	small, err := oryx.Preset("tiny", oryx.GDN)
	require.NoError(t, err)
	small.Vocab = 256
	dir := t.TempDir()
	ckptBig, ckptSmall, exp := filepath.Join(dir, "big"), filepath.Join(dir, "small"), filepath.Join(dir, "export")
	require.NoError(t, oryx.InitCheckpoint(ckptBig, bytesConfig(t), 1))
	require.NoError(t, oryx.InitCheckpoint(ckptSmall, small, 1))
	require.NoError(t, Export(ckptBig, exp))
	info, err := ExportWith(ckptSmall, exp, ExportOptions{})
	require.NoError(t, err)
	assert.Contains(t, info.TokenizerNote, "258 ids, more than the model's vocabulary of 256")
	assert.Equal(t, []string{WeightsFile, ConfigFile, ModelingFile, CardFile}, info.Files)
	for _, n := range []string{TokenizerFile, TokenizerConfigFile, SpecialTokensFile, GenerationConfigFile} {
		assert.NoFileExists(t, filepath.Join(exp, n))
	}
	hc := readJSONMap(t, filepath.Join(exp, ConfigFile))
	for _, k := range append(TokenIDKeys, "tokenizer_class") {
		assert.NotContains(t, hc, k)
	}
	card, err := os.ReadFile(filepath.Join(exp, CardFile))
	require.NoError(t, err)
	assert.Contains(t, string(card), "None exported: the tokenizer \"bytes\" has 258 ids")
}

// bpeTokenizerFile writes a small byte-level BPE tokenizer.json (the byte alphabet, two merges and
// "<|endoftext|>" at 260) and returns its path.
func bpeTokenizerFile(t *testing.T, dir string) string {
	var f map[string]any
	require.NoError(t, json.Unmarshal(tokenizers.NewByteTokenizer().HFJSON(), &f))
	model := f["model"].(map[string]any)
	vocab := model["vocab"].(map[string]any)
	vocab["he"], vocab["ll"] = 258, 259
	model["merges"] = []string{"h e", "l l"}
	f["added_tokens"] = []any{map[string]any{"id": 260, "content": "<|endoftext|>", "single_word": false, "lstrip": false,
		"rstrip": false, "normalized": false, "special": true}}
	path := filepath.Join(dir, "mini-bpe.json")
	data, err := json.Marshal(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// TestExportBPETokenizerRoundTrip: a byte-level BPE tokenizer.json is exported as it is, with its end-of-text
// id; the import copies it into the checkpoint and records it, so that the checkpoint's tokenizer encodes as the
// original and a second export writes the same files.
func TestExportBPETokenizerRoundTrip(t *testing.T) {
	dir := t.TempDir()
	tokPath := bpeTokenizerFile(t, dir)
	ckpt, exp, back, again := filepath.Join(dir, "ckpt"), filepath.Join(dir, "export"), filepath.Join(dir, "back"), filepath.Join(dir, "again")
	require.NoError(t, oryx.InitCheckpoint(ckpt, bytesConfig(t), 5))
	info, err := ExportWith(ckpt, exp, ExportOptions{Tokenizer: tokPath})
	require.NoError(t, err)
	assert.Equal(t, "mini-bpe", info.Tokenizer)
	orig, err := os.ReadFile(tokPath)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(exp, TokenizerFile))
	require.NoError(t, err)
	assert.Equal(t, orig, got)
	hc := readJSONMap(t, filepath.Join(exp, ConfigFile))
	assert.EqualValues(t, 260, hc["eos_token_id"])
	assert.EqualValues(t, 260, hc["pad_token_id"])

	require.NoError(t, importErr(t, exp, back))
	spec, err := rundir.Tokenizer(back)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(back, "tokenizer", "mini-bpe.json"), spec)
	want, err := tokenizers.Load(tokPath)
	require.NoError(t, err)
	have, err := tokenizers.Load(spec)
	require.NoError(t, err)
	for _, s := range []string{"hello<|endoftext|>hell", "Grüße"} {
		assert.Equal(t, want.Encode(s), have.Encode(s), s)
	}
	require.NoError(t, Export(back, again))
	for _, n := range exportFiles {
		a, _ := os.ReadFile(filepath.Join(exp, n))
		b, _ := os.ReadFile(filepath.Join(again, n))
		assert.True(t, bytes.Equal(a, b), "%s differs after export → import → export", n)
	}
}

// TestImportTokenizerErrors: the special-token ids must be integer ids of the vocabulary, and tokenizer.json's
// end of text must be config.json's eos_token_id; a tokenizer.json the Go tokenizers cannot read is refused
// with the file named. Each case fails alone.
func TestImportTokenizerErrors(t *testing.T) {
	dir := t.TempDir()
	ckpt, exp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "export")
	require.NoError(t, oryx.InitCheckpoint(ckpt, bytesConfig(t), 2))
	require.NoError(t, Export(ckpt, exp))
	cases := []struct {
		name string
		edit func(d string)
		want string
	}{
		{"eos out of range", func(d string) { editConfig(t, d, func(m map[string]any) { m["eos_token_id"] = 320 }) },
			"eos_token_id is 320: want an integer id in [0, 320)"},
		{"pad not an integer", func(d string) { editConfig(t, d, func(m map[string]any) { m["pad_token_id"] = 1.5 }) },
			"pad_token_id is 1.5"},
		{"bos a string", func(d string) { editConfig(t, d, func(m map[string]any) { m["bos_token_id"] = "256" }) },
			`bos_token_id is "256"`},
		{"eos disagrees with the tokenizer", func(d string) { editConfig(t, d, func(m map[string]any) { m["eos_token_id"] = 10 }) },
			"eos_token_id is 10, but the end-of-text token of"},
		{"tokenizer_class another", func(d string) { editConfig(t, d, func(m map[string]any) { m["tokenizer_class"] = "GPT2Tokenizer" }) },
			`tokenizer_class is "GPT2Tokenizer": want "PreTrainedTokenizerFast"`},
		{"tokenizer not byte-level BPE", func(d string) {
			require.NoError(t, os.WriteFile(filepath.Join(d, TokenizerFile), []byte(`{"model": {"type": "WordPiece"}}`), 0o644))
		}, "tokenizer.json: unsupported model.type \"WordPiece\""},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := filepath.Join(dir, "case", string(rune('a'+i)))
			copyDir(t, exp, d)
			c.edit(d)
			assert.ErrorContains(t, importErr(t, d, filepath.Join(d+"-ckpt")), c.want)
		})
	}
	// Without any of the token keys the export still imports (exports written before they existed).
	d := filepath.Join(dir, "no-ids")
	copyDir(t, exp, d)
	editConfig(t, d, func(m map[string]any) {
		for _, k := range append(TokenIDKeys, "tokenizer_class") {
			delete(m, k)
		}
	})
	require.NoError(t, importErr(t, d, d+"-ckpt"))
}

func editConfig(t *testing.T, dir string, edit func(m map[string]any)) {
	m := readJSONMap(t, filepath.Join(dir, ConfigFile))
	edit(m)
	require.NoError(t, writeJSON(filepath.Join(dir, ConfigFile), m))
}

func copyDir(t *testing.T, from, to string) {
	require.NoError(t, os.MkdirAll(to, 0o755))
	entries, err := os.ReadDir(from)
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(to, e.Name()), data, 0o644))
	}
	require.NotEmpty(t, entries)
}

// TestModelCardStatesTheTraining: the card of a training run's checkpoint states its data, its tokens (the
// trainer state of the newest checkpoint), steps, sequences, learning rate and readout training, read from
// run.json.
func TestModelCardStatesTheTraining(t *testing.T) {
	dir := t.TempDir()
	ckpt, exp := filepath.Join(dir, "run"), filepath.Join(dir, "export")
	require.NoError(t, oryx.InitCheckpoint(ckpt, bytesConfig(t), 4))
	names, err := oryx.ListCheckpoints(ckpt)
	require.NoError(t, err)
	require.Len(t, names, 1)
	for _, ext := range []string{".json", ".bin"} { // as the trainer names a checkpoint of step 42
		require.NoError(t, os.Rename(filepath.Join(ckpt, names[0]+ext), filepath.Join(ckpt, "checkpoint-n0000001-20261208-000000-step-00000042"+ext)))
	}
	runJSON := `{"name": "oryx-tg-tiny", "data": {"spec": "synth:mix"}, "train": {"seq_len": 128, "batch": 16, "steps": 42,
		"block_len": 64, "attention_prob": 0.5, "mode_training": "block-random", "lr": 0.003, "lr_schedule": "cosine"},
		"tokenizer": "bytes", "backend": "go", "go_version": "go1", "started": "2026-12-08T00:00:00Z"}`
	require.NoError(t, os.WriteFile(filepath.Join(ckpt, rundir.RunFile), []byte(runJSON), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ckpt, rundir.StateFileName(42)), []byte(`{"step": 42, "tokens_seen": 86016}`), 0o644))
	require.NoError(t, Export(ckpt, exp))
	card, err := os.ReadFile(filepath.Join(exp, CardFile))
	require.NoError(t, err)
	for _, want := range []string{"| run | `oryx-tg-tiny` |", "| data | `synth:mix` |",
		"| tokens | 86016 (86K), 42 steps of 16 sequences of 128 tokens |", "| learning rate | 0.003, cosine after warm-up |",
		"| readouts | block-random: blocks of 64 tokens, each attention with probability 0.5, else linear |"} {
		assert.Contains(t, string(card), want)
	}
	assert.NotContains(t, string(card), "Not recorded")
}

// sharedTokenizer is a tokenizer file of shared/data/tokenizers (found walking up from the working directory),
// or skips the test.
func sharedTokenizer(t *testing.T, rel string) string {
	wd, err := os.Getwd()
	require.NoError(t, err)
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "data", "tokenizers", rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			t.Skipf("shared/data/tokenizers/%s not found above the working directory", rel)
		}
	}
}

// TestExportSentencePieceTokenizer: a run with a SentencePiece tokenizer (Llama-2's tokenizer.model) is exported
// without tokenizer files (no tokenizer.json form of it here) but with its special-token ids in config.json and
// generation_config.json, and the note says why; the export imports.
func TestExportSentencePieceTokenizer(t *testing.T) {
	spm := sharedTokenizer(t, "llama2/tokenizer.model")
	cfg := bytesConfig(t)
	cfg.Vocab = 32000
	dir := t.TempDir()
	ckpt, exp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "export")
	require.NoError(t, oryx.InitCheckpoint(ckpt, cfg, 1))
	info, err := ExportWith(ckpt, exp, ExportOptions{Tokenizer: spm})
	require.NoError(t, err)
	assert.Contains(t, info.TokenizerNote, "is a SentencePiece model")
	assert.Empty(t, info.Tokenizer)
	assert.Equal(t, []string{WeightsFile, ConfigFile, ModelingFile, GenerationConfigFile, CardFile}, info.Files)
	tok, err := tokenizers.Load(spm)
	require.NoError(t, err)
	hc := readJSONMap(t, filepath.Join(exp, ConfigFile))
	assert.EqualValues(t, tok.EOS(), hc["eos_token_id"])
	assert.NotContains(t, hc, "tokenizer_class")
	require.NoError(t, importErr(t, exp, filepath.Join(dir, "back")))
}
