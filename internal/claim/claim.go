// Package claim is which command owns a directory: every command that writes a directory of its own claims
// it first (Dir), and every command that writes a file claims the file (File).
package claim

// Which command owns a directory. Every command that writes a directory of its own — training and `oryx
// init` (a run directory), `oryx import` (a run directory), `oryx export` (an export), `oryx tokenize` (a
// tokenized corpus), the study, `evals frontier`, `evals switch` — claims its --out first (Dir): it may
// write into a directory that is absent, empty, of its own kind (a rerun resumes or replaces its own output),
// or that holds other files none of which it would replace; a directory of another command's kind is refused
// with a message naming the path and what it holds, unless the user says --force. Commands that write files
// (`evals`' results file, `evals mqar`, `evals merge`, `oryx synth`) claim the file (File): never under
// a name that the owner of its directory writes, never over a file that is not already theirs.
//
// The rules are by content, the files each command writes (no marker file: the directories written before
// these rules are classified the same way):
//
//	run directory       config.json holding an oryx config, checkpoint files and trainer states under the
//	                    exact names their writers give them, run.json, metrics.jsonl, .oryx.lock, .staging-N
//	                    (internal/rundir)
//	export              model.safetensors, modeling_oryx.py, a config.json holding "oryx_config" or
//	                    "architectures" (oryx/hf)
//	tokenized corpus    manifest.json, tokens-NNNNN.parquet (datasets: Pretokenize)
//	study               study.json, scale.json, attribution.json, decompose.json, .worker-*.json, or a runs/
//	                    folder of run directories (recipes/study)
//	frontier            frontier.json (evals frontier)
//	mode-switch curves  switch.json (evals switch)

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/internal/safefile"
)

// Kind is what a directory holds: which command's output it is.
type Kind string

// The kinds of directories a command owns.
const (
	RunDir   Kind = "a run directory"
	Export   Kind = "an export"
	Corpus   Kind = "a tokenized corpus"
	Study    Kind = "a study"
	Frontier Kind = "an attention-budget frontier"
	Switch   Kind = "mode-switch curves"
)

// The files that mark the kinds other than the run directory (whose names are internal/rundir's).
// Their writers use these names.
const (
	ExportWeightsFile  = "model.safetensors" // oryx/hf.WeightsFile
	ExportModelingFile = "modeling_oryx.py"  // oryx/hf.ModelingFile
	CorpusManifestFile = "manifest.json"     // datasets.PretokenizedManifestFile
	FrontierFile       = "frontier.json"     // evals frontier's record
	SwitchFile         = "switch.json"       // evals switch's curves
	StudyRunsDir       = "runs"              // a study's run directories
	StudyWorkerPrefix  = ".worker-"          // a study's worker configurations, .worker-<run>.json
)

// StudyRecords are the records a study writes at its end, one per kind of study (recipes/study: Config.kind).
var StudyRecords = []string{"study.json", "scale.json", "attribution.json", "decompose.json", "decide.json"}

// outputs are, per kind, the fixed names its writer writes or replaces: in a directory of no kind, any of
// them already there (not the writer's, or the directory would be of its kind) makes Dir refuse.
var outputs = map[Kind][]string{
	RunDir: {rundir.ConfigFile, rundir.RunFile, rundir.MetricsFile, rundir.SummaryFile, rundir.CurvesFile, rundir.TokenizerDir, rundir.LockFile},
	Export: {ExportWeightsFile, rundir.ConfigFile, ExportModelingFile, "tokenizer.json", "tokenizer_config.json",
		"special_tokens_map.json", "generation_config.json", "README.md"}, // oryx/hf: exportFiles
	Corpus:   {CorpusManifestFile},
	Study:    append([]string{"report.md", "leaderboard.json", "leaderboard.md", "results", StudyRunsDir, "frontier", "evaluations"}, StudyRecords...),
	Frontier: {FrontierFile, "frontier.png", "frontier_fraction.png"},
	Switch:   {SwitchFile, "switch.png"},
}

var (
	corpusShardRE = regexp.MustCompile(`^tokens-[0-9]{5}\.parquet$`)
	stateFileAny  = regexp.MustCompile(`^` + rundir.StatePrefix + `[0-9]+\.json$`)
)

// Holding is what Classify found in a directory.
type Holding struct {
	Path   string
	Exists bool
	IsDir  bool
	Mode   fs.FileMode // of what is at Path (after links) when it exists
	// Kinds are the kinds the directory has the marks of (none: empty, or files of no kind; two or more: a
	// directory that mixes outputs), each with the names that mark it.
	Kinds    []Kind
	Evidence map[Kind][]string
	Entries  []string // the directory's entries
}

