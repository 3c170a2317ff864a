package lmeval

import (
	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/evals/harness"
)

// newPIQA: piqa (validation, 1838 documents). Context "Question: {goal}\nAnswer:", choices [sol1, sol2],
// gold = label (an int; a numeric string is accepted too); acc and acc_norm.
func newPIQA(path string) *mcTask {
	return &mcTask{name: PIQA, path: path, columns: []string{"goal", "sol1", "sol2", "label"},
		metrics: []string{"acc", "acc_norm"},
		doc: func(r hfparquet.Row) (mcDoc, error) {
			goal, err := r.Str("goal")
			if err != nil {
				return mcDoc{}, err
			}
			s1, err := r.Str("sol1")
			if err != nil {
				return mcDoc{}, err
			}
			s2, err := r.Str("sol2")
			if err != nil {
				return mcDoc{}, err
			}
			gold, err := harness.RowInt(r, "label")
			if err != nil {
				return mcDoc{}, err
			}
			return choiceDoc("Question: "+goal+"\nAnswer:", []string{s1, s2}, gold), nil
		}}
}
