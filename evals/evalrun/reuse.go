package evalrun

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/leaderboard"
	"github.com/oryx-go/oryx/internal/safefile"
)

// reusableTasks returns the entries of a previous results file of the same run (previousResults) that a rerun
// may keep: none when the checkpoint has moved on to another step since, or holds other weights at the same
// step (its CheckpointHash differs from now's, or the file records none), since the scores are of other
// weights; and never an entry that fails CheckResult (null or missing metrics, an accuracy out of [0, 1], a
// document count that does not add up) or whose data file's content changed since it was scored (its
// DataHash, or none recorded), or that was scored on another data file than the one its task reads now
// (tasks: this run's; a task that is a harness.DataSource names its file). Each entry dropped is said on log
// with the reason; it is recomputed.
func reusableTasks(prev *leaderboard.ResultsFile, now leaderboard.RunInfo, tasks []harness.Task, out string, log io.Writer) map[string]*harness.Result {
	done := map[string]*harness.Result{}
	if prev == nil {
		return done
	}
	if log == nil {
		log = io.Discard
	}
	if len(prev.Tasks) == 0 {
		return done
	}
	if prev.CheckpointStep != now.CheckpointStep {
		fmt.Fprintf(log, "%s: its %d task(s) were scored at checkpoint step %d, the checkpoint is now at step %d: "+
			"rerunning them\n", out, len(prev.Tasks), prev.CheckpointStep, now.CheckpointStep)
		return done
	}
	if prev.CheckpointHash != now.CheckpointHash {
		was := prev.CheckpointHash
		if was == "" {
			was = "not recorded"
		}
		fmt.Fprintf(log, "%s: its %d task(s) were scored with other weights (checkpoint %s at step %d: hash %s, now %s): "+
			"rerunning them\n", out, len(prev.Tasks), now.Checkpoint, now.CheckpointStep, was, now.CheckpointHash)
		return done
	}
	dataPaths := map[string]string{}
	for _, t := range tasks {
		if d, ok := t.(harness.DataSource); ok {
			dataPaths[t.Name()] = d.DataPath()
		}
	}
	for _, name := range slices.Sorted(maps.Keys(prev.Tasks)) {
		r := prev.Tasks[name]
		if err := CheckResult(r); err != nil {
			fmt.Fprintf(log, "%s: the entry in %s is not usable (%v): rerunning it\n", name, out, err)
			continue
		}
		if err := sameData(r, dataPaths[name]); err != nil {
			fmt.Fprintf(log, "%s: the entry in %s is not usable (%v): rerunning it\n", name, out, err)
			continue
		}
		done[name] = r
	}
	return done
}

// sameData checks that r was scored on the data file its task reads now (current; "" when the task names
// none) and that the file still has the content it was scored on (DataHash). A rerun with another data root
// reads other files: the earlier score is not of them, whatever the recorded file holds.
func sameData(r *harness.Result, current string) error {
	if current != "" && filepath.Clean(current) != filepath.Clean(r.Data) {
		was := r.Data
		if was == "" {
			was = "no data file"
		}
		return fmt.Errorf("it was scored on %s, this run reads %s", was, current)
	}
	if r.Data == "" {
		return nil // a task without a data file (generated samples)
	}
	now, err := DataHash(r.Data)
	switch {
	case err != nil:
		return fmt.Errorf("its data file %s cannot be read now: %w", r.Data, err)
	case r.DataHash == "":
		return fmt.Errorf("it records no identity of its data file %s", r.Data)
	case now != r.DataHash:
		return fmt.Errorf("its data file %s changed since it was scored (hash %s, now %s)", r.Data, r.DataHash, now)
	}
	return nil
}

// recordDataHash sets r.DataHash, the identity of the data r was just scored on: a rerun keeps r only while
// it holds (reusableTasks). A file that cannot be hashed leaves it empty, said on log: a rerun recomputes.
func recordDataHash(r *harness.Result, log io.Writer) {
	if r.Data == "" {
		return
	}
	var err error
	if r.DataHash, err = DataHash(r.Data); err != nil {
		fmt.Fprintf(log, "%s: no identity recorded for its data file (%v): a rerun recomputes it\n", r.Task, err)
	}
}

// DataHash identifies the content of a task's data (a file, or a glob pattern: every file it matches, in
// name order): "sha256:" and the SHA-256 of each file's name, length and bytes. A content hash, as
// oryx.CheckpointHash and for the same reasons (a rewrite may keep a file's size and time); the files are
// read once more, which costs little beside scoring them.
func DataHash(pattern string) (string, error) {
	files := []string{pattern}
	if strings.ContainsAny(pattern, "*?[") {
		var err error
		if files, err = filepath.Glob(pattern); err != nil {
			return "", err
		}
		if len(files) == 0 {
			return "", fmt.Errorf("%s matches no files", pattern)
		}
		slices.Sort(files)
	}
	h := sha256.New()
	for _, path := range files {
		if err := safefile.HashInto(h, path, path); err != nil {
			return "", err
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// CheckResult validates a task's result before it is written or trusted again: at least one document
// scored and no more than the data holds, metrics present, every value finite, accuracies and scores in [0, 1] and
// perplexities ≥ 0. A zero-row data file or NaN scores fail here with the reason.
func CheckResult(r *harness.Result) error {
	if r == nil {
		return errors.New("no result")
	}
	switch {
	case r.Docs <= 0:
		return fmt.Errorf("%d documents scored (is the task's data file empty?)", r.Docs)
	case r.TotalDocs < 0:
		return fmt.Errorf("%d documents in the data", r.TotalDocs)
	case r.TotalDocs > 0 && r.Docs > r.TotalDocs:
		return fmt.Errorf("%d documents scored of %d in the data", r.Docs, r.TotalDocs)
	}
	return checkMetrics(r)
}

// checkMetrics is CheckResult's check of the metrics: present, finite, accuracies and scores in [0, 1], perplexities
// ≥ 0.
func checkMetrics(r *harness.Result) error {
	if len(r.Metrics) == 0 {
		return errors.New("no metrics")
	}
	for _, name := range slices.Sorted(maps.Keys(r.Metrics)) {
		v := r.Metrics[name].Value
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("metric %s is %v (non-finite scores: NaN model outputs?)", name, v)
		case isFraction(name) && (v < 0 || v > 1):
			return fmt.Errorf("metric %s is %v, out of [0, 1]", name, v)
		case v < 0 && (strings.Contains(name, "perplexity") || name == "bits_per_byte"):
			return fmt.Errorf("metric %s is %v, negative", name, v)
		}
	}
	return nil
}

// checkMergedResult is CheckResult for a result `evals merge` reads from a file. lm-eval 0.4.0 recorded no
// document counts (n-samples): such a result reads as 0 of 0 documents, and only its metrics are checked.
func checkMergedResult(r *harness.Result) error {
	if r == nil || r.Docs != 0 || r.TotalDocs != 0 {
		return CheckResult(r)
	}
	return checkMetrics(r)
}

// isFraction reports whether a metric is a proportion of documents (acc, acc_norm, contains, exact_match) or
// a score in [0, 1] (the NIAH tasks' and the mini needle's score, score@<length>, score@d<depth>).
func isFraction(name string) bool {
	return strings.HasPrefix(name, "acc") || strings.HasPrefix(name, "contains") || strings.HasPrefix(name, "exact_match") ||
		name == "score" || strings.HasPrefix(name, "score@")
}
