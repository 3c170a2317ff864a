package leaderboard

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/oryx-go/oryx/evals/harness"
)

// Leaderboard is the merge of several results files.
type Leaderboard struct {
	// Runs are sorted by model, variant, size, checkpoint step, schedule, backend, then file order.
	Runs []*ResultsFile `json:"runs"`
	// Averages documents how each average is computed.
	Averages []AverageDoc `json:"averages"`
	// Skipped are the inputs merge left out: its own outputs (leaderboard.json, leaderboard.md).
	Skipped []string `json:"skipped,omitempty"`
}

// AverageDoc describes one average in leaderboard.json.
type AverageDoc struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Members     []string `json:"members"`
}

// MergeOptions configure Merge.
type MergeOptions struct {
	// IncludePartial keeps the averages of partial (--limit) runs; by default they are left out (the run
	// stays in the table, marked partial).
	IncludePartial bool
	// Check, when set, validates every task result of every file: an error refuses the merge, naming the
	// file and the task (`evals merge` checks what a rerun checks before trusting a result again).
	Check func(*harness.Result) error
}

// Merge is MergeWith(MergeOptions{}, paths...).
func Merge(paths ...string) (*Leaderboard, error) { return MergeWith(MergeOptions{}, paths...) }

// MergeWith reads results files and builds the leaderboard:
//
//   - merge's own outputs among the inputs (IsOwnOutput) are skipped, so `merge results/*` can be rerun;
//   - runs with the same identity (model, variant, size, checkpoint and step, schedule, backend,
//     tokenizer, limit and max lengths) are one row: their tasks are united, a task in several files taken
//     from the latest (by date, then by argument order); so merging a file twice, or merging the merge's
//     inputs again, gives the same leaderboard;
//   - averages are recomputed from the task results (files written by older code get the current
//     definitions), and left out for partial runs unless opts.IncludePartial.
func MergeWith(opts MergeOptions, paths ...string) (*Leaderboard, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("leaderboard: merge: no results files given")
	}
	l := &Leaderboard{}
	byID := map[string]*ResultsFile{}
	dates := map[*ResultsFile]map[string]string{} // run → task → date of the file it came from
	for _, p := range paths {
		if IsOwnOutput(p) {
			l.Skipped = append(l.Skipped, p)
			continue
		}
		r, err := ReadResultsFile(p)
		if err != nil {
			return nil, err
		}
		if err := checkMergeable(r, opts.Check); err != nil {
			return nil, fmt.Errorf("leaderboard: merge: %s: %w", p, err)
		}
		id := r.identity()
		have := byID[id]
		if have == nil {
			byID[id] = r
			dates[r] = map[string]string{}
			for t := range r.Tasks {
				dates[r][t] = r.Date
			}
			l.Runs = append(l.Runs, r)
			continue
		}
		for t, res := range r.Tasks {
			if d, ok := dates[have][t]; !ok || r.Date >= d {
				have.Tasks[t] = res
				dates[have][t] = r.Date
			}
		}
		for t, e := range r.Failed {
			if _, ok := have.Tasks[t]; !ok {
				if have.Failed == nil {
					have.Failed = map[string]string{}
				}
				have.Failed[t] = e
			}
		}
		if r.Date > have.Date {
			have.Date = r.Date
		}
	}
	if len(l.Runs) == 0 {
		return nil, fmt.Errorf("leaderboard: merge: no results files among %s (only merge's own outputs)", strings.Join(paths, ", "))
	}
	for _, r := range l.Runs {
		for t := range r.Tasks {
			delete(r.Failed, t)
		}
		af := r.AttentionFraction
		r.refresh()
		if !math.IsNaN(af) && len(r.AttentionByGroup) <= 1 {
			r.AttentionFraction = af // as the file said (a caller may set it for its own tasks)
		}
		if r.Partial() && !opts.IncludePartial {
			for k, a := range r.Averages {
				if !math.IsNaN(a.Value) {
					a.Value = math.NaN()
					a.Excluded = "partial run (--limit): pass --include-partial to include it"
					r.Averages[k] = a
				}
			}
		}
	}
	sort.SliceStable(l.Runs, func(i, j int) bool {
		a, b := l.Runs[i], l.Runs[j]
		switch {
		case a.Model != b.Model:
			return a.Model < b.Model
		case a.Variant != b.Variant:
			return a.Variant < b.Variant
		case a.Size != b.Size:
			return a.Size < b.Size
		case a.CheckpointStep != b.CheckpointStep:
			return a.CheckpointStep < b.CheckpointStep
		case a.Schedule != b.Schedule:
			return a.Schedule < b.Schedule
		}
		return a.Backend < b.Backend
	})
	for _, d := range Averages {
		doc := AverageDoc{Name: d.Name, Description: d.Description}
		for _, m := range d.Members {
			doc.Members = append(doc.Members, m.String())
		}
		l.Averages = append(l.Averages, doc)
	}
	return l, nil
}

