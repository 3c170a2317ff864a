package hf

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// transformersPath is the PYTHONPATH under which python imports transformers: $ORYX_TRANSFORMERS_PATH (e.g.
// a throwaway environment with a newer transformers), else the project's .pytools (`make py-tools`). The
// test skips with a message when neither works.
func transformersPath(t *testing.T, python string) string {
	py := os.Getenv("ORYX_TRANSFORMERS_PATH")
	if py == "" {
		py = pyTools(t)
	}
	if py == "" {
		t.Skip("no .pytools: `make py-tools` installs transformers for this test (or set ORYX_TRANSFORMERS_PATH)")
	}
	check := exec.Command(python, "-c", "import transformers")
	check.Env = append(withoutPythonPath(), "PYTHONPATH="+py)
	if out, err := check.CombinedOutput(); err != nil {
		t.Skipf("transformers does not import with %s and PYTHONPATH=%s: %v %s", python, py, err, out)
	}
	return py
}

type citizenResult struct {
	Torch, Transformers  string
	ConfigClass          string    `json:"config_class"`
	ClassLocal           string    `json:"class_local"`
	ClassHub             string    `json:"class_hub"`
	LogitsLocal          float64   `json:"logits_local"`
	LogitsHub            float64   `json:"logits_hub"`
	Greedy               []int32   `json:"greedy"`
	GreedyReference      []int32   `json:"greedy_reference"`
	GreedyModes          []int32   `json:"greedy_modes"`
	GreedyModesReference []int32   `json:"greedy_modes_reference"`
	SampleCached         []int32   `json:"sample_cached"`
	SampleUncached       []int32   `json:"sample_uncached"`
	SampleAgain          []int32   `json:"sample_again"`
	SampleOtherSeed      []int32   `json:"sample_other_seed"`
	Padded               [][]int32 `json:"padded"`
	Alone                [][]int32 `json:"alone"`
	BeamsCached          [][]int32 `json:"beams_cached"`
	BeamsUncached        [][]int32 `json:"beams_uncached"`
	BeamsModes1D         []int32   `json:"beams_modes_1d"`
	BeamsModes2D         []int32   `json:"beams_modes_2d"`
	BeamsModeTensor      []int32   `json:"beams_mode_tensor"`
	BeamsModeNumber      []int32   `json:"beams_mode_number"`
	PaddedLogits         float64   `json:"padded_logits"`
	RightPaddedLogits    float64   `json:"right_padded_logits"`
	Hole                 string    `json:"hole"`
	LogitsReference      []float64 `json:"logits_reference"`
	Saved                map[string]savedDir
}

type savedDir struct {
	Files  []string       `json:"files"`
	Logits []float64      `json:"logits"`
	Config map[string]any `json:"config"`
}

