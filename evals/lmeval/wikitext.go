package lmeval

import (
	"fmt"
	"math"

	"github.com/oryx-go/oryx/evals/harness"
)

// wikiTextTask is wikitext (EleutherAI/wikitext_document_level, wikitext-2-raw-v1, test: 62 pages, column
// page). Each page is scored with loglikelihood_rolling(WikiTextDetokenize(page)): the detokenized text's
// tokens in disjoint windows of max_length (harness.RollingWindows; max_length is Model.MaxLength(), which
// the caller records). Words and bytes are counted on the original page: words = len(re.split(r"\s+",
// page)) (harness.PyWordCount), bytes = len(page.encode()). Metrics: word_perplexity = exp(-Σll/Σwords),
// byte_perplexity = exp(-Σll/Σbytes), bits_per_byte = -Σll/Σbytes/ln 2, without stderr (lm-eval has
// none). The windows never switch to attention in mixed mode ([choice]: the rolling evaluation is all
// linear).
type wikiTextTask struct{ path string }

func (t *wikiTextTask) Name() string { return WikiText }

// DataPath is the parquet file Build reads (harness.DataSource).
func (t *wikiTextTask) DataPath() string { return t.path }

// wikiDoc is what scoring needs of a page.
type wikiDoc struct {
	words, bytes float64
	windows      int
	text         string // the detokenized page, kept only for --log-samples
}

func (t *wikiTextTask) Build(m harness.Model, opts harness.Options) (*harness.Plan, error) {
	tab, err := harness.ReadTable(t.path, []string{"page"})
	if err != nil {
		return nil, fmt.Errorf("lmeval: %s: %w", WikiText, err)
	}
	n := harness.Limit(opts.Limit, len(tab.Rows))
	docs := make([]wikiDoc, n)
	items := make([][]harness.LLItem, n)
	tok, prefix, maxLen := m.Tokenizer(), m.PrefixToken(), m.MaxLength()
	err = harness.ParallelFor(n, func(i int) error {
		page, err := tab.Rows[i].Str("page")
		if err != nil {
			return fmt.Errorf("lmeval: %s: %w", WikiText, err)
		}
		docs[i] = wikiDoc{words: float64(harness.PyWordCount(page)), bytes: float64(len(page))}
		text := WikiTextDetokenize(page)
		if opts.Samples != nil {
			docs[i].text = text
		}
		windows, err := harness.RollingWindows(tok.Encode(text), prefix, maxLen)
		if err != nil {
			return err
		}
		docs[i].windows = len(windows)
		for _, w := range windows {
			items[i] = append(items[i], harness.LLItem{Doc: i, Req: w})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	plan := &harness.Plan{Docs: n, TotalDocs: len(tab.Rows), Data: t.path,
		Notes:      []string{fmt.Sprintf("wikitext: rolling windows of max_length %d", maxLen)},
		OutputType: harness.OutputLoglikelihoodRolling, Version: Versions[WikiText]}
	for _, its := range items {
		plan.LL = append(plan.LL, its...)
	}
	if opts.Samples != nil { // lm-eval: doc_to_target is the detokenized page, the one rolling request's text
		rows, err := harness.ReadDocs(t.path, n)
		if err != nil {
			return nil, fmt.Errorf("lmeval: %s: %w", WikiText, err)
		}
		plan.SampleDocs = map[int]harness.SampleDoc{}
		for i, d := range docs {
			plan.SampleDocs[i] = harness.SampleDoc{Doc: rows[i], Target: d.text, Arguments: []any{d.text}}
		}
	}
	plan.Score = func(ll []harness.LLResult, _ []harness.GenResult) (harness.Scores, error) {
		lls, words, bytes := make([]float64, n), make([]float64, n), make([]float64, n)
		k := 0
		for i, d := range docs {
			for range d.windows {
				lls[i] += ll[k].LogLikelihood
				k++
			}
			words[i], bytes[i] = d.words, d.bytes
		}
		na := func(v float64) harness.Metric { return harness.Metric{Value: v, Stderr: math.NaN(), N: n} }
		sc := harness.Scores{Metrics: map[string]harness.Metric{
			"word_perplexity": na(harness.WeightedPerplexity(lls, words)),
			"byte_perplexity": na(harness.WeightedPerplexity(lls, bytes)),
			"bits_per_byte":   na(harness.BitsPerByte(lls, bytes)),
		}}
		if opts.Samples != nil { // lm-eval's process_results: (loglikelihood, weight) pairs, weights counted as ints
			sc.PerDoc = map[int]harness.Doc{}
			for i := range docs {
				w, b := int(words[i]), int(bytes[i])
				sc.PerDoc[i] = harness.Doc{{Key: "word_perplexity", Value: []any{lls[i], w}},
					{Key: "byte_perplexity", Value: []any{lls[i], b}}, {Key: "bits_per_byte", Value: []any{lls[i], b}}}
			}
		}
		return sc, nil
	}
	return plan, nil
}
