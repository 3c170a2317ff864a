package lmeval

import (
	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/evals/harness"
)

// newSocialIQA: social_iqa (validation, 1954 documents). Context "Q: {context} {question}\nA:", choices
// [answerA, answerB, answerC], gold = int(label) - 1 (label is a string "1".."3"); acc.
func newSocialIQA(path string) *mcTask {
	return &mcTask{name: SocialIQA, path: path,
		columns: []string{"context", "question", "answerA", "answerB", "answerC", "label"},
		metrics: []string{"acc"},
		doc: func(r hfparquet.Row) (mcDoc, error) {
			var f [5]string
			for i, c := range []string{"context", "question", "answerA", "answerB", "answerC"} {
				v, err := r.Str(c)
				if err != nil {
					return mcDoc{}, err
				}
				f[i] = v
			}
			label, err := harness.RowInt(r, "label")
			if err != nil {
				return mcDoc{}, err
			}
			return choiceDoc("Q: "+f[0]+" "+f[1]+"\nA:", f[2:], label-1), nil
		}}
}
