package recall

import (
	"fmt"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/evals/harness"
)

// kind is the dataset family of a task.
type kind int

const (
	swde kind = iota
	fda
	squad
	triviaqa
	nq
	drop
)

// Protocol constants of the GDN runs (launch_jrt.py --context_length 2048 --answer_length 50; the tasks'
// generation arguments).
const (
	ContextLength = 2048
	AnswerLength  = 50
	MaxGenTokens  = 48
	MaxLength     = 2048
)

// Task is one based_* task. Its exported fields may be changed before Build (defaults: the constants
// above).
type Task struct {
	name  string
	kind  kind
	twice bool
	path  string
	// ContextLength and AnswerLength size the cutting window (ContextLength - AnswerLength tokens).
	ContextLength, AnswerLength int
	// MaxLength is the truncation length of the generation requests (the prompt keeps its last
	// MaxLength - MaxGenTokens tokens); the model's own max length applies when smaller.
	MaxLength int
	// MaxGenTokens is max_gen_toks.
	MaxGenTokens int
}

// Name returns the task's registry name.
func (t *Task) Name() string { return t.name }

// DataPath is the parquet file Build reads (harness.DataSource).
func (t *Task) DataPath() string { return t.path }

// answerKeys are the fork's --answer_key for the task: ["value"] for SQuAD, ["key", "value"] otherwise
// (launch_jrt.py).
func (t *Task) answerKeys() []string {
	if t.kind == squad {
		return []string{"value"}
	}
	return []string{"key", "value"}
}

// columns returns the required and optional columns of the task's file.
func (t *Task) columns() (required, optional []string) {
	optional = []string{"alt_answers", "tok_pos"}
	switch t.kind {
	case swde, fda:
		required = []string{"text", "key", "value"}
	case squad:
		required = []string{"text", "value"}
		if t.twice {
			required = append(required, "context", "question")
		}
	default:
		required = []string{"context", "question", "answers"}
		if t.twice {
			required = append(required, "orig_question")
		}
		optional = append(optional, "text", "key", "value")
	}
	return required, optional
}

// docOut is one built document.
type docOut struct {
	item    harness.GenItem
	dropped bool
}

// Build reads the file, cuts each of the first Limit documents (dropping those the rule drops), builds the
// prompts and one generation request each.
//
// [choice] TriviaQA, NQ and DROP prompts read "context", so the cutting of "text" cannot change them; it
// only applies the dropping rule, and only when the file has "text" and the answer-key columns ("key",
// "value"): without them (the column layout of docs/evals.md §4) no document is cut or dropped.
func (t *Task) Build(m harness.Model, opts harness.Options) (*harness.Plan, error) {
	required, optional := t.columns()
	tab, err := harness.ReadTable(t.path, required, optional...)
	if err != nil {
		return nil, fmt.Errorf("recall: %s: %w", t.name, err)
	}
	keys := t.answerKeys()
	cut := true
	if t.kind == triviaqa || t.kind == nq || t.kind == drop {
		cut = tab.Has["text"] && tab.Has["key"] && tab.Has["value"]
	}
	tok := m.Tokenizer()
	cutter := Cutter{Tok: tok, BOS: BOSFor(m), ContextLength: t.ContextLength, AnswerLength: t.AnswerLength}
	n := harness.Limit(opts.Limit, len(tab.Rows))
	out := make([]docOut, n)
	err = harness.ParallelFor(n, func(i int) error {
		o, err := t.buildDoc(tab, tab.Rows[i], i, keys, cut, cutter, m)
		if err != nil {
			return fmt.Errorf("recall: %s: %w", t.name, err)
		}
		out[i] = o
		return nil
	})
	if err != nil {
		return nil, err
	}
	plan := &harness.Plan{TotalDocs: len(tab.Rows), MaxLength: t.MaxLength, Data: t.path,
		OutputType: harness.OutputGenerateUntil, Version: Version}
	for _, o := range out {
		if o.dropped {
			plan.Dropped++
			continue
		}
		plan.Gen = append(plan.Gen, o.item)
	}
	plan.Docs = len(plan.Gen)
	if !cut {
		plan.Notes = append(plan.Notes, t.name+": no text/key/value columns: no context cutting, no document dropped")
	}
	gens := plan.Gen
	if opts.Samples != nil {
		rows, err := harness.ReadDocs(t.path, n)
		if err != nil {
			return nil, fmt.Errorf("recall: %s: %w", t.name, err)
		}
		plan.SampleDocs = map[int]harness.SampleDoc{}
		for _, g := range gens {
			plan.SampleDocs[g.Doc] = harness.SampleDoc{Doc: rows[g.Doc], Target: g.Labels}
		}
	}
	plan.Score = func(_ []harness.LLResult, gen []harness.GenResult) (harness.Scores, error) {
		sc := make([]float64, len(gen))
		for i, g := range gen {
			sc[i] = Contains(g.Text, gens[i].Labels)
		}
		out := harness.Scores{Gen: sc, Metrics: map[string]harness.Metric{
			"contains": {Value: harness.Mean(sc), Stderr: harness.MeanStderr(sc), N: len(sc)},
		}}
		if opts.Samples != nil {
			out.PerDoc = map[int]harness.Doc{}
			for i, g := range gens {
				out.PerDoc[g.Doc] = harness.Doc{{Key: "contains", Value: sc[i]}}
			}
		}
		return out, nil
	}
	return plan, nil
}