// Describe says what the path holds, for messages: "a run directory (config.json, checkpoint-n0000001-…,
// run.json)", "nothing", "an empty directory", "a regular file".
func (h Holding) Describe() string {
	switch {
	case !h.Exists:
		return "nothing"
	case !h.IsDir:
		return safefile.Describe(h.Mode)
	case len(h.Kinds) == 0 && len(h.Entries) == 0:
		return "an empty directory"
	case len(h.Kinds) == 0:
		return "a directory of other files (" + listNames(h.Entries) + ")"
	}
	var parts []string
	for _, k := range h.Kinds {
		parts = append(parts, fmt.Sprintf("%s (%s)", k, listNames(h.Evidence[k])))
	}
	return strings.Join(parts, " and ")
}

// listNames lists at most four names, then how many more.
func listNames(names []string) string {
	if len(names) <= 4 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:4], ", "), len(names)-4)
}

// Classify reads what path holds (following a link at path itself). An error is returned only when path
// exists but cannot be read.
func Classify(path string) (Holding, error) {
	h := Holding{Path: path, Evidence: map[Kind][]string{}}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return h, err
	}
	h.Exists, h.IsDir, h.Mode = true, st.IsDir(), st.Mode()
	if !h.IsDir {
		return h, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return h, err
	}
	mark := func(k Kind, name string) { h.Evidence[k] = append(h.Evidence[k], name) }
	for _, e := range entries {
		n := e.Name()
		h.Entries = append(h.Entries, n)
		switch {
		case n == ExportWeightsFile || n == ExportModelingFile:
			mark(Export, n)
		case n == rundir.ConfigFile:
			switch configKind(filepath.Join(path, n)) {
			case RunDir:
				mark(RunDir, n)
			case Export:
				mark(Export, n)
			}
		case n == rundir.RunFile:
			if isRunRecord(filepath.Join(path, n)) {
				mark(RunDir, n)
			}
		case isRunFile(n, e.IsDir()):
			mark(RunDir, n)
		case n == CorpusManifestFile || corpusShardRE.MatchString(n):
			mark(Corpus, n)
		case slices.Contains(StudyRecords, n) || strings.HasPrefix(n, StudyWorkerPrefix) && strings.HasSuffix(n, ".json"):
			mark(Study, n)
		case n == StudyRunsDir && e.IsDir() && holdsRuns(filepath.Join(path, n)):
			mark(Study, n+"/")
		case n == FrontierFile:
			mark(Frontier, n)
		case n == SwitchFile:
			mark(Switch, n)
		}
	}
	for _, k := range []Kind{RunDir, Export, Corpus, Study, Frontier, Switch} {
		if len(h.Evidence[k]) > 0 {
			h.Kinds = append(h.Kinds, k)
		}
	}
	return h, nil
}

// isRunFile reports whether the entry name (a folder when dir) is one a run directory's writers write under
// their exact names: a checkpoint's file, a trainer state, metrics.jsonl, the lock, a checkpoint's staging
// folder. A user's "checkpoint-backup/" or "trainer-state-notes.txt" does not make a directory a run
// directory (the trainer would then write its config.json over the user's).
func isRunFile(name string, dir bool) bool {
	if dir {
		return rundir.IsStagingDir(name)
	}
	_, _, ckpt := rundir.IsCheckpointFile(name)
	return ckpt || stateFileAny.MatchString(name) || name == rundir.MetricsFile || name == rundir.LockFile
}

// configKind tells an oryx config.json (a run directory's) from an export's Hugging Face config.json by its
// keys; "" for a file that is neither (or cannot be read).
func configKind(path string) Kind {
	data, err := safefile.ReadFileMax(path, 1<<20)
	if err != nil {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return ""
	}
	_, oryxConfig := m["oryx_config"]
	_, architectures := m["architectures"]
	_, variant := m["variant"]
	_, dModel := m["d_model"]
	switch {
	case oryxConfig || architectures:
		return Export
	case variant && dModel:
		return RunDir
	}
	return ""
}

// isRunRecord tells a run directory's run.json (the trainer's record: "model" and "train") from a file of
// the same name of another kind (an `evals` results file named run.json).
func isRunRecord(path string) bool {
	data, err := safefile.ReadFileMax(path, 16<<20)
	if err != nil {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	_, model := m["model"]
	_, train := m["train"]
	return model && train
}

// holdsRuns reports whether dir (a study's runs/) holds at least one run directory.
func holdsRuns(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub, err := Classify(filepath.Join(dir, e.Name()))
		if err == nil && slices.Contains(sub.Kinds, RunDir) {
			return true
		}
	}
	return false
}

