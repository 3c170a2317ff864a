// Package runinfo reads what a training run recorded next to its checkpoints (run.json, written by
// recipes/recipe) that later commands need, such as the tokenizer the model was trained with.
//
// Paths read from a run directory resolve relative to it and must stay inside it: a checkpoint directory
// received from elsewhere must not make `evals` or `oryx generate` open an arbitrary file on this machine
// (an absolute path, or "../.." out of the directory). Leaving the directory takes an explicit flag
// (--tokenizer PATH).
package runinfo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// FileName is the run's record in a run directory.
const FileName = "run.json"

// record is the part of run.json this package reads.
type record struct {
	Tokenizer     string `json:"tokenizer"`      // the spec the run was started with (datasets.LoadTokenizer)
	TokenizerFile string `json:"tokenizer_file"` // the run's copy of the tokenizer file, relative to the run directory
}

// Tokenizer returns the tokenizer spec (datasets.LoadTokenizer) of the run in dir: "bytes" when dir/run.json
// is absent or names none (checkpoints written by `oryx init` or outside a recipe), else the run's copy of
// its tokenizer file (tokenizer_file), else the recorded spec resolved relative to dir. A path that leaves
// dir (absolute, or through "..") or a run.json that cannot be read is an error naming the file and saying to
// pass --tokenizer.
func Tokenizer(dir string) (string, error) {
	path := filepath.Join(dir, FileName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "bytes", nil
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w (pass --tokenizer to choose the tokenizer)", path, err)
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return "", fmt.Errorf("%s: not a run record (%v); pass --tokenizer to choose the tokenizer", path, err)
	}
	field, spec := "tokenizer_file", r.TokenizerFile
	if spec == "" {
		field, spec = "tokenizer", r.Tokenizer
		if spec == "" || spec == "bytes" {
			return "bytes", nil
		}
	}
	if !filepath.IsLocal(spec) {
		return "", fmt.Errorf("%s: %s %q is outside the run directory; paths read from a run directory must stay "+
			"inside it: pass --tokenizer %q to use that file", path, field, spec, spec)
	}
	resolved := filepath.Join(dir, spec)
	if _, err := os.Stat(resolved); err != nil {
		return "", fmt.Errorf("%s: %s %q: %s is missing (the path is relative to the run directory); pass "+
			"--tokenizer to choose the tokenizer", path, field, spec, resolved)
	}
	// A symbolic link inside the directory may point out of it: the same rule applies to its target.
	realDir, err1 := filepath.EvalSymlinks(dir)
	realFile, err2 := filepath.EvalSymlinks(resolved)
	if err1 != nil || err2 != nil {
		return "", fmt.Errorf("%s: %s %q: resolving %s: %w", path, field, spec, resolved, errors.Join(err1, err2))
	}
	if rel, err := filepath.Rel(realDir, realFile); err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s: %s %q is a link to %s, outside the run directory; pass --tokenizer %q to use "+
			"that file", path, field, spec, realFile, realFile)
	}
	return resolved, nil
}
