package leaderboard

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/oryx-go/oryx/internal/human"
)

// column is one metric column of the markdown table.
type column struct {
	head    string
	ref     MetricRef
	percent bool   // accuracy-like: shown ×100
	avg     string // or an average by name
	counts  bool   // followed by "(scored/total)" documents (NIAH: samples)
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
	{head: "S-NIAH-1", ref: MetricRef{"niah_single_1", "score"}, percent: true, counts: true},
	{head: "S-NIAH-2", ref: MetricRef{"niah_single_2", "score"}, percent: true, counts: true},
	{head: "S-NIAH-3", ref: MetricRef{"niah_single_3", "score"}, percent: true, counts: true},
	{head: "MK-NIAH-1", ref: MetricRef{"niah_multikey_1", "score"}, percent: true, counts: true},
	{head: "NIAH avg", avg: "niah_avg"},
}

// Markdown renders the leaderboard as a markdown table: one row per run (model, variant, size, step,
// tokens seen, schedule, attention % per task group) and the GDN tables' and NIAH columns that at least one
// run has, "–" where a run lacks the metric; then a column for every other task metric the runs report
// ("task metric", sorted). One unit throughout: every accuracy, contains and NIAH score in percent,
// perplexities and bits per byte as they are. NIAH cells add "(scored/total)" samples. A partial (--limit)
// run is marked "(partial)" after its model name. A note under the table lists how the averages are
// computed.
func (l *Leaderboard) Markdown() string {
	var b strings.Builder
	heads := []string{"Model", "Variant", "Size", "Step", "Tokens", "Schedule", "Attn %"}
	cols := l.presentColumns()
	for _, c := range cols {
		heads = append(heads, tableCell.Replace(c.head)) // extra columns are named by the results files' tasks
	}
	b.WriteString("| " + strings.Join(heads, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat("---|", len(heads)) + "\n")
	for _, r := range l.Runs {
		model := r.Model
		if r.Partial() {
			model += " (partial)"
		}
		step, tokens := fmt.Sprint(r.CheckpointStep), human.Int(r.TokensSeen)
		if r.Foreign { // lm-eval's own files: unknown, not 0
			step, tokens = "–", "–"
		}
		cells := []string{model, orDash(r.Variant), orDash(r.Size), step, tokens, orDash(r.Schedule), attentionCell(r)}
		for _, c := range cols {
			cells = append(cells, cell(r, c))
		}
		for i, s := range cells {
			cells[i] = tableCell.Replace(s)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\nAccuracies and scores in percent; perplexities and bits per byte as they are. Attn %: attention tokens / tokens, per task group.\n\n")
	for _, d := range l.Averages {
		fmt.Fprintf(&b, "- %s: %s over %s\n", d.Name, d.Description, strings.Join(d.Members, ", "))
	}
	return b.String()
}

// orDash is s, or "–" for an unknown (empty) value.
func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
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
			if res == nil {
				continue
			}
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
		_, _, fraction := metricKind(ref.Metric)
		out = append(out, column{head: ref.Task + " " + ref.Metric, ref: ref, percent: fraction})
	}
	return out
}

func cell(r *ResultsFile, c column) string {
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
	s := fmt.Sprintf("%.2f", v)
	if res := r.Tasks[c.ref.Task]; c.counts && res != nil {
		s += fmt.Sprintf(" (%d/%d)", res.Docs, res.TotalDocs-res.Dropped)
	}
	return s
}

// attentionCell is the run's attention percentage: one figure for a run of one task group, else one per
// group ("lm 0.0, niah 4.2"; tasks of no group as "other").
func attentionCell(r *ResultsFile) string {
	if !math.IsNaN(r.AttentionFraction) {
		return fmt.Sprintf("%.1f", 100*r.AttentionFraction)
	}
	groups := make([]string, 0, len(r.AttentionByGroup))
	for g := range r.AttentionByGroup {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	var parts []string
	for _, g := range groups {
		name := g
		if name == "" {
			name = "other"
		}
		parts = append(parts, fmt.Sprintf("%s %.1f", name, 100*r.AttentionByGroup[g]))
	}
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, ", ")
}
