package niah

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAggregate(t *testing.T) {
	var rs []Result
	add := func(task Task, l int, d float64, scores ...float64) {
		for i, s := range scores {
			rs = append(rs, Result{Task: task, Length: l, Depth: d, Index: i, Score: s})
		}
	}
	add(SNIAH2, 2048, 0.5, 1, 0, 1, 1)
	add(SNIAH2, 1024, 0, 1, 1)
	add(SNIAH2, 1024, 0.5, 0, 0)
	add(SNIAH1, 1024, 0, 1)
	reps := Aggregate(rs, 0)
	require.Len(t, reps, 2)
	require.Equal(t, SNIAH1, reps[0].Task, "tasks in the paper's order")
	r := reps[1]
	require.Equal(t, "S-NIAH-2", r.Paper)
	require.Equal(t, []int{1024, 2048}, r.Lengths)
	require.Equal(t, []float64{0, 0.5}, r.Depths)
	require.Len(t, r.Cells, 3)
	c, ok := r.Cell(2048, 0.5)
	require.True(t, ok)
	require.Equal(t, 4, c.N)
	require.InDelta(t, 75, c.Score, 1e-9)
	require.InDelta(t, 100*math.Sqrt(0.25/4), c.StdErr, 1e-9) // sample variance 0.25, n 4
	_, ok = r.Cell(2048, 0)
	require.False(t, ok)
	require.Equal(t, 4, r.ByLength[0].N)
	require.InDelta(t, 50, r.ByLength[0].Score, 1e-9)
	require.InDelta(t, 100, r.ByDepth[0].Score, 1e-9)
	require.Equal(t, 8, r.Overall.N)
	require.InDelta(t, 62.5, r.Overall.Score, 1e-9)
	require.Zero(t, reps[0].Overall.StdErr, "n = 1")

	md := r.Markdown()
	require.Equal(t, "**S-NIAH-2** (niah_single_2): string_match_all %, by needle depth × target length\n\n"+
		"| depth | 1K | 2K | all |\n"+
		"|---|---:|---:|---:|\n"+
		"| 0% | 100.0 |  | 100.0 |\n"+
		"| 50% | 0.0 | 75.0 | 50.0 |\n"+
		"| **all** | **50.0** | **75.0** | **62.5** |\n"+
		"| n | 4 | 4 | 8 |\n\n"+
		"Overall: 62.5 ± 18.3 (n = 8)\n", md)

	js, err := json.Marshal(r)
	require.NoError(t, err)
	require.Contains(t, string(js), `"by_length":[{"length":1024,"n":4,"score":50,"stderr":28.867513459481287}`)
	require.Contains(t, string(js), `{"length":1024,"depth":0,"n":2,"score":100,"stderr":0}`)
}

func TestAggregateBins(t *testing.T) {
	var rs []Result
	for i, d := range []float64{0, 0.03, 0.49, 0.5, 0.97, 1} {
		rs = append(rs, Result{Task: MKNIAH1, Length: 4096, Depth: d, Score: float64(i % 2)})
	}
	r := Aggregate(rs, 2)[0]
	require.Equal(t, []float64{0, 0.5}, r.Depths)
	require.Equal(t, 3, r.ByDepth[0].N)
	require.Equal(t, 3, r.ByDepth[1].N)
	md := r.Markdown()
	require.Contains(t, md, "| [0%, 50%) | 33.3 | 33.3 |")
	require.Contains(t, md, "| [50%, 100%] | 66.7 | 66.7 |")
}

func TestNewResult(t *testing.T) {
	s := Sample{Task: SNIAH3, Length: 2048, Depth: 0.25, Index: 3, Answers: []string{"abc"}, PromptTokens: make([]int, 100),
		QuestionStart: 70}
	r := NewResult(s, " ABC")
	require.Equal(t, Result{Task: SNIAH3, Length: 2048, Depth: 0.25, Index: 3, Score: 1, Generation: " ABC",
		Answers: []string{"abc"}, PromptTokens: 100, QuestionStart: 70}, r)
}
