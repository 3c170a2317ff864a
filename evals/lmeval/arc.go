package lmeval

import (
	"fmt"
	"slices"

	"github.com/oryx-go/oryx/datasets/hfparquet"
)

// newARC: arc_easy / arc_challenge (allenai/ai2_arc, test: 2376 / 1172 documents). Context
// "Question: {question}\nAnswer:", choices = choices.text, gold = choices.label.index(answerKey) (labels
// A–E or 1–5); acc and acc_norm (the papers report acc for ARC-e and acc_norm for ARC-c).
func newARC(name, path string) *mcTask {
	return &mcTask{name: name, path: path, columns: []string{"question", "choices.text", "choices.label", "answerKey"},
		metrics: []string{"acc", "acc_norm"},
		doc: func(r hfparquet.Row) (mcDoc, error) {
			q, err := r.Str("question")
			if err != nil {
				return mcDoc{}, err
			}
			text, err := r.StrList("choices.text")
			if err != nil {
				return mcDoc{}, err
			}
			labels, err := r.StrList("choices.label")
			if err != nil {
				return mcDoc{}, err
			}
			key, err := r.Str("answerKey")
			if err != nil {
				return mcDoc{}, err
			}
			if len(labels) != len(text) {
				return mcDoc{}, fmt.Errorf("%s: row %d: %d choice labels for %d choice texts", r.File, r.Pos.Row, len(labels), len(text))
			}
			gold := slices.Index(labels, key)
			if gold < 0 {
				return mcDoc{}, fmt.Errorf("%s: row %d: column \"answerKey\": %q is not one of the labels %q", r.File, r.Pos.Row, key, labels)
			}
			return choiceDoc("Question: "+q+"\nAnswer:", text, gold), nil
		}}
}
