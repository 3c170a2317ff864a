package hf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/safefile"
)

// The tokenizer files of an export, in the layout transformers' AutoTokenizer reads (PreTrainedTokenizerFast
// over a tokenizers tokenizer.json), and the generation defaults.
const (
	TokenizerFile        = "tokenizer.json"
	TokenizerConfigFile  = "tokenizer_config.json"
	SpecialTokensFile    = "special_tokens_map.json"
	GenerationConfigFile = "generation_config.json"
	CardFile             = "README.md"
)

// exportFiles are every file Export may write (internal/claim's list for an export adds them), so that an
// export written again into the same folder leaves none of the previous export's behind.
var exportFiles = []string{WeightsFile, ConfigFile, ModelingFile, TokenizerFile, TokenizerConfigFile,
	SpecialTokensFile, GenerationConfigFile, CardFile}

// TokenIDKeys are the special-token ids config.json carries when the export has a tokenizer (transformers'
// PretrainedConfig keys; generation stops at eos_token_id). ReadConfig and modeling_oryx.py accept each one
// absent or an integer id of the vocabulary.
var TokenIDKeys = []string{"bos_token_id", "eos_token_id", "pad_token_id"}

// tokenizerClass is the transformers class of an export's tokenizer.json (tokenizer_config.json and
// config.json name it).
const tokenizerClass = "PreTrainedTokenizerFast"

// TokenIDs are the special-token ids of an export's tokenizer.
type TokenIDs struct {
	BOS, EOS, Pad int
}

// exportTokenizer is the tokenizer an export carries: its name and its files' contents, or Note saying why
// there is none.
type exportTokenizer struct {
	Name string // tokenizers' Name: "bytes", "gpt-neox-20b", ...
	Spec string // the spec it was loaded from
	// JSON is tokenizer.json (nil: no tokenizer files); IDs the special tokens, Tokens their texts.
	JSON             []byte
	IDs              *TokenIDs
	BOSText, EOSText string
	PadText          string
	Note             string // why there is no tokenizer, or what is missing
	VocabSize        int
}

// resolveTokenizer loads the tokenizer spec (tokenizers.Load) for a model of vocab ids and returns what the
// export writes for it: the byte tokenizer as its tokenizers-library JSON (ByteTokenizer.HFJSON), a
// byte-level BPE tokenizer.json as the file itself. A tokenizer with ids the model has no embedding for, or a
// SentencePiece model (no tokenizer.json to give: transformers would need the sentencepiece package to
// convert it), gives no tokenizer files, with Note saying so.
func resolveTokenizer(spec string, vocab int) (exportTokenizer, error) {
	tok, err := tokenizers.Load(spec)
	if err != nil {
		return exportTokenizer{}, err
	}
	et := exportTokenizer{Name: tok.Name(), Spec: spec, VocabSize: tok.VocabSize()}
	if tok.VocabSize() > vocab {
		et.Note = fmt.Sprintf("the tokenizer %q has %d ids, more than the model's vocabulary of %d: no tokenizer "+
			"files and no special-token ids are exported (train or initialise the model with a vocabulary of at "+
			"least %d, or export with a tokenizer that fits)", tok.Name(), tok.VocabSize(), vocab, tok.VocabSize())
		return et, nil
	}
	eos := tok.EOS()
	switch t := tok.(type) {
	case *tokenizers.ByteTokenizer:
		et.JSON = t.HFJSON()
		et.IDs = &TokenIDs{BOS: eos, EOS: eos, Pad: tokenizers.ByteTokenizerPad}
		specials := tokenizers.ByteTokenizerSpecials()
		et.BOSText, et.EOSText, et.PadText = specials[eos], specials[eos], specials[tokenizers.ByteTokenizerPad]
	case *tokenizers.BPETokenizer:
		data, err := safefile.ReadFile(t.Path())
		if err != nil {
			return exportTokenizer{}, err
		}
		et.JSON = data
		et.IDs = &TokenIDs{BOS: eos, EOS: eos, Pad: eos}
		text, _ := t.Token(eos)
		et.BOSText, et.EOSText, et.PadText = text, text, text
	default:
		et.IDs = &TokenIDs{BOS: eos, EOS: eos, Pad: eos}
		et.Note = fmt.Sprintf("the tokenizer %q (%s) is a SentencePiece model, which has no tokenizer.json form "+
			"here: no tokenizer files are exported (config.json and generation_config.json still carry its "+
			"special-token ids)", tok.Name(), spec)
	}
	return et, nil
}

