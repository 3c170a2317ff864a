// Package frontier is the attention-budget frontier as data: frontier.json (Frontier, its points), its plots,
// and the frontier read as curves (summary.go), which the tiny study (recipes/study) reports. Measuring it
// (`evals frontier`) is evals/frontier/measure.
package frontier

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/figure"
	"github.com/oryx-go/oryx/internal/safefile"
)

// The frontier's own tasks (the others are harness tasks or groups).
const (
	TaskMQAR   = "mqar"
	TaskNeedle = "needle"
)

// Point is one task read under one budget and policy.
type Point struct {
	Task   string  `json:"task"`
	Metric string  `json:"metric"` // the task's accuracy metric (score, acc, acc_norm, contains, ...)
	Policy string  `json:"policy"`
	Budget float64 `json:"budget"` // F, the requested attention fraction
	Value  float64 `json:"value"`
	StdErr float64 `json:"stderr"` // NaN (null) when unknown
	// AttentionFraction is the realised fraction of the tokens run in attention (generated tokens included).
	AttentionFraction float64 `json:"attention_fraction"`
	Tokens            int64   `json:"tokens"`
	// FLOPs and FLOPsGathered are the forward FLOPs spent on the task, both passes of the entropy policy
	// counted: as the graphs compute them, and in the gathered form (evals/oryxlm/policy.go); the *PerToken
	// fields divide them by Tokens.
	FLOPs                 float64 `json:"flops"`
	FLOPsGathered         float64 `json:"flops_gathered"`
	FLOPsPerToken         float64 `json:"flops_per_token"`
	FLOPsGatheredPerToken float64 `json:"flops_gathered_per_token"`
	LinearPassTokens      int64   `json:"linear_pass_tokens"`
	// Shared marks a point at budget 0 or 1, where every policy is the same schedule (all linear, all
	// attention; tested equal): it was measured once, under the first policy, and is listed for each.
	Shared  bool    `json:"shared,omitempty"`
	Seconds float64 `json:"seconds"`
}

