package niah

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Result is one scored sample.
type Result struct {
	Task   Task    `json:"task"`
	Length int     `json:"length"`
	Depth  float64 `json:"depth"`
	Index  int     `json:"index"`
	// Score is Score(sample, Generation) in [0, 1].
	Score      float64  `json:"score"`
	Generation string   `json:"generation,omitempty"`
	Answers    []string `json:"answers,omitempty"`
	// PromptTokens and QuestionStart are copied from the sample (the attention fraction of mixed mode is
	// (PromptTokens − QuestionStart + generated) / (PromptTokens + generated)).
	PromptTokens  int `json:"prompt_tokens"`
	QuestionStart int `json:"question_start"`
}

// NewResult scores generation (the decoded greedy output, cut at EOS) against s.
func NewResult(s Sample, generation string) Result {
	return Result{Task: s.Task, Length: s.Length, Depth: s.Depth, Index: s.Index, Score: Score(s, generation),
		Generation: generation, Answers: s.Answers, PromptTokens: len(s.PromptTokens), QuestionStart: s.QuestionStart}
}

// Cell is the mean score of a group of results, in percent (RULER's string_match_all × 100), with the count
// and the standard error of the mean (sample standard deviation / √n, × 100; 0 when n = 1).
type Cell struct {
	Length int      `json:"length,omitempty"` // 0 in the per-depth and overall cells
	Depth  *float64 `json:"depth,omitempty"`  // nil in the per-length and overall cells; with bins, the lower edge
	N      int      `json:"n"`
	Score  float64  `json:"score"`
	StdErr float64  `json:"stderr"`
}

// Report aggregates the results of one task.
type Report struct {
	Task  Task   `json:"task"`
	Paper string `json:"paper"`
	// DepthBins > 0: depths were grouped into that many equal bins of [0, 1] (Cell.Depth is a bin's lower
	// edge; the last bin includes 1); 0: by exact depth.
	DepthBins int       `json:"depth_bins,omitempty"`
	Lengths   []int     `json:"lengths"`
	Depths    []float64 `json:"depths"`
	Cells     []Cell    `json:"cells"`     // per (length, depth), lengths then depths ascending
	ByLength  []Cell    `json:"by_length"` // the paper's table: per length, all depths
	ByDepth   []Cell    `json:"by_depth"`  // per depth, all lengths
	Overall   Cell      `json:"overall"`
}

// Aggregate groups results by task (in Tasks() order, then unknown tasks by name) and computes each task's
// report. depthBins > 0 groups depths into that many equal bins, which suits RULER mode (depths drawn from 40
// values, or any piece of a noise haystack); 0 keeps exact depths (a sweep).
func Aggregate(results []Result, depthBins int) []Report {
	byTask := map[Task][]Result{}
	var tasks []Task
	for _, r := range results {
		if _, ok := byTask[r.Task]; !ok {
			tasks = append(tasks, r.Task)
		}
		byTask[r.Task] = append(byTask[r.Task], r)
	}
	rank := func(t Task) int {
		if i := slices.Index(Tasks(), t); i >= 0 {
			return i
		}
		return len(taskSpecs)
	}
	slices.SortFunc(tasks, func(a, b Task) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(string(a), string(b))
	})
	var out []Report
	for _, t := range tasks {
		out = append(out, aggregateTask(t, byTask[t], depthBins))
	}
	return out
}