// TestTransformersCitizen uses exports as a transformers user would (testdata/transformers_citizen.py, with
// transformers from .pytools): AutoConfig and AutoModelForCausalLM by local folder and by Hub repo id (an
// offline hub cache in the test's directory) give the variant's classes and the reference's logits exactly;
// generate() greedy with the cache equals the reference's greedy decoding and the Go engine's, with a mode per
// position too; sampling with a seed is the same cached or not; a left-padded batch (attention_mask)
// generates, row for row, what each prompt generates alone, and its logits at the real tokens (right padding
// too) are the row's own; a mask with a hole inside a row is refused; beam search reorders the cache (it
// failed: 'OryxCache' object has no attribute 'reorder_cache') and gives the tokens beam search gives without
// one, and keeps modes [N] one mode per position (it repeated each mode num_beams times) and takes a 0-dim
// modes (IndexError); save_pretrained's output (bfloat16 from a local load, float64 from a Hub load) is read
// by modeling_oryx.py and imported by `oryx import` (float64 bit for bit), an unknown key added to it still
// refused.
func TestTransformersCitizen(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: transformers' side is backend-independent (the pure-Go suite runs it); " +
			"TestTorchReferenceMatchesGo checks generation against this backend")
	}
	python := torchPython(t)
	py := transformersPath(t, python)
	cfgs := torchConfigs(t)
	const n = 8
	for i, cfg := range []oryx.Config{cfgs[0], cfgs[len(cfgs)-1]} { // Oryx-TG; Mamba-2
		v := cfg.Variant
		t.Run(string(v), func(t *testing.T) {
			dir := t.TempDir()
			ckpt, exp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "export")
			randomCheckpoint(t, cfg, ckpt, uint64(40+i))
			require.NoError(t, Export(ckpt, exp))
			r := rand.New(rand.NewPCG(uint64(i), 17))
			prompt := func(l int) []int32 {
				p := make([]int32, l)
				for j := range p {
					p[j] = int32(1 + r.IntN(cfg.Vocab-1))
				}
				return p
			}
			p0, p1 := prompt(11), prompt(6)
			req := map[string]any{"export": exp, "repo_id": "oryx-test/tiny-" + string(v), "save": filepath.Join(dir, "saved"),
				"prompts": [][]int32{p0, p1}, "max_new_tokens": n, "modes": nil, "pad_id": 0}
			const spec = "A:0-3,L:4-8,A:9-12,L:13-"
			if v.IsMultiMixer() {
				req["modes"] = specModes(t, spec, len(p0), n)
			}
			res := runCitizen(t, python, py, req)
			t.Logf("torch %s, transformers %s", res.Torch, res.Transformers)

			prefix := "Oryx" + classPrefixes[v]
			assert.Equal(t, prefix+"Config", res.ConfigClass)
			assert.Equal(t, prefix+"ForCausalLM", res.ClassLocal)
			assert.Equal(t, prefix+"ForCausalLM", res.ClassHub)
			assert.Zero(t, res.LogitsLocal, "local folder: logits differ from OryxLM's")
			assert.Zero(t, res.LogitsHub, "Hub repo id: logits differ from OryxLM's")

			defaultSpec := ""
			if v.IsMultiMixer() {
				defaultSpec = "attention"
			}
			assert.Equal(t, res.GreedyReference, res.Greedy, "generate() greedy vs the reference's")
			assert.Equal(t, goGenerate(t, ckpt, p0, defaultSpec, n), res.Greedy, "generate() greedy vs the Go engine")
			if v.IsMultiMixer() {
				assert.Equal(t, res.GreedyModesReference, res.GreedyModes, "generate(modes=...) vs the reference's")
				assert.Equal(t, goGenerate(t, ckpt, p0, spec, n), res.GreedyModes, "generate(modes=...) vs the Go engine")
				assert.Equal(t, res.BeamsModes2D, res.BeamsModes1D, "beam search: modes [N] vs [1, N]")
				assert.Len(t, res.BeamsModes2D, n)
				assert.Equal(t, res.BeamsModeNumber, res.BeamsModeTensor, "beam search: modes torch.tensor(0) vs 0")
			}
			assert.Equal(t, res.SampleCached, res.SampleUncached, "sampling with the cache vs without")
			assert.Equal(t, res.SampleCached, res.SampleAgain, "sampling: same seed, same tokens")
			assert.True(t, !slices.Equal(res.SampleCached, res.Greedy) || !slices.Equal(res.SampleCached, res.SampleOtherSeed),
				"do_sample=True gave the greedy tokens and the same tokens for another seed")
			assert.Equal(t, res.Alone, res.Padded, "a left-padded batch vs each prompt alone")
			assert.LessOrEqual(t, res.PaddedLogits, 1e-12, "left padding: logits at the real tokens")
			assert.LessOrEqual(t, res.RightPaddedLogits, 1e-12, "right padding: logits at the real tokens")
			assert.Contains(t, res.Hole, "left padding", "a mask with a hole inside a row")
			assert.Equal(t, res.BeamsUncached, res.BeamsCached, "beam search (3 beams, left-padded) with the cache vs without")
			assert.Len(t, res.BeamsCached, 2)
			t.Logf("greedy %v, sampled %v; left-padded logits %.1e, right-padded %.1e", res.Greedy, res.SampleCached,
				res.PaddedLogits, res.RightPaddedLogits)

			_, ctx, err := oryx.LoadCheckpoint(ckpt, nil)
			require.NoError(t, err)
			orig := paramBytes(t, ctx)
			for name, s := range res.Saved {
				assert.Subset(t, s.Files, []string{ConfigFile, WeightsFile, ModelingFile}, name)
				assert.Contains(t, s.Config, "transformers_version", name)
				back := filepath.Join(t.TempDir(), "ckpt")
				info, err := importInto(t, name, back)
				require.NoError(t, err, "oryx import of save_pretrained's %s", name)
				_, ctxB, err := oryx.LoadCheckpoint(back, nil)
				require.NoError(t, err)
				got := paramBytes(t, ctxB)
				require.Equal(t, len(orig), len(got))
				switch filepath.Base(name) {
				case "f64":
					require.Equal(t, "F64", info.DType)
					for k := range orig {
						require.True(t, bytes.Equal(orig[k], got[k]), "%s: %s differs after save_pretrained and import", name, k)
					}
					require.Equal(t, res.LogitsReference, s.Logits, "%s: logits", name)
				case "bf16":
					require.Equal(t, "BF16", info.DType)
					for k, o := range orig { // float64 weights, rounded to bfloat16 by torch, converted to float32 by import
						for j := 0; j < len(o)/8; j++ {
							x := math.Float64frombits(binary.LittleEndian.Uint64(o[8*j:]))
							y := math.Float32frombits(binary.LittleEndian.Uint32(got[k][4*j:]))
							require.Zero(t, math.Float32bits(y)&0xffff, "%s[%d] is not a bfloat16 value", k, j)
							require.InDelta(t, x, float64(y), math.Abs(x)/256+1e-30, "%s[%d]", k, j)
						}
					}
					assert.LessOrEqual(t, testutil.RelErr(s.Logits, res.LogitsReference), 0.1, "%s: bfloat16 logits", name)
				}
				// Known transformers keys aside, an unknown key is still refused.
				m := cloneMap(t, s.Config)
				m["sliding_window"] = 128.0
				d := t.TempDir()
				data, err := json.Marshal(m)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(d, ConfigFile), data, 0o644))
				w, err := os.ReadFile(filepath.Join(name, WeightsFile))
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(d, WeightsFile), w, 0o644))
				require.ErrorContains(t, importErr(t, d, filepath.Join(t.TempDir(), "ckpt")), `unknown key "sliding_window"`)
				t.Logf("save_pretrained %s: %v, imported (%s), config keys beyond the export's: %v", filepath.Base(name),
					s.Files, info.DType, extraKeys(s.Config))
			}
		})
	}
}