// tokenizerConfig is tokenizer_config.json: PreTrainedTokenizerFast over tokenizer.json, adding nothing to
// the ids (no BOS, no EOS: as the Go tokenizers encode) and not rewriting spaces on decode (transformers'
// clean_up_tokenization_spaces would turn " ." into ".").
func (et exportTokenizer) tokenizerConfig() map[string]any {
	return map[string]any{"tokenizer_class": tokenizerClass, "clean_up_tokenization_spaces": false,
		"add_bos_token": false, "add_eos_token": false, "bos_token": et.BOSText, "eos_token": et.EOSText,
		"pad_token": et.PadText, "model_input_names": []string{"input_ids", "attention_mask"}}
}

func (et exportTokenizer) specialTokensMap() map[string]any {
	return map[string]any{"bos_token": et.BOSText, "eos_token": et.EOSText, "pad_token": et.PadText}
}

// generationConfig is generation_config.json: the special-token ids (generate() stops at eos_token_id and
// pads finished rows with pad_token_id), greedy by default.
func generationConfig(ids TokenIDs) map[string]any {
	return map[string]any{"bos_token_id": ids.BOS, "eos_token_id": ids.EOS, "pad_token_id": ids.Pad, "do_sample": false}
}

// writeTokenizerFiles writes (or, without tokenizer files, removes earlier exports') tokenizer.json,
// tokenizer_config.json, special_tokens_map.json and generation_config.json.
func writeTokenizerFiles(outDir string, et exportTokenizer) error {
	if et.JSON != nil {
		if err := atomicfile.WriteFile(filepath.Join(outDir, TokenizerFile), et.JSON); err != nil {
			return err
		}
		if err := writeJSON(filepath.Join(outDir, TokenizerConfigFile), et.tokenizerConfig()); err != nil {
			return err
		}
		if err := writeJSON(filepath.Join(outDir, SpecialTokensFile), et.specialTokensMap()); err != nil {
			return err
		}
	} else if err := removeFiles(outDir, TokenizerFile, TokenizerConfigFile, SpecialTokensFile); err != nil {
		return err
	}
	if et.IDs != nil {
		return writeJSON(filepath.Join(outDir, GenerationConfigFile), generationConfig(*et.IDs))
	}
	return removeFiles(outDir, GenerationConfigFile)
}

func removeFiles(dir string, names ...string) error {
	for _, n := range names {
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// importedTokenizer is what Import makes of an export's tokenizer.json: "" for none or the byte tokenizer
// (a checkpoint without a run record reads as the byte tokenizer), else the path of the file to copy into the
// checkpoint (a byte-level BPE tokenizer.json the Go tokenizers load), after checking its special-token ids
// against config.json's.
func importedTokenizer(exportDir string, cfgVocab int, ids map[string]int) (spec string, err error) {
	path := filepath.Join(exportDir, TokenizerFile)
	data, err := safefile.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var tok tokenizers.Tokenizer
	if bytes.Equal(data, tokenizers.NewByteTokenizer().HFJSON()) {
		tok = tokenizers.NewByteTokenizer()
	} else {
		bpe, err := tokenizers.LoadHFTokenizer(path)
		if err != nil {
			return "", fmt.Errorf("%w (an export's tokenizer.json is the byte tokenizer `oryx export` writes or a "+
				"byte-level BPE tokenizer.json; remove it to import the weights alone)", err)
		}
		tok, spec = bpe, path
	}
	if tok.VocabSize() > cfgVocab {
		return "", fmt.Errorf("%s has %d ids, more than the model's vocab_size %d", path, tok.VocabSize(), cfgVocab)
	}
	if eos, ok := ids["eos_token_id"]; ok && eos != tok.EOS() {
		return "", fmt.Errorf("%s: eos_token_id is %d, but the end-of-text token of %s is %d", filepath.Join(exportDir, ConfigFile),
			eos, path, tok.EOS())
	}
	return spec, nil
}

// tokenIDs reads the special-token ids of a decoded config.json: each of TokenIDKeys absent, or an integer in
// [0, vocab).
func tokenIDs(got map[string]any, vocab int) (map[string]int, error) {
	out := map[string]int{}
	var problems []string
	for _, k := range TokenIDKeys {
		v, ok := got[k]
		if !ok {
			continue
		}
		f, isNum := v.(float64)
		if !isNum || f != float64(int(f)) || f < 0 || int(f) >= vocab {
			problems = append(problems, fmt.Sprintf("%s is %s: want an integer id in [0, %d) (vocab_size)", k, jsonText(v), vocab))
			continue
		}
		out[k] = int(f)
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	return out, nil
}

// encodeJSONNoEscape is json.MarshalIndent without HTML escaping (the model card's and the tokenizer
// config's "<|endoftext|>" as it is).
func encodeJSONNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
