package lmeval

import (
	"regexp"
	"strings"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/evals/harness"
)

var hellaSwagBracket = regexp.MustCompile(`\[.*?\]`)

// HellaSwagPreprocess is lm-eval's hellaswag preprocess(text): strip; " [title]" → ". "; delete every
// `\[.*?\]` (not across lines); then one pass of "  " → " ".
func HellaSwagPreprocess(text string) string {
	text = harness.PyStrip(text)
	text = strings.ReplaceAll(text, " [title]", ". ")
	text = hellaSwagBracket.ReplaceAllString(text, "")
	return strings.ReplaceAll(text, "  ", " ")
}

// HellaSwagQuery is the lm-eval query of a document:
// preprocess(activity_label + ": " + ctx_a + " " + ctx_b.capitalize()), with Python's capitalize
// (first character title-cased, the rest lower-cased).
func HellaSwagQuery(activityLabel, ctxA, ctxB string) string {
	return HellaSwagPreprocess(activityLabel + ": " + ctxA + " " + harness.PyCapitalize(ctxB))
}

// newHellaSwag: hellaswag (validation, 10042 documents). Context HellaSwagQuery, choices
// preprocess(ending) for each of the endings, gold = int(label) (a string "0".."3" in HF); acc and
// acc_norm (the papers report acc_norm).
func newHellaSwag(path string, defaultData bool) *mcTask {
	t := &mcTask{name: HellaSwag, path: path, columns: []string{"activity_label", "ctx_a", "ctx_b", "endings", "label"},
		metrics: []string{"acc", "acc_norm"},
		doc: func(r hfparquet.Row) (mcDoc, error) {
			var f [3]string
			for i, c := range []string{"activity_label", "ctx_a", "ctx_b"} {
				v, err := r.Str(c)
				if err != nil {
					return mcDoc{}, err
				}
				f[i] = v
			}
			endings, err := r.StrList("endings")
			if err != nil {
				return mcDoc{}, err
			}
			gold, err := harness.RowInt(r, "label")
			if err != nil {
				return mcDoc{}, err
			}
			choices := make([]string, len(endings))
			for i, e := range endings {
				choices[i] = HellaSwagPreprocess(e)
			}
			return choiceDoc(HellaSwagQuery(f[0], f[1], f[2]), choices, gold), nil
		},
		// lm-eval's process_docs adds query, choices and gold after the dataset's columns.
		sampleDoc: func(row harness.Doc, d mcDoc) harness.Doc {
			choices := make([]string, len(d.conts))
			for i, c := range d.conts {
				choices[i] = c[1:]
			}
			return append(append(harness.Doc{}, row...), harness.DocField{Key: "query", Value: d.contexts[0]},
				harness.DocField{Key: "choices", Value: choices}, harness.DocField{Key: "gold", Value: d.gold})
		}}
	if defaultData {
		t.notes = []string{"hellaswag: the shared/data/hf copy is approximate (ctx_a/ctx_b and endings rebuilt from " +
			"preprocessed text; see its README): label scores from it as approximate unless DataRoot holds the official HF file"}
	}
	return t
}
