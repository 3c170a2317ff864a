package leaderboard

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Leaderboard is the merge of several run files.
type Leaderboard struct {
	// Runs are sorted by model, variant, size, checkpoint step, schedule, backend, then file order.
	Runs []*RunFile `json:"runs"`
	// Averages documents how each average is computed.
	Averages []AverageDoc `json:"averages"`
}

// AverageDoc describes one average in leaderboard.json.
type AverageDoc struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Members     []string `json:"members"`
}

// Merge reads run files and builds the leaderboard. [choice] Every run is kept, duplicates included (two
// runs of the same checkpoint with different schedules are both rows); averages are recomputed from the task results, so files
// written by older code get the current definitions.
func Merge(paths ...string) (*Leaderboard, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("leaderboard: merge: no run files given")
	}
	l := &Leaderboard{}
	for _, p := range paths {
		r, err := ReadRunFile(p)
		if err != nil {
			return nil, err
		}
		r.Averages = ComputeAverages(r.Tasks)
		l.Runs = append(l.Runs, r)
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
