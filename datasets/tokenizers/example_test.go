package tokenizers_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/oryx-go/oryx/datasets/tokenizers"
)

// Load picks the tokenizer from the spec: "bytes" (the default, no file), a Hugging Face tokenizer.json
// (byte-level BPE, e.g. GPT-NeoX-20B's) or a SentencePiece tokenizer.model.
func ExampleLoad() {
	tok, err := tokenizers.Load("bytes")
	if err != nil {
		panic(err)
	}
	ids := tok.Encode("héllo")
	fmt.Println(tok.Name(), tok.VocabSize(), ids, tok.Decode(ids))

	// A tiny byte-level BPE tokenizer.json: "Ġ" is the space byte; two merges build "ab" and "Ġab".
	dir, _ := os.MkdirTemp("", "tok")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tokenizer.json")
	_ = os.WriteFile(path, []byte(`{"version": "1.0",
	  "added_tokens": [{"id": 0, "content": "<|endoftext|>", "special": true}],
	  "normalizer": null, "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false},
	  "decoder": {"type": "ByteLevel"},
	  "model": {"type": "BPE", "vocab": {"<|endoftext|>": 0, "a": 1, "b": 2, "Ġ": 3, "ab": 4, "Ġab": 5},
	            "merges": ["a b", "Ġ ab"]}}`), 0o644)
	bpe, err := tokenizers.Load(path)
	if err != nil {
		panic(err)
	}
	ids = bpe.Encode("ab ab<|endoftext|>")
	fmt.Println(bpe.VocabSize(), ids, bpe.Decode(ids))
	// Output:
	// bytes 258 [104 195 169 108 108 111] héllo
	// 6 [4 5 0] ab ab<|endoftext|>
}
