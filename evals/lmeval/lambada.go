package lmeval

import (
	"fmt"
	"strings"

	"github.com/oryx-go/oryx/evals/harness"
)

// LambadaSplit returns lm-eval's lambada_openai request strings: context = " ".join(text.split(" ")[:-1])
// and continuation = " " + text.split(" ")[-1], splitting on the single space character only.
func LambadaSplit(text string) (context, continuation string) {
	i := strings.LastIndexByte(text, ' ')
	if i < 0 {
		return "", " " + text
	}
	return text[:i], " " + text[i+1:]
}

// lambadaTask is lambada_openai (EleutherAI/lambada_openai, default, test: 5153 documents, column text):
// one loglikelihood request per document (LambadaSplit). perplexity = exp(-mean over documents of the
// target's log-likelihood), with lm-eval's bootstrap stderr; acc = mean of is_greedy (every target token
// the argmax).
type lambadaTask struct{ path string }

func (t *lambadaTask) Name() string { return Lambada }

// DataPath is the parquet file Build reads (harness.DataSource).
func (t *lambadaTask) DataPath() string { return t.path }

func (t *lambadaTask) Build(m harness.Model, opts harness.Options) (*harness.Plan, error) {
	tab, err := harness.ReadTable(t.path, []string{"text"})
	if err != nil {
		return nil, fmt.Errorf("lmeval: %s: %w", Lambada, err)
	}
	n := harness.Limit(opts.Limit, len(tab.Rows))
	items := make([]harness.LLItem, n)
	tok, prefix := m.Tokenizer(), m.PrefixToken()
	err = harness.ParallelFor(n, func(i int) error {
		text, err := tab.Rows[i].Str("text")
		if err != nil {
			return fmt.Errorf("lmeval: %s: %w", Lambada, err)
		}
		c, cont := LambadaSplit(text)
		ctx, contIDs := harness.EncodePair(tok, prefix, c, cont)
		items[i] = llItem(i, c, cont, ctx, contIDs)
		return nil
	})
	if err != nil {
		return nil, err
	}
	iters := opts.Iters()
	plan := &harness.Plan{LL: items, Docs: n, TotalDocs: len(tab.Rows), Data: t.path,
		OutputType: harness.OutputLoglikelihood, Version: Versions[Lambada]}
	if opts.Samples != nil {
		docs, err := harness.ReadDocs(t.path, n)
		if err != nil {
			return nil, fmt.Errorf("lmeval: %s: %w", Lambada, err)
		}
		plan.SampleDocs = map[int]harness.SampleDoc{}
		for i, it := range items {
			plan.SampleDocs[i] = harness.SampleDoc{Doc: docs[i], Target: it.Continuation}
		}
	}
	plan.Score = func(ll []harness.LLResult, _ []harness.GenResult) (harness.Scores, error) {
		lls := make([]float64, len(ll))
		acc := make([]float64, len(ll))
		for i, r := range ll {
			lls[i], acc[i] = r.LogLikelihood, harness.Bool01(r.IsGreedy)
		}
		sc := harness.Scores{Metrics: map[string]harness.Metric{
			"perplexity": {Value: harness.Perplexity(lls), Stderr: harness.BootstrapStderr(harness.Perplexity, lls, iters), N: n},
			"acc":        {Value: harness.Mean(acc), Stderr: harness.MeanStderr(acc), N: n},
		}}
		if opts.Samples != nil { // lm-eval's process_results: {"perplexity": ll, "acc": int(is_greedy)}
			sc.PerDoc = map[int]harness.Doc{}
			for i := range ll {
				sc.PerDoc[i] = harness.Doc{{Key: "perplexity", Value: lls[i]}, {Key: "acc", Value: int(acc[i])}}
			}
		}
		return sc, nil
	}
	return plan, nil
}
