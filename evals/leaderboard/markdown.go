package leaderboard

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// column is one metric column of the markdown table.
type column struct {
	head    string
	ref     MetricRef
	percent bool   // accuracy-like: shown ×100
	avg     string // or an average by name
}

// columns are the GDN tables' columns (language modelling, then recall), with the averages.
var columns = []column{
	{head: "Wiki ppl", ref: MetricRef{"wikitext", "word_perplexity"}},
	{head: "LMB ppl", ref: MetricRef{"lambada_openai", "perplexity"}},
	{head: "LMB acc", ref: MetricRef{"lambada_openai", "acc"}, percent: true},
	{head: "PIQA acc", ref: MetricRef{"piqa", "acc"}, percent: true},
	{head: "Hella acc_n", ref: MetricRef{"hellaswag", "acc_norm"}, percent: true},
	{head: "Wino acc", ref: MetricRef{"winogrande", "acc"}, percent: true},
	{head: "ARC-e acc", ref: MetricRef{"arc_easy", "acc"}, percent: true},
	{head: "ARC-c acc_n", ref: MetricRef{"arc_challenge", "acc_norm"}, percent: true},
	{head: "SIQA acc", ref: MetricRef{"social_iqa", "acc"}, percent: true},
	{head: "BoolQ acc", ref: MetricRef{"boolq", "acc"}, percent: true},
	{head: "LM avg", avg: "gdn_lm_avg"},
	{head: "SWDE", ref: MetricRef{"based_swde", "contains"}, percent: true},
	{head: "FDA", ref: MetricRef{"based_fda", "contains"}, percent: true},
	{head: "SQuAD", ref: MetricRef{"based_squad", "contains"}, percent: true},
	{head: "TQA", ref: MetricRef{"based_triviaqa", "contains"}, percent: true},
	{head: "NQ", ref: MetricRef{"based_nq_2048", "contains"}, percent: true},
	{head: "DROP", ref: MetricRef{"based_drop", "contains"}, percent: true},
	{head: "Recall avg", avg: "recall_avg"},
}

// Markdown renders the leaderboard as a markdown table: one row per run (model, variant, size, step,
// tokens seen, schedule, attention %) and the GDN tables' columns that at least one run has, accuracies in
// percent, "–" where a run lacks the metric; then a column for every other task metric the runs report
// ("task metric", sorted). A note under the table lists how the averages are computed.
func (l *Leaderboard) Markdown() string {
	var b strings.Builder
	heads := []string{"Model", "Variant", "Size", "Step", "Tokens", "Schedule", "Attn %"}
	cols := l.presentColumns()
	for _, c := range cols {
		heads = append(heads, tableCell.Replace(c.head)) // extra columns are named by the run files' tasks
	}
	b.WriteString("| " + strings.Join(heads, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat("---|", len(heads)) + "\n")
	for _, r := range l.Runs {
		cells := []string{r.Model, r.Variant, r.Size, fmt.Sprint(r.CheckpointStep), humanCount(r.TokensSeen), r.Schedule,
			fmt.Sprintf("%.1f", 100*r.AttentionFraction)}
		for _, c := range cols {
			cells = append(cells, cell(r, c))
		}
		for i, s := range cells {
			cells[i] = tableCell.Replace(s)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\n")
	for _, d := range l.Averages {
		fmt.Fprintf(&b, "- %s: %s over %s\n", d.Name, d.Description, strings.Join(d.Members, ", "))
	}
	return b.String()
}

// tableCell keeps a value inside its markdown table cell: a "|" would start a new cell and a line break
// (say, a newline in a model name) would end the table.
var tableCell = strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ")

// presentColumns are the fixed columns some run has, then the other metrics of the runs.
func (l *Leaderboard) presentColumns() []column {
	var out []column
	fixed := map[MetricRef]bool{}
	for _, c := range columns {
		fixed[c.ref] = true
		for _, r := range l.Runs {
			if cell(r, c) != "–" {
				out = append(out, c)
				break
			}
		}
	}
	extra := map[MetricRef]bool{}
	for _, r := range l.Runs {
		for task, res := range r.Tasks {
			for name := range res.Metrics {
				if ref := (MetricRef{task, name}); !fixed[ref] {
					extra[ref] = true
				}
			}
		}
	}
	var refs []MetricRef
	for ref := range extra {
		refs = append(refs, ref)
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].String() < refs[j].String() })
	for _, ref := range refs {
		out = append(out, column{head: ref.Task + " " + ref.Metric, ref: ref})
	}
	return out
}

func cell(r *RunFile, c column) string {
	if c.avg != "" {
		a, ok := r.Averages[c.avg]
		if !ok || math.IsNaN(a.Value) {
			return "–"
		}
		return fmt.Sprintf("%.2f", a.Value)
	}
	v, ok := metricValue(r.Tasks, c.ref)
	if !ok {
		return "–"
	}
	if c.percent {
		v *= 100
	}
	return fmt.Sprintf("%.2f", v)
}

// humanCount renders 15032385536 as "15.0B".
func humanCount(n int64) string {
	f := float64(n)
	switch {
	case f >= 1e12:
		return fmt.Sprintf("%.1fT", f/1e12)
	case f >= 1e9:
		return fmt.Sprintf("%.1fB", f/1e9)
	case f >= 1e6:
		return fmt.Sprintf("%.1fM", f/1e6)
	case f >= 1e3:
		return fmt.Sprintf("%.1fK", f/1e3)
	}
	return fmt.Sprint(n)
}
