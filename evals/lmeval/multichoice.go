package lmeval

import (
	"fmt"
	"math"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/evals/harness"
)

// mcDoc is one multiple-choice document as lm-eval's multiple_choice output type sees it.
type mcDoc struct {
	// contexts holds one context shared by every choice, or one context per choice (WinoGrande's partial
	// scoring, where the choices are contexts and the continuation is shared).
	contexts []string
	// conts are the continuations, target delimiter " " included: one per choice, or one shared.
	conts []string
	// choiceLens are len(choice) in code points, the acc_norm divisor (the delimiter not counted).
	choiceLens []float64
	gold       int
}

func (d mcDoc) numChoices() int { return max(len(d.contexts), len(d.conts)) }

func (d mcDoc) pair(i int) (ctx, cont string) {
	ctx, cont = d.contexts[0], d.conts[0]
	if len(d.contexts) > 1 {
		ctx = d.contexts[i]
	}
	if len(d.conts) > 1 {
		cont = d.conts[i]
	}
	return ctx, cont
}

// choiceDoc is the usual multiple-choice document: one context, choices continued with " ".
func choiceDoc(context string, choices []string, gold int) mcDoc {
	d := mcDoc{contexts: []string{context}, gold: gold}
	for _, c := range choices {
		d.conts = append(d.conts, " "+c)
		d.choiceLens = append(d.choiceLens, float64(harness.PyLen(c)))
	}
	return d
}

// mcTask is a multiple-choice task: a parquet file, the columns it needs, a row → document function and the
// metrics it reports ("acc", "acc_norm").
type mcTask struct {
	name    string
	path    string
	columns []string
	metrics []string
	notes   []string
	doc     func(r hfparquet.Row) (mcDoc, error)
	// sampleDoc, when set, turns the dataset row into lm-eval's doc (the fields process_docs adds; default:
	// the row) and target gives doc_to_target (default: the gold index), for --log-samples.
	sampleDoc func(row harness.Doc, d mcDoc) harness.Doc
	target    func(row harness.Doc, d mcDoc) any
}

func (t *mcTask) Name() string { return t.name }

// DataPath is the parquet file Build reads (harness.DataSource).
func (t *mcTask) DataPath() string { return t.path }

// Build reads the file and makes one loglikelihood request per choice of each of the first Limit
// documents. The gold index is checked against the number of choices (an error naming file and row).
func (t *mcTask) Build(m harness.Model, opts harness.Options) (*harness.Plan, error) {
	tab, err := harness.ReadTable(t.path, t.columns)
	if err != nil {
		return nil, fmt.Errorf("lmeval: %s: %w", t.name, err)
	}
	n := harness.Limit(opts.Limit, len(tab.Rows))
	docs := make([]mcDoc, n)
	items := make([][]harness.LLItem, n)
	tok, prefix := m.Tokenizer(), m.PrefixToken()
	err = harness.ParallelFor(n, func(i int) error {
		row := tab.Rows[i]
		d, err := t.doc(row)
		if err != nil {
			return fmt.Errorf("lmeval: %s: %w", t.name, err)
		}
		if d.gold < 0 || d.gold >= d.numChoices() {
			return fmt.Errorf("lmeval: %s: %s: row %d: gold index %d outside the %d choices", t.name, row.File, row.Pos.Row, d.gold, d.numChoices())
		}
		docs[i] = d
		if len(d.contexts) == 1 {
			ctx, conts := harness.EncodeChoices(tok, prefix, d.contexts[0], d.conts)
			for c, cont := range conts {
				items[i] = append(items[i], llItem(i, d.contexts[0], d.conts[c], ctx, cont))
			}
			return nil
		}
		for c := range d.numChoices() {
			cs, cc := d.pair(c)
			ctx, cont := harness.EncodePair(tok, prefix, cs, cc)
			items[i] = append(items[i], llItem(i, cs, cc, ctx, cont))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	plan := &harness.Plan{Docs: n, TotalDocs: len(tab.Rows), Data: t.path, Notes: t.notes,
		OutputType: harness.OutputMultipleChoice, Version: Versions[t.name]}
	for _, its := range items {
		plan.LL = append(plan.LL, its...)
	}
	if opts.Samples != nil {
		rows, err := harness.ReadDocs(t.path, n)
		if err != nil {
			return nil, fmt.Errorf("lmeval: %s: %w", t.name, err)
		}
		plan.SampleDocs = map[int]harness.SampleDoc{}
		for i := range n {
			sd := harness.SampleDoc{Doc: rows[i], Target: docs[i].gold}
			if t.sampleDoc != nil {
				sd.Doc = t.sampleDoc(rows[i], docs[i])
			}
			if t.target != nil {
				sd.Target = t.target(rows[i], docs[i])
			}
			plan.SampleDocs[i] = sd
		}
	}
	plan.Score = func(ll []harness.LLResult, _ []harness.GenResult) (harness.Scores, error) {
		metrics, perDoc := scoreMC(docs, ll, t.metrics)
		sc := harness.Scores{Metrics: metrics}
		if opts.Samples != nil {
			sc.PerDoc = perDoc
		}
		return sc, nil
	}
	return plan, nil
}

// llItem makes the request of one (context, continuation) pair. Its split point (used in mixed mode) puts
// every position that predicts an answer token in attention: from the last context token (whose output
// predicts the first answer token) on.
func llItem(doc int, context, cont string, ctxIDs, contIDs []int) harness.LLItem {
	return harness.LLItem{Doc: doc, Context: context, Continuation: cont,
		Req: harness.LLRequest{Context: ctxIDs, Continuation: contIDs, AttentionFrom: len(ctxIDs) - 1}}
}

// scoreMC computes acc and acc_norm (whichever metrics asks for) from the per-choice log-likelihoods, in
// document order, with lm-eval's mean stderr, and each document's values (doc index → metric → 0.0 or 1.0,
// in the order of metrics: lm-eval's acc, then acc_norm).
func scoreMC(docs []mcDoc, ll []harness.LLResult, metrics []string) (map[string]harness.Metric, map[int]harness.Doc) {
	acc := make([]float64, len(docs))
	accNorm := make([]float64, len(docs))
	k := 0
	for i, d := range docs {
		nc := d.numChoices()
		lls := make([]float64, nc)
		norm := make([]float64, nc)
		for c := range nc {
			lls[c] = ll[k+c].LogLikelihood
			if c < len(d.choiceLens) {
				norm[c] = lls[c] / d.choiceLens[c]
			} else {
				norm[c] = math.NaN()
			}
		}
		k += nc
		acc[i] = harness.Bool01(harness.Argmax(lls) == d.gold)
		accNorm[i] = harness.Bool01(harness.Argmax(norm) == d.gold)
	}
	out := map[string]harness.Metric{}
	perDoc := make(map[int]harness.Doc, len(docs))
	for _, m := range metrics {
		xs := acc
		if m == "acc_norm" {
			xs = accNorm
		}
		out[m] = harness.Metric{Value: harness.Mean(xs), Stderr: harness.MeanStderr(xs), N: len(xs)}
		for i, x := range xs {
			perDoc[i] = append(perDoc[i], harness.DocField{Key: m, Value: x})
		}
	}
	return out, perDoc
}
