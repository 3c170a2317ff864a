package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
)

// Start-up housekeeping of a run directory, done by Train once it holds the directory's lock
// (internal/runlock): nothing else can be writing there, so every temporary file is a leftover of a killed
// process.

// tmpFileRE matches the temporary files of the atomic writes into a run directory: writeFileAtomic's
// "NAME.tmp-N" (trainer-state-*.json, run.json, summary.json, metrics.jsonl) and the plot writer's
// ".NAME.tmp-N" (curves.png).
var tmpFileRE = regexp.MustCompile(`^\.?[A-Za-z0-9_.-]+\.(json|jsonl|png)\.tmp-[0-9]+$`)

// cleanLeftovers removes what interrupted saves left in dir — the checkpoint code's staging folders and
// partial files (oryx.CleanLeftovers), and the temporary files of atomic writes — and says so on log.
func cleanLeftovers(dir string, log io.Writer) error {
	removed, err := oryx.CleanLeftovers(dir)
	if err != nil {
		return fmt.Errorf("removing leftovers of interrupted saves in %s: %w", dir, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Type().IsRegular() && tmpFileRE.MatchString(e.Name()) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("removing leftovers of interrupted saves in %s: %w", dir, err)
			}
			removed = append(removed, e.Name())
		}
	}
	if len(removed) > 0 {
		fmt.Fprintf(log, "%s: removed %d leftover(s) of interrupted saves (no complete checkpoint uses them): %s\n",
			dir, len(removed), strings.Join(removed, ", "))
	}
	return nil
}

// tokenizerDir is the folder of a run directory that holds the run's copy of its tokenizer file.
const tokenizerDir = "tokenizer"

// copyTokenizer copies the tokenizer file of spec (a .json or .model path; nothing for "bytes") into
// out/tokenizer/, named after the tokenizer so that its Name is unchanged, and returns the copy's path
// relative to out ("" for none). Later commands read the copy (internal/rundir), so the run directory is
// self-contained and never sends them to a path outside it.
func copyTokenizer(out, spec, name string) (string, error) {
	if spec == "" || spec == "bytes" {
		return "", nil
	}
	ext := filepath.Ext(spec)
	base := name
	if !filepath.IsLocal(base) || strings.ContainsAny(base, `/\`) || base == "" {
		base = "tokenizer"
	}
	rel := filepath.Join(tokenizerDir, base+ext)
	dst := filepath.Join(out, rel)
	if a, err := os.Stat(spec); err == nil {
		if b, err := os.Stat(dst); err == nil && os.SameFile(a, b) {
			return rel, nil // training with the run's own copy
		}
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(out, tokenizerDir), 0o755); err != nil {
		return "", err
	}
	if err := rundir.WriteFileAtomic(dst, data); err != nil {
		return "", err
	}
	return rel, nil
}

// finishedRun reports whether r.Out holds r finished: its newest checkpoint is at r.Train.Steps with the same
// model, trajectory and data, and summary.json is there (returned). A run that differs, or whose summary is missing,
// is not finished: Train resumes it (or refuses it with the reason).
func finishedRun(r Run) (*Summary, bool, error) {
	names, err := oryx.ListCheckpoints(r.Out)
	if err != nil || len(names) == 0 {
		return nil, false, err
	}
	step, ok := rundir.CheckpointStep(names[len(names)-1])
	if !ok || step < r.Train.Steps {
		return nil, false, nil
	}
	st, err := readState(r.Out, step)
	if err != nil || len(trajectoryDiff(st.Train, r.Train)) > 0 || st.Data != r.Data {
		return nil, false, nil // Train reports it
	}
	if cfg, err := oryx.LoadConfig(filepath.Join(r.Out, oryx.ConfigFileName)); err != nil || len(cfg.Diff(r.Model)) > 0 {
		return nil, false, nil // LoadCheckpoint reports it
	}
	data, err := os.ReadFile(filepath.Join(r.Out, rundir.SummaryFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var sum Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		return nil, false, fmt.Errorf("%s: %w", filepath.Join(r.Out, rundir.SummaryFile), err)
	}
	return &sum, true, nil
}

// removeRun removes what a run wrote into dir — checkpoints, trainer states, metrics.jsonl, curves.png and
// summary.json — keeping anything else (the tokenizer copy is rewritten by the new run).
func removeRun(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, "checkpoint-") || strings.HasPrefix(n, "trainer-state-") ||
			n == rundir.MetricsFile || n == rundir.SummaryFile || n == "curves.png" {
			if err := os.RemoveAll(filepath.Join(dir, n)); err != nil {
				return fmt.Errorf("retraining %s: %w", dir, err)
			}
		}
	}
	return nil
}