// runCitizen runs testdata/transformers_citizen.py on req with transformers on PYTHONPATH py, offline, its
// Hugging Face home in the test's directory.
func runCitizen(t *testing.T, python, py string, req map[string]any) citizenResult {
	var res citizenResult
	runPythonJSON(t, python, []string{"PYTHONPATH=" + py, "HF_HOME=" + filepath.Join(t.TempDir(), "hf-home"),
		"HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1", "HF_HUB_DISABLE_TELEMETRY=1", "TRANSFORMERS_VERBOSITY=error",
		"TOKENIZERS_PARALLELISM=false"}, req, &res, "transformers_citizen.py")
	return res
}

// extraKeys lists the keys of a config.json beyond what the export writes (transformers' own).
func extraKeys(cfg map[string]any) []string {
	var out []string
	for _, k := range TransformersKeys {
		if _, ok := cfg[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

type tokenizerPipelineResult struct {
	Transformers   string
	TokenizerClass string  `json:"tokenizer_class"`
	BOS            *int    `json:"bos"`
	EOS            *int    `json:"eos"`
	Pad            *int    `json:"pad"`
	GenerationEOS  any     `json:"generation_eos"`
	Encoded        [][]int `json:"encoded"`
	EncodedPlain   [][]int `json:"encoded_plain"`
	Decoded        []string
	Prompt         *string
	PromptIDs      []int  `json:"prompt_ids"`
	Free           []int  `json:"free"`
	PipelineIDs    []int  `json:"pipeline_ids"`
	PipelineText   string `json:"pipeline_text"`
	DecodedFree    string `json:"decoded_free"`
}

// TestTransformersTokenizerAndPipeline uses an export's tokenizer and text generation as a transformers user
// does (testdata/tokenizer_pipeline.py): AutoTokenizer loads tokenizer.json as a PreTrainedTokenizerFast whose
// ids on a corpus equal the Go byte tokenizer's (with and without add_special_tokens: it adds nothing) and
// whose decode of the Go ids gives the text back; pipeline("text-generation") loads the folder by path (model
// and tokenizer) and, greedy, stops at end of text: its tokens are the prompt and the reference's greedy
// continuation up to and including the first <|endoftext|>, its text the prompt and the continuation before it.
func TestTransformersTokenizerAndPipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: transformers' side is backend-independent (the pure-Go suite runs it)")
	}
	python := torchPython(t)
	py := transformersPath(t, python)
	cfg := bytesConfig(t)
	dir := t.TempDir()
	ckpt, exp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "export")
	randomCheckpoint(t, cfg, ckpt, 11)
	require.NoError(t, Export(ckpt, exp))
	bt := tokenizers.NewByteTokenizer()
	corpus := append([]string{"The quick brown fox jumps over the lazy dog. It's 3.14 , isn't it ?"}, byteCorpus...)
	var goIDs [][]int
	for _, s := range corpus {
		goIDs = append(goIDs, bt.Encode(s))
	}
	var prompts []string
	for c := 'a'; c <= 'z'; c++ {
		prompts = append(prompts, string(c), "The "+string(c))
	}
	const n = 16
	req := map[string]any{"export": exp, "corpus": corpus, "go_ids": goIDs, "prompts": prompts, "max_new_tokens": n}
	var res tokenizerPipelineResult
	runPythonJSON(t, python, []string{"PYTHONPATH=" + py, "HF_HOME=" + filepath.Join(t.TempDir(), "hf-home"),
		"HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1", "HF_HUB_DISABLE_TELEMETRY=1", "TRANSFORMERS_VERBOSITY=error",
		"TOKENIZERS_PARALLELISM=false"}, req, &res, "tokenizer_pipeline.py")
	t.Logf("transformers %s: %s", res.Transformers, res.TokenizerClass)
	assert.Equal(t, "PreTrainedTokenizerFast", res.TokenizerClass)
	require.NotNil(t, res.EOS)
	assert.Equal(t, 256, *res.EOS)
	assert.Equal(t, 257, *res.Pad)
	assert.EqualValues(t, 256, res.GenerationEOS)
	for i, s := range corpus {
		assert.Equal(t, goIDs[i], res.Encoded[i], "AutoTokenizer(%q)", s)
		assert.Equal(t, goIDs[i], res.EncodedPlain[i], "AutoTokenizer(%q, add_special_tokens=False)", s)
		assert.Equal(t, s, res.Decoded[i], "decode of the Go ids of %q", s)
	}
	require.NotNil(t, res.Prompt, "no prompt's greedy continuation reached <|endoftext|> in %d tokens: choose another seed", n)
	stop := slices.Index(res.Free, 256)
	require.True(t, stop >= 0 && stop < n-1)
	assert.Equal(t, bt.Encode(*res.Prompt), res.PromptIDs)
	assert.Equal(t, append(slices.Clone(res.PromptIDs), res.Free[:stop+1]...), res.PipelineIDs,
		"the pipeline's tokens: the prompt and the greedy continuation up to end of text")
	// The text: the prompt and the continuation decoded by the tokenizer (the random model's tokens are not all
	// UTF-8, nor all ids of the tokenizer, so the Go decode is not the comparison), end of text not in it.
	assert.Equal(t, *res.Prompt+res.DecodedFree, res.PipelineText)
	t.Logf("prompt %q: greedy continuation %v stops after %d tokens: %q", *res.Prompt, res.Free, stop+1, res.PipelineText)
}

