package rundir

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/oryx-go/oryx/internal/safefile"
)

// The names of a run directory that the checkpoint writer (oryx.SaveCheckpoint) and the trainer share; the
// files themselves are in the package documentation.
const (
	// ConfigFile is the model's architecture beside the checkpoints (oryx.SaveConfig writes it).
	ConfigFile = "config.json"
	// CheckpointPrefix begins every checkpoint file: CheckpointName(count, rest) + ".json" / ".bin".
	CheckpointPrefix = "checkpoint-"
	// StagingPrefix begins the private folders a checkpoint is first saved into, inside the run directory.
	StagingPrefix = ".staging-"
	// TokenizerDir holds the run's copy of its tokenizer file (CopyTokenizer).
	TokenizerDir = "tokenizer"
	// LockFile is held by the directory's one writer (internal/runwriter).
	LockFile = ".oryx.lock"
)

// checkpointCountRE is the counter of a checkpoint name: "checkpoint-nNNNNNNN-".
var checkpointCountRE = regexp.MustCompile(`^checkpoint-n(\d+)-`)

// The exact names the run directory's writers give their files, so that a cleanup (a retrain, the leftovers of
// killed saves) removes only what they wrote, never a name like them that someone else chose
// ("checkpoint-backup/", "notes.json.tmp-1"):
var (
	// checkpointFileRE is a checkpoint's two files: CheckpointName(count, rest) with GoMLX's rest,
	// "<YYYYMMDD-HHMMSS>-initial" or "<YYYYMMDD-HHMMSS>-step-SSSSSSSS", then .json or .bin.
	checkpointFileRE = regexp.MustCompile(`^checkpoint-n\d{7,}-\d{8}-\d{6}-(initial|step-\d{8,})\.(json|bin)$`)
	// stagingDirRE is a checkpoint's staging folder: os.MkdirTemp(dir, StagingPrefix+"*") puts decimal digits
	// after the prefix.
	stagingDirRE = regexp.MustCompile(`^` + regexp.QuoteMeta(StagingPrefix) + `\d+$`)
)

// IsCheckpointFile reports whether name is one of a checkpoint's files as the checkpoint writer names them
// (oryx.SaveCheckpoint: CheckpointName with GoMLX's time and tag, .json or .bin), and returns the checkpoint's
// base name and the suffix.
func IsCheckpointFile(name string) (base, suffix string, ok bool) {
	if !checkpointFileRE.MatchString(name) {
		return "", "", false
	}
	ext := filepath.Ext(name)
	return strings.TrimSuffix(name, ext), ext, true
}

// IsStagingDir reports whether name is a checkpoint's staging folder as the checkpoint writer names them.
func IsStagingDir(name string) bool { return stagingDirRE.MatchString(name) }

// WrittenAtomically reports whether name is one of the run directory's files written by an atomic write
// (internal/atomicfile: a temporary file, then a rename): config.json, run.json, summary.json, metrics.jsonl,
// curves.png and the trainer-state files.
func WrittenAtomically(name string) bool {
	switch name {
	case ConfigFile, RunFile, SummaryFile, MetricsFile, CurvesFile:
		return true
	}
	return IsStateFile(name)
}

// CheckpointName is the base name (without .json/.bin) of the checkpoint with counter count, the rest of
// the name being GoMLX's "<time>-<tag>": "checkpoint-nNNNNNNN-<time>-<tag>". The counter grows with every
// save, so the names sort oldest first.
func CheckpointName(count int, rest string) string {
	return fmt.Sprintf("%sn%07d-%s", CheckpointPrefix, count, rest)
}

// SplitCheckpointName is CheckpointName's inverse: the counter and the rest of name; ok is false (and rest
// the whole name) when name has no counter.
func SplitCheckpointName(name string) (count int, rest string, ok bool) {
	m := checkpointCountRE.FindStringSubmatch(name)
	if m == nil {
		return 0, name, false
	}
	c, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, name, false
	}
	return c, name[len(m[0]):], true
}

// CopyTokenizer copies the tokenizer file of spec (a .json or .model path; nothing for "bytes") into
// out/tokenizer/, named after the tokenizer so that its Name is unchanged, and returns the copy's path
// relative to out ("" for none). Later commands read the copy (Tokenizer), so the run directory is
// self-contained and never sends them to a path outside it.
func CopyTokenizer(out, spec, name string) (string, error) {
	if spec == "" || spec == "bytes" {
		return "", nil
	}
	ext := filepath.Ext(spec)
	base := name
	if !filepath.IsLocal(base) || strings.ContainsAny(base, `/\`) || base == "" {
		base = "tokenizer"
	}
	rel := filepath.Join(TokenizerDir, base+ext)
	dst := filepath.Join(out, rel)
	if a, err := os.Stat(spec); err == nil {
		if b, err := os.Stat(dst); err == nil && os.SameFile(a, b) {
			return rel, nil // training with the run's own copy
		}
	}
	data, err := safefile.ReadFile(spec)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(out, TokenizerDir), 0o755); err != nil {
		return "", err
	}
	if err := WriteFileAtomic(dst, data); err != nil {
		return "", err
	}
	return rel, nil
}
