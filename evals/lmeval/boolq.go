package lmeval

import (
	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/evals/harness"
)

// newBoolQ: boolq (super_glue, validation, 3270 documents). Context
// "{passage}\nQuestion: {question}?\nAnswer:", choices ["no", "yes"], gold = label (0 = False, 1 = True);
// acc.
func newBoolQ(path string, defaultData bool) *mcTask {
	t := &mcTask{name: BoolQ, path: path, columns: []string{"passage", "question", "label"},
		metrics: []string{"acc"},
		doc: func(r hfparquet.Row) (mcDoc, error) {
			p, err := r.Str("passage")
			if err != nil {
				return mcDoc{}, err
			}
			q, err := r.Str("question")
			if err != nil {
				return mcDoc{}, err
			}
			label, err := harness.RowInt(r, "label")
			if err != nil {
				return mcDoc{}, err
			}
			return choiceDoc(p+"\nQuestion: "+q+"?\nAnswer:", []string{"no", "yes"}, label), nil
		}}
	if defaultData {
		t.notes = []string{"boolq: the shared/data/hf copy is approximate (passages lack SuperGLUE's \"<title> -- \" " +
			"prefix): expect small differences from published accuracy unless DataRoot holds the official HF file"}
	}
	return t
}
