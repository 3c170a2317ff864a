package evalrun

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/oryx-go/oryx/evals/leaderboard"
)

// The model name of a run names files: the default results file results/<model>-<schedule>.json and lm-eval's
// folder <dir of --out>/<model>/ (LMEvalDir), through lm-eval's sanitize_model_name, which replaces "/" and
// the other characters paths and shells treat specially but keeps "." and "..": `--model ..` (or a
// --checkpoint named ..) wrote results and samples beside --out's folder instead of in it.

// checkModelName refuses a model name that cannot name one folder (sanitized, it is "", "." or ".."), is
// not valid UTF-8 (the results files are JSON: two such names would read back the same) or holds control
// characters. given says whether it came from --model (else from the checkpoint directory's name).
func checkModelName(model string, given bool, checkpoint string) error {
	var why string
	switch folder := leaderboard.SanitizeModelName(model); {
	case !utf8.ValidString(model):
		why = "is not valid UTF-8"
	case strings.IndexFunc(model, unicode.IsControl) >= 0:
		why = "holds control characters"
	case folder == "" || folder == "." || folder == "..":
		why = fmt.Sprintf("cannot name lm-eval's results folder (it would be %q)", folder)
	default:
		return nil
	}
	if given {
		return fmt.Errorf("--model %q %s: give another name", model, why)
	}
	return fmt.Errorf("the model name %q, the name of --checkpoint %s, %s: give --model NAME", model, checkpoint, why)
}

// checkLMEvalDirOutsideCheckpoint refuses an lm-eval folder (LMEvalDir) that is the checkpoint directory or
// lies inside it: with --out beside the checkpoint, <dir of --out>/<model>/ is the checkpoint directory
// (the model name defaults to its name), and results and samples files went into it.
func checkLMEvalDirOutsideCheckpoint(lmDir, checkpoint, out, model string) error {
	rel, err := filepath.Rel(realPath(checkpoint), realPath(lmDir))
	if err != nil || !filepath.IsLocal(rel) { // "." (the directory itself) is local
		return nil
	}
	return fmt.Errorf("--out %s: lm-eval's folder for model %q, %s, would be inside the checkpoint directory %s: "+
		"results and samples are never written there; give --out in another folder, or another --model", out, model, lmDir, checkpoint)
}

// realPath is path made absolute with its symbolic links resolved as far as it exists (the rest, not created
// yet, is appended as it is).
func realPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if dir == filepath.Dir(dir) {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}
