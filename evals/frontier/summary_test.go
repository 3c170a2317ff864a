package frontier

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// syntheticFrontier is a frontier whose curves are known: question reaches the all-attention accuracy
// (0.30) at F = 0.1, entropy stays within a point of last, random is in between.
func syntheticFrontier() *Summary {
	budgets := []float64{0, 0.05, 0.1, 0.5, 1}
	acc := map[string][]float64{
		"last":     {0.12, 0.12, 0.13, 0.16, 0.30},
		"question": {0.12, 0.27, 0.295, 0.30, 0.30},
		"random":   {0.12, 0.13, 0.14, 0.20, 0.30},
		"entropy":  {0.12, 0.13, 0.135, 0.15, 0.30},
	}
	r := &Summary{Run: "oryx-tg", Dir: "frontier", Task: TaskMQAR, Pairs: []int{4, 8}, Examples: 64,
		Budgets: budgets, Policies: []string{"last", "question", "random", "entropy"}, Seconds: 12.5}
	for _, pol := range r.Policies {
		for k, b := range budgets {
			flops := 0.235e6 + 0.057e6*b
			if pol == "entropy" && b > 0 && b < 1 {
				flops += 0.235e6
			}
			r.Points = append(r.Points, Point{Task: TaskMQAR, Metric: "acc", Policy: pol, Budget: b,
				Value: acc[pol][k], StdErr: 0.01, AttentionFraction: b, Tokens: 1000, FLOPsGatheredPerToken: flops})
		}
	}
	return r
}

// TestFrontierSummary: the curves, the budget at which each policy recovers the all-attention accuracy
// (within a point), the best policy at each budget and the verdict, from known points.
func TestFrontierSummary(t *testing.T) {
	r := syntheticFrontier()
	require.NoError(t, r.Summarize())
	require.Equal(t, 0.12, float64(r.AllLinear))
	require.Equal(t, 0.30, float64(r.AllAttention))
	at := map[string]*float64{}
	for _, cv := range r.ByPolicy {
		at[cv.Policy] = cv.RecoversAt
		require.Len(t, cv.Accuracy, len(r.Budgets))
		require.InDelta(t, 0.235, cv.MFLOPsPerToken[0], 1e-12)
	}
	require.Equal(t, 0.1, *at["question"], "0.295 is within a point of 0.30; 0.27 is not")
	for _, pol := range []string{"last", "random", "entropy"} {
		require.Nil(t, at[pol], "%s: only at F = 1", pol)
	}
	require.Equal(t, []float64{0.05, 0.1, 0.5}, r.ByPolicy[1].BestAt)
	require.Empty(t, r.ByPolicy[0].BestAt)

	v := strings.Join(r.Verdict(), "\n")
	require.Contains(t, v, "highest accuracy at every budget between 0 and 1 (0.05, 0.1, 0.5): question")
	require.Contains(t, v, "all-attention accuracy (30.0%) recovered within 1 point: last not below F = 1, question at F = 0.1, random not below F = 1, entropy not below F = 1")
	require.Contains(t, v, "entropy's curve is nearest to last's (mean |difference| 0.8 points over those budgets)")

	// A tie at a budget counts for each policy; without an F = 1 point nothing is "recovered".
	r = syntheticFrontier()
	r.Budgets = []float64{0, 0.05}
	r.Points[1].Value = 0.27 // last at 0.05 ties question
	require.NoError(t, r.Summarize())
	require.Equal(t, []float64{0.05}, r.ByPolicy[0].BestAt)
	require.Equal(t, []float64{0.05}, r.ByPolicy[1].BestAt)
	require.Nil(t, r.ByPolicy[1].RecoversAt)
	require.True(t, math.IsNaN(float64(r.AllAttention)))
	data, err := json.Marshal(r)
	require.NoError(t, err)
	require.Contains(t, string(data), `"all_attention":null`)
	require.Contains(t, strings.Join(r.Verdict(), "\n"), "highest accuracy at every budget between 0 and 1 (0.05): last, question")

	// A missing point is an error, not a zero.
	r = syntheticFrontier()
	r.Points = r.Points[1:]
	require.ErrorContains(t, r.Summarize(), "no point for last at budget 0")
}
