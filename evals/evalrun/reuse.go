package evalrun

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/leaderboard"
)

// reusableTasks returns the entries of a previous results file of the same run (finishedRun) that a rerun
// may keep: none when the checkpoint has moved on to another step since (the scores are of other weights),
// and never an entry that fails CheckResult (null or missing metrics, an accuracy out of [0, 1], a document
// count that does not add up). Each entry dropped is said on log with the reason; it is recomputed.
func reusableTasks(prev *leaderboard.RunFile, step int64, out string, log io.Writer) map[string]*harness.Result {
	done := map[string]*harness.Result{}
	if prev == nil {
		return done
	}
	if log == nil {
		log = io.Discard
	}
	if prev.CheckpointStep != step && len(prev.Tasks) > 0 {
		fmt.Fprintf(log, "%s: its %d task(s) were scored at checkpoint step %d, the checkpoint is now at step %d: "+
			"rerunning them\n", out, len(prev.Tasks), prev.CheckpointStep, step)
		return done
	}
	for _, name := range slices.Sorted(maps.Keys(prev.Tasks)) {
		r := prev.Tasks[name]
		if err := CheckResult(r); err != nil {
			fmt.Fprintf(log, "%s: the entry in %s is not usable (%v): rerunning it\n", name, out, err)
			continue
		}
		done[name] = r
	}
	return done
}

// CheckResult validates a task's result before it is written or trusted again: at least one document
// scored and no more than the data holds, metrics present, every value finite, accuracies in [0, 1] and
// perplexities ≥ 0. A zero-row data file or NaN scores fail here with the reason.
func CheckResult(r *harness.Result) error {
	if r == nil {
		return errors.New("no result")
	}
	switch {
	case r.Docs <= 0:
		return fmt.Errorf("%d documents scored (is the task's data file empty?)", r.Docs)
	case r.TotalDocs > 0 && r.Docs > r.TotalDocs:
		return fmt.Errorf("%d documents scored of %d in the data", r.Docs, r.TotalDocs)
	case len(r.Metrics) == 0:
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

// isFraction reports whether a metric is a proportion of documents (acc, acc_norm, contains, exact_match).
func isFraction(name string) bool {
	return strings.HasPrefix(name, "acc") || strings.HasPrefix(name, "contains") || strings.HasPrefix(name, "exact_match")
}
