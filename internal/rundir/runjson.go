// Package runinfo reads what a training run recorded next to its checkpoints (run.json, written by
// recipes/recipe) that later commands need, such as the tokenizer the model was trained with.
package runinfo

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// Tokenizer returns the tokenizer spec (tokenizers.Load) recorded in dir/run.json, or "bytes" when
// there is none (checkpoints written by `oryx init` or outside a recipe).
func Tokenizer(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err == nil {
		var r struct {
			Tokenizer string `json:"tokenizer"`
		}
		if json.Unmarshal(data, &r) == nil && r.Tokenizer != "" {
			return r.Tokenizer
		}
	}
	return "bytes"
}