// identity is what makes two results files the same run (see MergeWith).
// checkMergeable refuses a run whose identity holds U+FFFD (what an invalid UTF-8 byte or a lone surrogate
// escape decodes to: runs whose names differ only there would read back as one row) or whose results fail
// check.
func checkMergeable(r *ResultsFile, check func(*harness.Result) error) error {
	for _, f := range []struct{ name, value string }{{"model", r.Model}, {"variant", r.Variant}, {"size", r.Size},
		{"checkpoint", r.Checkpoint}, {"schedule", r.Schedule}, {"backend", r.Backend}, {"tokenizer", r.Tokenizer}} {
		if strings.ContainsRune(f.value, utf8.RuneError) {
			return fmt.Errorf("its %s %q holds U+FFFD (an invalid UTF-8 byte or a lone surrogate escape): runs whose "+
				"names differ only there would be merged into one row", f.name, f.value)
		}
	}
	if err := checkCounts(r); err != nil {
		return err
	}
	if check == nil {
		return nil
	}
	for _, t := range slices.Sorted(maps.Keys(r.Tasks)) {
		if err := check(r.Tasks[t]); err != nil {
			return fmt.Errorf("task %q: %w", t, err)
		}
	}
	return nil
}

// checkCounts refuses the impossible values of a run that the leaderboard would publish as read: a negative
// parameter, step, token or length count, and an attention fraction out of [0, 1] (the run's, a group's or a
// task's; a task's attention tokens beyond its tokens), each named by its field in the file.
func checkCounts(r *ResultsFile) error {
	for _, f := range []struct {
		name  string
		value int64
	}{{"oryx.parameters", r.Parameters}, {"oryx.checkpoint_step", r.CheckpointStep}, {"oryx.tokens_seen", r.TokensSeen},
		{"oryx.limit", int64(r.Limit)}, {"oryx.max_length", int64(r.MaxLength)}} {
		if f.value < 0 {
			return fmt.Errorf("%s is %d, negative", f.name, f.value)
		}
	}
	fraction := func(name string, v float64) error {
		if v < 0 || v > 1 || math.IsInf(v, 0) {
			return fmt.Errorf("%s is %v, out of [0, 1]", name, v)
		}
		return nil // NaN: unknown
	}
	if err := fraction("oryx.attention_fraction", r.AttentionFraction); err != nil {
		return err
	}
	for _, t := range slices.Sorted(maps.Keys(r.Tasks)) {
		res := r.Tasks[t]
		if res == nil {
			continue
		}
		field := fmt.Sprintf("oryx.tasks[%q].", t)
		switch {
		case res.Tokens < 0:
			return fmt.Errorf("%stokens is %d, negative", field, res.Tokens)
		case res.AttentionTokens < 0 || res.AttentionTokens > res.Tokens:
			return fmt.Errorf("%sattention_tokens is %d, out of [0, %d] (its tokens)", field, res.AttentionTokens, res.Tokens)
		}
		if err := fraction(field+"attention_fraction", res.AttentionFraction); err != nil {
			return err
		}
	}
	return nil
}

func (r *ResultsFile) identity() string {
	b, _ := json.Marshal([]any{r.Model, r.Variant, r.Size, r.Checkpoint, r.CheckpointStep, r.Schedule, r.Backend,
		r.Tokenizer, r.Limit, r.MaxLength, r.MaxLengths})
	return string(b)
}

// WriteFiles writes the leaderboard as indented JSON to jsonPath and as the markdown table to mdPath
// (either may be empty to skip it), atomically.
func (l *Leaderboard) WriteFiles(jsonPath, mdPath string) error {
	if jsonPath != "" {
		b, err := json.MarshalIndent(l, "", "  ")
		if err != nil {
			return fmt.Errorf("leaderboard: %w", err)
		}
		if err := writeAtomic(jsonPath, append(b, '\n')); err != nil {
			return err
		}
	}
	if mdPath != "" {
		return writeAtomic(mdPath, []byte(l.Markdown()))
	}
	return nil
}