// MarshalJSON writes a NaN standard error as null.
func (p Point) MarshalJSON() ([]byte, error) {
	type plain Point
	var st *float64
	if !math.IsNaN(p.StdErr) {
		st = &p.StdErr
	}
	return json.Marshal(struct {
		plain
		StdErr *float64 `json:"stderr"`
	}{plain(p), st})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (p *Point) UnmarshalJSON(b []byte) error {
	type plain Point
	var v struct {
		plain
		StdErr *float64 `json:"stderr"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = Point(v.plain)
	p.StdErr = math.NaN()
	if v.StdErr != nil {
		p.StdErr = *v.StdErr
	}
	return nil
}

// Frontier is frontier.json.
type Frontier struct {
	Model          string            `json:"model"`
	Checkpoint     string            `json:"checkpoint"`
	CheckpointStep int64             `json:"checkpoint_step"`
	CheckpointHash string            `json:"checkpoint_hash,omitempty"` // the weights' identity (oryx.CheckpointHash)
	Variant        string            `json:"variant"`
	Backend        string            `json:"backend"`
	Tokenizer      string            `json:"tokenizer"`
	Limit          int               `json:"limit,omitempty"`
	Tasks          []string          `json:"tasks"`
	Budgets        []float64         `json:"budgets"`
	Policies       []string          `json:"policies"`
	Date           string            `json:"date"`
	Notes          []string          `json:"notes"`
	Points         []Point           `json:"points"`
	Failed         map[string]string `json:"failed,omitempty"`
	// Settings are the tasks' settings that produced the points (MQAR sizes, needle lengths, maximum lengths,
	// data root): a rerun keeps the points only when they are the same (previousPoints).
	Settings map[string]string `json:"settings,omitempty"`
}

// Notes explain the file's quantities.
var Notes = []string{
	"budget F: exactly round(F*T) of each request's T input tokens in attention (oryx/schedule/budget.go); generated tokens spend the budget as it accrues",
	"entropy: a linear pass scores every position by the entropy of the linear readout, the top round(F*T) are recomputed in attention by a second full pass; both passes are in the FLOPs",
	"flops: as the graphs compute them (the parallel forward runs both readouts at every token); flops_gathered: the same passes with attention only at the attention tokens (oryx.AttentionCoreFLOPs: what token-by-token decoding pays), the cost that falls with the budget; the plots use flops_gathered per token",
	"budgets 0 and 1 are the same schedule under every policy (all linear, all attention): measured once (shared)",
}

// Save writes f, its points sorted by task, policy and budget, to path atomically.
func (f *Frontier) Save(path string) error {
	f.Date = time.Now().UTC().Format(time.RFC3339)
	sort.SliceStable(f.Points, func(i, j int) bool {
		a, b := f.Points[i], f.Points[j]
		if a.Task != b.Task {
			return slices.Index(f.Tasks, a.Task) < slices.Index(f.Tasks, b.Task)
		}
		if a.Policy != b.Policy {
			return slices.Index(f.Policies, a.Policy) < slices.Index(f.Policies, b.Policy)
		}
		return a.Budget < b.Budget
	})
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'))
}

// PointKey is the key of a point: its task, policy and budget.
func PointKey(task, policy string, budget float64) string {
	return task + "|" + policy + "|" + strconv.FormatFloat(budget, 'g', -1, 64)
}

// Find returns f's point of (task, policy, budget), or nil.
func (f *Frontier) Find(task, policy string, budget float64) *Point {
	for i := range f.Points {
		if p := &f.Points[i]; p.Task == task && p.Policy == policy && p.Budget == budget {
			return p
		}
	}
	return nil
}

// Add adds p, replacing f's point of the same key.
func (f *Frontier) Add(p Point) {
	if old := f.Find(p.Task, p.Policy, p.Budget); old != nil {
		*old = p
		return
	}
	f.Points = append(f.Points, p)
}

// PreviousPoints reads the points of an existing frontier.json of the same checkpoint, tokenizer and limit
// (none when there is no file; an error when it belongs to another run). Points computed with other task
// settings (f.Settings), or whose value is not finite, are dropped, saying so on log: they are recomputed.
func PreviousPoints(path string, f *Frontier, log io.Writer) (map[string]Point, error) {
	out := map[string]Point{}
	data, err := safefile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	var prev Frontier
	if err := json.Unmarshal(data, &prev); err != nil {
		return nil, fmt.Errorf("--out: %s is not a frontier file (%w); use --force to overwrite it", path, err)
	}
	if filepath.Clean(prev.Checkpoint) != filepath.Clean(f.Checkpoint) || prev.Limit != f.Limit || prev.Tokenizer != f.Tokenizer ||
		prev.CheckpointStep != f.CheckpointStep {
		return nil, fmt.Errorf("--out: %s holds the frontier of another run (checkpoint %s step %d, limit %d); use --force or another --out",
			path, prev.Checkpoint, prev.CheckpointStep, prev.Limit)
	}
	if prev.CheckpointHash != f.CheckpointHash {
		was := prev.CheckpointHash
		if was == "" {
			was = "not recorded"
		}
		fmt.Fprintf(log, "frontier: %s was computed with other weights (checkpoint hash %s, now %s, same step %d): recomputing its %d point(s)\n",
			path, was, f.CheckpointHash, f.CheckpointStep, len(prev.Points))
		return out, nil
	}
	if !maps.Equal(prev.Settings, f.Settings) {
		fmt.Fprintf(log, "frontier: %s was computed with other settings (%v; now %v): recomputing its %d point(s)\n",
			path, prev.Settings, f.Settings, len(prev.Points))
		return out, nil
	}
	for _, p := range prev.Points {
		if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
			fmt.Fprintf(log, "frontier: %s: point %s %s %g has value %v: recomputing it\n", path, p.Task, p.Policy, p.Budget, p.Value)
			continue
		}
		out[PointKey(p.Task, p.Policy, p.Budget)] = p
	}
	return out, nil
}

// WritePNG draws the frontier: a panel per task, a line per policy through its budgets, against gathered
// FLOPs per token, or (byFraction) against the realised attention fraction.
func (f *Frontier) WritePNG(path string, byFraction bool) error {
	var panels []*figure.Panel
	for _, task := range f.Tasks {
		var metric string
		pn := &figure.Panel{Title: f.Model + ": " + task, LegendInside: false}
		for k, pol := range f.Policies {
			var xs, ys, es []float64
			for _, b := range f.Budgets {
				p := f.Find(task, pol, b)
				if p == nil {
					continue
				}
				metric = p.Metric
				x := p.FLOPsGatheredPerToken / 1e6
				if byFraction {
					x = p.AttentionFraction
				}
				xs, ys, es = append(xs, x), append(ys, p.Value), append(es, p.StdErr)
			}
			if len(xs) == 0 {
				continue
			}
			pn.Lines = append(pn.Lines, figure.Line{Name: pol, X: xs, Y: ys, YErr: es, Color: k, Marker: k + 1})
		}
		if len(pn.Lines) == 0 {
			continue
		}
		pn.Y = figure.Axis{Label: metric}
		if !strings.Contains(metric, "perplexity") { // fractions: the whole range
			lo, hi := 0.0, 1.0
			pn.Y.Min, pn.Y.Max = &lo, &hi
		}
		pn.X = figure.Axis{Label: "forward MFLOP per token (gathered; both passes of entropy)"}
		pn.Comment = "a line per policy through F = " + BudgetList(f.Budgets)
		if byFraction {
			pn.X = figure.Axis{Label: "realised attention fraction of the tokens run"}
		}
		panels = append(panels, pn)
	}
	if len(panels) == 0 {
		return nil
	}
	cols := min(len(panels), 3)
	// Two title lines: one line would be cut at the edges of a figure of one narrow panel.
	return figure.Figure{Title: fmt.Sprintf("%s (step %d)\naccuracy against cost per attention budget and policy", f.Model, f.CheckpointStep),
		Cols: cols, Panels: panels}.WritePNG(path)
}

// BudgetList formats attention budgets for reports and plots: "0, 0.02, 0.1" (shortest exact form).
func BudgetList(bs []float64) string {
	s := make([]string, len(bs))
	for i, b := range bs {
		s[i] = strconv.FormatFloat(b, 'g', -1, 64)
	}
	return strings.Join(s, ", ")
}