func (t *Task) buildDoc(tab *harness.Table, r hfparquet.Row, i int, keys []string, cut bool, cutter Cutter, m harness.Model) (docOut, error) {
	str := func(c string) (string, error) { return r.Str(c) }
	var text string
	var err error
	if t.kind <= squad || cut {
		if text, err = str("text"); err != nil {
			return docOut{}, err
		}
	}
	if t.kind == swde {
		text = cutSummary(text) // validation_docs splits the listing off before the cutting
	}
	if cut {
		d := CutDoc{Text: text, HasAlt: tab.Has["alt_answers"], HasTokPos: tab.Has["tok_pos"]}
		for _, k := range keys {
			a, _, err := harness.RowStringOrFirst(r, k)
			if err != nil {
				return docOut{}, err
			}
			d.Answers = append(d.Answers, a)
		}
		if d.HasAlt {
			if d.AltAnswers, err = r.StrList("alt_answers"); err != nil {
				return docOut{}, err
			}
		}
		if d.HasTokPos {
			tp, err := r.Int("tok_pos")
			if err != nil {
				return docOut{}, err
			}
			d.TokPos = int(tp)
		}
		var keep bool
		if text, keep = cutter.Cut(d); !keep {
			return docOut{dropped: true}, nil
		}
	}

	var prompt string
	var suffix int
	var labels []string
	switch t.kind {
	case swde, fda:
		key, err := str("key")
		if err != nil {
			return docOut{}, err
		}
		value, err := str("value")
		if err != nil {
			return docOut{}, err
		}
		labels = []string{value}
		switch {
		case t.kind == swde && t.twice:
			prompt, suffix = SWDETwicePrompt(text, key)
		case t.kind == swde:
			prompt, suffix = SWDEPrompt(text, key)
		case t.twice:
			prompt, suffix = FDATwicePrompt(text, key)
		default:
			prompt, suffix = FDAPrompt(text, key)
		}
	case squad:
		value, err := str("value")
		if err != nil {
			return docOut{}, err
		}
		labels = []string{value}
		if t.twice {
			c, err := str("context")
			if err != nil {
				return docOut{}, err
			}
			q, err := str("question")
			if err != nil {
				return docOut{}, err
			}
			prompt, suffix = SQuADTwicePrompt(text, c, q)
		} else {
			prompt, suffix = SQuADPrompt(text)
		}
	default:
		c, err := str("context")
		if err != nil {
			return docOut{}, err
		}
		q, err := str("question")
		if err != nil {
			return docOut{}, err
		}
		if labels, err = r.StrList("answers"); err != nil {
			return docOut{}, err
		}
		if t.twice {
			oq, err := str("orig_question")
			if err != nil {
				return docOut{}, err
			}
			prompt, suffix = QATwicePrompt(c, q, oq, t.kind == triviaqa)
		} else {
			prompt, suffix = QAPrompt(c, q, t.kind == triviaqa, t.kind == nq)
		}
	}

	tok := m.Tokenizer()
	ids := harness.EncodeContext(tok, m.PrefixToken(), prompt)
	from := harness.SplitPoint(tok, ids, prompt, suffix) // the split point: the harness uses it in mixed mode
	return docOut{item: harness.GenItem{Doc: i, Prompt: prompt, Labels: labels,
		Req: harness.GenRequest{Context: ids, AttentionFrom: from, Until: []string{"\n"}, MaxTokens: t.MaxGenTokens}}}, nil
}
