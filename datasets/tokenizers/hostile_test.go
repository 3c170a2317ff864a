package tokenizers

import (
	"strings"
	"testing"
)

// TestBPEHostileIDs: ids are validated before they size any table — the campaign's tokenizer.json with an id
// of 5e9 or an added token id of 2147483647 crashed with "fatal error: out of memory" — and a file that maps
// every token to one id, or spreads a few tokens over a huge id range, is refused, naming the file and field.
func TestBPEHostileIDs(t *testing.T) {
	vocab := `{"<|endoftext|>": 0, "a": 1, "b": 2, "Ġ": 3, "ab": 4, "Ġab": 5}`
	withVocab := func(v string) string { return strings.Replace(tinyHF(), vocab, v, 1) }
	withAdded := func(extra string) string {
		return strings.Replace(tinyHF(), `"special": true}`, `"special": true},
    `+extra, 1)
	}
	cases := []struct {
		name, content, want string
	}{
		{"vocab id 5e9", withVocab(`{"<|endoftext|>": 0, "a": 1, "b": 2, "Ġ": 3, "ab": 4, "Ġab": 5000000000}`),
			`model.vocab: id 5000000000 for "Ġab" is out of range [0, 4194304)`},
		{"added id 2147483647", withAdded(`{"id": 2147483647, "content": "<big>", "normalized": false, "special": true}`),
			`added_tokens: id 2147483647 for "<big>" is out of range`},
		{"negative id", withVocab(`{"<|endoftext|>": 0, "a": -1, "b": 2, "Ġ": 3, "ab": 4, "Ġab": 5}`),
			`model.vocab: id -1 for "a" is out of range`},
		{"every token one id", withVocab(`{"<|endoftext|>": 0, "a": 0, "b": 0, "Ġ": 0, "ab": 0, "Ġab": 0}`),
			`have the same id 0 (ids must be unique)`},
		{"two added tokens one id", withAdded(`{"id": 0, "content": "<other>", "normalized": false, "special": true}`),
			`added_tokens: "<|endoftext|>" and "<other>" have the same id 0`},
		{"sparse ids", withVocab(`{"<|endoftext|>": 0, "a": 1, "b": 2, "Ġ": 3, "ab": 4, "Ġab": 100000}`),
			`the ids are too sparse: 6 tokens spread over ids 0..100000`},
	}
	for _, c := range cases {
		p := tokWriteFile(t, "hostile.json", c.content)
		_, err := LoadHFTokenizer(p)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not name the file and %s", c.name, err, c.want)
		}
	}
	// An added token repeating its vocabulary entry (as Hugging Face files do) is fine, and so are a few holes.
	p := tokWriteFile(t, "ok.json", withVocab(`{"<|endoftext|>": 0, "a": 1, "b": 2, "Ġ": 3, "ab": 4, "Ġab": 200}`))
	tok, err := LoadHFTokenizer(p)
	if err != nil {
		t.Fatal(err)
	}
	if tok.VocabSize() != 201 {
		t.Errorf("VocabSize = %d, want 201", tok.VocabSize())
	}
}

// TestTokenizerParseErrorEchoesNothing: a file that is not JSON (say, a secret some run.json pointed at) is
// refused without quoting its content.
func TestTokenizerParseErrorEchoesNothing(t *testing.T) {
	p := tokWriteFile(t, "secret.json", "Zsecret-password\n")
	_, err := Load(p)
	if err == nil {
		t.Fatal("no error")
	}
	if strings.Contains(err.Error(), "Z") || strings.Contains(err.Error(), "secret-") {
		t.Errorf("error %q echoes the file's content", err)
	}
	if !strings.Contains(err.Error(), "invalid JSON at byte 1") || !strings.Contains(err.Error(), p) {
		t.Errorf("error %q does not name the file and the offset", err)
	}
}
