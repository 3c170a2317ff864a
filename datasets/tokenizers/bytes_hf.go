package tokenizers

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// HFJSON returns the byte tokenizer as a Hugging Face tokenizers tokenizer.json (version "1.0"), so that the
// tokenizers library, and transformers' PreTrainedTokenizerFast (AutoTokenizer), give the ids Encode gives:
//
//   - model: BPE over the 256 single bytes of GPT-2's byte↔unicode alphabet (byte b has id b) with no merges,
//     so every byte stays its own token;
//   - pre_tokenizer and decoder: ByteLevel without a prefix space and without the GPT-2 regex split (nothing
//     is split, every byte is mapped);
//   - added_tokens: "<|endoftext|>" (256) and "<|pad|>" (257), special and not normalized, so their literal
//     text anywhere in the input is split out first, as Encode does;
//   - no normalizer and no post-processor: nothing is changed and no BOS or EOS is added.
//
// For valid UTF-8 text s, the library's encode(s) (add_special_tokens either way) equals Encode(s) and its
// decode(ids) equals Decode(ids); invalid UTF-8 cannot be a Python string, and decoding ids that cut a
// multi-byte character gives U+FFFD there in the library where Decode gives the bytes. LoadHFTokenizer reads
// the file back, with the same ids for valid UTF-8. The output is deterministic (the vocabulary's keys
// sorted), so an export of it compares byte for byte.
func (*ByteTokenizer) HFJSON() []byte {
	byteToRune, _ := byteLevelAlphabet()
	vocab := make(map[string]int, 256)
	for b := range 256 {
		vocab[string(byteToRune[b])] = b
	}
	type addedToken struct {
		ID         int    `json:"id"`
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
		Lstrip     bool   `json:"lstrip"`
		Rstrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
		Special    bool   `json:"special"`
	}
	type byteLevel struct {
		Type           string `json:"type"`
		AddPrefixSpace bool   `json:"add_prefix_space"`
		TrimOffsets    bool   `json:"trim_offsets"`
		UseRegex       bool   `json:"use_regex"`
	}
	bl := byteLevel{Type: "ByteLevel", TrimOffsets: true}
	var added []addedToken
	for k, s := range byteTokSpecials {
		added = append(added, addedToken{ID: ByteTokenizerEOS + k, Content: s, Special: true})
	}
	f := struct {
		Version       string       `json:"version"`
		Truncation    any          `json:"truncation"`
		Padding       any          `json:"padding"`
		AddedTokens   []addedToken `json:"added_tokens"`
		Normalizer    any          `json:"normalizer"`
		PreTokenizer  byteLevel    `json:"pre_tokenizer"`
		PostProcessor any          `json:"post_processor"`
		Decoder       byteLevel    `json:"decoder"`
		Model         struct {
			Type                    string         `json:"type"`
			Dropout                 any            `json:"dropout"`
			UnkToken                any            `json:"unk_token"`
			ContinuingSubwordPrefix any            `json:"continuing_subword_prefix"`
			EndOfWordSuffix         any            `json:"end_of_word_suffix"`
			FuseUnk                 bool           `json:"fuse_unk"`
			ByteFallback            bool           `json:"byte_fallback"`
			Vocab                   map[string]int `json:"vocab"`
			Merges                  []string       `json:"merges"`
		} `json:"model"`
	}{Version: "1.0", AddedTokens: added, PreTokenizer: bl, Decoder: bl}
	f.Model.Type, f.Model.Vocab, f.Model.Merges = "BPE", vocab, []string{}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<|endoftext|>" as it is, not \u003c|endoftext|\u003e
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		panic(fmt.Sprintf("tokenizers: the byte tokenizer's tokenizer.json does not marshal: %v", err)) // cannot happen
	}
	return buf.Bytes()
}

// ByteTokenizerSpecials are the byte tokenizer's special tokens by id ("<|endoftext|>" 256, "<|pad|>" 257).
func ByteTokenizerSpecials() map[int]string {
	out := map[int]string{}
	for k, s := range byteTokSpecials {
		out[ByteTokenizerEOS+k] = s
	}
	return out
}