// byteCorpus is text for the tokenizer round trips: multi-byte characters, the special tokens inside text and
// back to back, their prefixes, spaces around punctuation (which transformers' clean-up would change).
var byteCorpus = []string{"", "hello world", "  leading and trailing  ", "tabs\tand\nnewlines\r\n", "Grüße, 世界! 🦊 naïve",
	"a<|endoftext|>b", "<|endoftext|><|pad|><|endoftext|>", "<|endoftext", "<<|pad|>>", "x . y , z ! don 't", "ÿ¡¬®\x00\x7f"}

// TestTransformersTokenizerGPTNeoX: a run with GPT-NeoX-20B's tokenizer.json (shared/data/tokenizers) is exported
// with it, and AutoTokenizer of the export gives the Go BPE tokenizer's ids on the corpus and decodes them as the
// Go tokenizer does (NFC-normalised text), with and without add_special_tokens.
func TestTransformersTokenizerGPTNeoX(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: transformers' side is backend-independent (the pure-Go suite runs it)")
	}
	neox := sharedTokenizer(t, "gpt-neox-20b/tokenizer.json")
	python := torchPython(t)
	py := transformersPath(t, python)
	cfg := bytesConfig(t)
	cfg.Vocab = 50304
	dir := t.TempDir()
	ckpt, exp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "export")
	require.NoError(t, oryx.InitCheckpoint(ckpt, cfg, 1))
	_, err := ExportWith(ckpt, exp, ExportOptions{Tokenizer: neox})
	require.NoError(t, err)
	tok, err := tokenizers.Load(neox)
	require.NoError(t, err)
	corpus := append([]string{"The quick brown fox jumps over the lazy dog. It's 3.14 , isn't it ?", "e\u0301 vs é, ﬁ"}, byteCorpus...)
	var goIDs [][]int
	for _, s := range corpus {
		goIDs = append(goIDs, tok.Encode(s))
	}
	req := map[string]any{"export": exp, "corpus": corpus, "go_ids": goIDs, "prompts": []string{}, "max_new_tokens": 0}
	var res tokenizerPipelineResult
	runPythonJSON(t, python, []string{"PYTHONPATH=" + py, "HF_HOME=" + filepath.Join(t.TempDir(), "hf-home"),
		"HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1", "TRANSFORMERS_VERBOSITY=error", "TOKENIZERS_PARALLELISM=false"},
		req, &res, "tokenizer_pipeline.py")
	assert.Equal(t, "PreTrainedTokenizerFast", res.TokenizerClass)
	require.NotNil(t, res.EOS)
	assert.Equal(t, tok.EOS(), *res.EOS)
	for i, s := range corpus {
		assert.Equal(t, goIDs[i], res.Encoded[i], "AutoTokenizer(%q)", s)
		assert.Equal(t, goIDs[i], res.EncodedPlain[i], "AutoTokenizer(%q, add_special_tokens=False)", s)
		assert.Equal(t, tok.Decode(goIDs[i]), res.Decoded[i], "decode of the Go ids of %q", s)
	}
}
