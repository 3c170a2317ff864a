package lmeval

import (
	"fmt"
	"strings"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/evals/harness"
)

// WinoGrandePartial returns lm-eval's partial-scoring form of a sentence: with i = sentence.index("_"),
// the contexts sentence[:i] + option for each option and the shared continuation " " +
// sentence[i+1:].strip(). A sentence without "_" is an error (Python raises ValueError).
func WinoGrandePartial(sentence string, options []string) (contexts []string, cont string, err error) {
	i := strings.Index(sentence, "_")
	if i < 0 {
		return nil, "", fmt.Errorf("sentence has no \"_\": %q", sentence)
	}
	for _, o := range options {
		contexts = append(contexts, sentence[:i]+o)
	}
	return contexts, " " + harness.PyStrip(sentence[i+1:]), nil
}

// newWinoGrande: winogrande (winogrande_xl, validation, 1267 documents), partial scoring
// (WinoGrandePartial): the two options are contexts sharing one continuation; gold = {"1": 0, "2":
// 1}[answer]; acc only.
func newWinoGrande(path string) *mcTask {
	return &mcTask{name: WinoGrande, path: path, columns: []string{"sentence", "option1", "option2", "answer"},
		metrics: []string{"acc"},
		doc: func(r hfparquet.Row) (mcDoc, error) {
			var f [4]string
			for i, c := range []string{"sentence", "option1", "option2", "answer"} {
				v, err := r.Str(c)
				if err != nil {
					return mcDoc{}, err
				}
				f[i] = v
			}
			ctxs, cont, err := WinoGrandePartial(f[0], []string{f[1], f[2]})
			if err != nil {
				return mcDoc{}, fmt.Errorf("%s: row %d: column \"sentence\": %w", r.File, r.Pos.Row, err)
			}
			gold := map[string]int{"1": 0, "2": 1}
			g, ok := gold[f[3]]
			if !ok {
				return mcDoc{}, fmt.Errorf("%s: row %d: column \"answer\": %q is not \"1\" or \"2\"", r.File, r.Pos.Row, f[3])
			}
			return mcDoc{contexts: ctxs, conts: []string{cont}, gold: g}, nil
		},
		// lm-eval's doc_to_target is the shared continuation without the target delimiter.
		target: func(_ harness.Doc, d mcDoc) any { return d.conts[0][1:] }}
}