// Dir checks that a command may write its output of kind want into dir (flag names the command-line flag
// for messages, e.g. "--out"): dir is absent, empty, of kind want only, or a directory of no kind that holds
// none of the names want's writer writes. Otherwise the error names the path, what it holds and the way out;
// force skips the check (the user said --force).
func Dir(flag, dir string, want Kind, force bool) error {
	if force {
		return nil
	}
	h, err := Classify(dir)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, dir, err)
	}
	if !h.Exists {
		return nil
	}
	if !h.IsDir {
		return fmt.Errorf("%s %s: is %s, not a directory", flag, dir, h.Describe())
	}
	var other []Kind
	for _, k := range h.Kinds {
		if k != want {
			other = append(other, k)
		}
	}
	if len(other) > 0 {
		return fmt.Errorf("%s %s holds %s, not %s: refusing to write into it (it would mix the two or replace its "+
			"files); choose another %s, or pass --force to write there anyway", flag, dir, h.Describe(), want, flag)
	}
	if len(h.Kinds) == 0 {
		var clash []string
		for _, n := range outputs[want] {
			if slices.Contains(h.Entries, n) {
				clash = append(clash, n)
			}
		}
		if len(clash) > 0 {
			return fmt.Errorf("%s %s holds %s, which writing %s there would replace, and they are not its files: "+
				"refusing to overwrite them; choose another %s, or pass --force to write there anyway", flag, dir,
				strings.Join(clash, ", "), want, flag)
		}
	}
	return nil
}

// File checks that a command may write the file path (flag names the flag): not under a name that the
// writer of its directory's kind writes (another command's output), not over a directory or anything but a regular file, and
// not over an existing file that ours (the writer's own reader, e.g. a results file parser) refuses (nil:
// any existing file is refused). force skips the check.
func File(flag, path string, what string, ours func(path string) error, force bool) error {
	if force {
		return nil
	}
	dir := filepath.Dir(path)
	h, err := Classify(dir)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	// A file beside another command's output is harmless unless its name is one that output's writer writes
	// (evals --out runs/q/metrics.jsonl would be appended to by the trainer; an existing file is checked below).
	for _, k := range h.Kinds {
		if ownsName(k, filepath.Base(path)) {
			return fmt.Errorf("%s %s: its directory %s holds %s, whose writer writes %s: refusing to write %s there; "+
				"choose another %s, or pass --force to write there anyway", flag, path, dir, h.Describe(),
				filepath.Base(path), what, flag)
		}
	}
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if !st.Mode().IsRegular() {
		if st.Mode()&fs.ModeSymlink != 0 {
			if t, err := os.Stat(path); err == nil && t.Mode().IsRegular() && ours != nil && ours(path) == nil {
				return nil // a link to a file of ours: replaced by the atomic write, its target kept
			}
		}
		return fmt.Errorf("%s %s: is %s, not %s: refusing to replace it; choose another %s, or pass --force",
			flag, path, safefile.Describe(st.Mode()), what, flag)
	}
	if ours == nil {
		return fmt.Errorf("%s %s: exists: refusing to overwrite it; choose another %s, or pass --force", flag, path, flag)
	}
	if err := ours(path); err != nil {
		return fmt.Errorf("%s %s: exists and is not %s (%v): refusing to overwrite it; choose another %s, or pass --force",
			flag, path, what, err, flag)
	}
	return nil
}

// ownsName reports whether a directory of kind k has, or its writer writes, a file called name.
func ownsName(k Kind, name string) bool {
	if slices.Contains(outputs[k], name) {
		return true
	}
	switch k {
	case RunDir:
		return name == rundir.RunFile || name == rundir.SummaryFile || strings.HasPrefix(name, rundir.CheckpointPrefix) ||
			stateFileAny.MatchString(name) || strings.HasPrefix(name, rundir.StagingPrefix)
	case Corpus:
		return corpusShardRE.MatchString(name)
	case Study:
		return strings.HasPrefix(name, StudyWorkerPrefix)
	}
	return false
}

// Shared checks a directory that a command writes some files of names of its own into beside others'
// (`evals`' lm-eval folder <dir>/<model>/, results_<date>.json): it must be a directory or absent; another
// command's output there is left alone (no name clashes). force skips the check.
func Shared(flag, dir, what string, force bool) error {
	if force {
		return nil
	}
	h, err := Classify(dir)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", flag, dir, err)
	}
	if h.Exists && !h.IsDir {
		return fmt.Errorf("%s: %s is %s, not a directory (it would hold %s)", flag, dir, h.Describe(), what)
	}
	// Beside another command's output (evals --out runs/q.json with --checkpoint runs/q puts lm-eval's folder in
	// the run directory) the dated files replace none of its files: allowed.
	return nil
}