func aggregateTask(t Task, results []Result, bins int) Report {
	rep := Report{Task: t, Paper: t.Paper(), DepthBins: max(bins, 0)}
	depthOf := func(r Result) float64 {
		if bins <= 0 {
			return r.Depth
		}
		b := min(max(int(r.Depth*float64(bins)), 0), bins-1)
		return float64(b) / float64(bins)
	}
	type key struct {
		l int
		d float64
	}
	cells := map[key][]float64{}
	byL := map[int][]float64{}
	byD := map[float64][]float64{}
	var all []float64
	for _, r := range results {
		d := depthOf(r)
		cells[key{r.Length, d}] = append(cells[key{r.Length, d}], r.Score)
		byL[r.Length] = append(byL[r.Length], r.Score)
		byD[d] = append(byD[d], r.Score)
		all = append(all, r.Score)
		if !slices.Contains(rep.Lengths, r.Length) {
			rep.Lengths = append(rep.Lengths, r.Length)
		}
		if !slices.Contains(rep.Depths, d) {
			rep.Depths = append(rep.Depths, d)
		}
	}
	slices.Sort(rep.Lengths)
	slices.Sort(rep.Depths)
	for _, l := range rep.Lengths {
		for _, d := range rep.Depths {
			if s, ok := cells[key{l, d}]; ok {
				c := meanCell(s)
				c.Length, c.Depth = l, ptr(d)
				rep.Cells = append(rep.Cells, c)
			}
		}
		c := meanCell(byL[l])
		c.Length = l
		rep.ByLength = append(rep.ByLength, c)
	}
	for _, d := range rep.Depths {
		c := meanCell(byD[d])
		c.Depth = ptr(d)
		rep.ByDepth = append(rep.ByDepth, c)
	}
	rep.Overall = meanCell(all)
	return rep
}

func ptr(f float64) *float64 { return &f }

// meanCell returns the mean × 100 and its standard error.
func meanCell(scores []float64) Cell {
	n := len(scores)
	if n == 0 {
		return Cell{}
	}
	var sum float64
	for _, s := range scores {
		sum += s
	}
	mean := sum / float64(n)
	c := Cell{N: n, Score: 100 * mean}
	if n > 1 {
		var ss float64
		for _, s := range scores {
			ss += (s - mean) * (s - mean)
		}
		c.StdErr = 100 * math.Sqrt(ss/float64(n-1)/float64(n))
	}
	return c
}

// Cell returns the (length, depth) cell; ok is false when no result fell in it. With bins, depth is the
// bin's lower edge.
func (r Report) Cell(length int, depth float64) (Cell, bool) {
	for _, c := range r.Cells {
		if c.Length == length && c.Depth != nil && *c.Depth == depth {
			return c, true
		}
	}
	return Cell{}, false
}

// Markdown renders the report as a markdown table: one row per depth (or depth bin), one column per length,
// cells holding the score in percent (blank when empty); then a row with each length's score over all
// depths, a row with its n, and a line with the overall score ± standard error and n.
func (r Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** (%s): string_match_all %%, by needle depth × target length\n\n", r.Paper, r.Task)
	b.WriteString("| depth |")
	for _, l := range r.Lengths {
		fmt.Fprintf(&b, " %s |", lengthLabel(l))
	}
	b.WriteString(" all |\n|---|")
	for range r.Lengths {
		b.WriteString("---:|")
	}
	b.WriteString("---:|\n")
	for i, d := range r.Depths {
		fmt.Fprintf(&b, "| %s |", r.depthLabel(d))
		for _, l := range r.Lengths {
			if c, ok := r.Cell(l, d); ok {
				fmt.Fprintf(&b, " %.1f |", c.Score)
			} else {
				b.WriteString("  |")
			}
		}
		fmt.Fprintf(&b, " %.1f |\n", r.ByDepth[i].Score)
	}
	b.WriteString("| **all** |")
	for _, c := range r.ByLength {
		fmt.Fprintf(&b, " **%.1f** |", c.Score)
	}
	fmt.Fprintf(&b, " **%.1f** |\n| n |", r.Overall.Score)
	for _, c := range r.ByLength {
		fmt.Fprintf(&b, " %d |", c.N)
	}
	fmt.Fprintf(&b, " %d |\n\nOverall: %.1f ± %.1f (n = %d)\n", r.Overall.N, r.Overall.Score, r.Overall.StdErr, r.Overall.N)
	return b.String()
}

func (r Report) depthLabel(d float64) string {
	if r.DepthBins <= 0 {
		return strconv.FormatFloat(math.Round(d*1000)/10, 'f', -1, 64) + "%"
	}
	hi, closeBr := d+1/float64(r.DepthBins), ")"
	if hi >= 1-1e-9 {
		hi, closeBr = 1, "]"
	}
	return fmt.Sprintf("[%.0f%%, %.0f%%%s", 100*d, 100*hi, closeBr)
}

func lengthLabel(l int) string {
	if l%1024 == 0 {
		return fmt.Sprintf("%dK", l/1024)
	}
	return fmt.Sprint(l)
}
