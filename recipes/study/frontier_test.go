package study

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/evals/evalapi"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// syntheticFrontier is a frontier whose curves are known: question reaches the all-attention accuracy
// (0.30) at F = 0.1, entropy stays within a point of last, random is in between.
func syntheticFrontier() *evalapi.FrontierSummary {
	budgets := []float64{0, 0.05, 0.1, 0.5, 1}
	acc := map[string][]float64{
		"last":     {0.12, 0.12, 0.13, 0.16, 0.30},
		"question": {0.12, 0.27, 0.295, 0.30, 0.30},
		"random":   {0.12, 0.13, 0.14, 0.20, 0.30},
		"entropy":  {0.12, 0.13, 0.135, 0.15, 0.30},
	}
	r := &evalapi.FrontierSummary{Run: "oryx-tg", Dir: FrontierDir, Task: evalapi.FrontierMQAR, Pairs: []int{4, 8}, Examples: 64,
		Budgets: budgets, Policies: []string{"last", "question", "random", "entropy"}, Seconds: 12.5}
	for _, pol := range r.Policies {
		for k, b := range budgets {
			flops := 0.235e6 + 0.057e6*b
			if pol == "entropy" && b > 0 && b < 1 {
				flops += 0.235e6
			}
			r.Points = append(r.Points, evalapi.FrontierPoint{Task: evalapi.FrontierMQAR, Metric: "acc", Policy: pol, Budget: b,
				Value: acc[pol][k], StdErr: 0.01, AttentionFraction: b, Tokens: 1000, FLOPsGatheredPerToken: flops})
		}
	}
	return r
}

// TestFrontierMarkdown: report.md's frontier section from known points (the summary itself is tested in
// evals/frontier).
func TestFrontierMarkdown(t *testing.T) {
	r := syntheticFrontier()
	require.NoError(t, r.Summarize())
	c := Default()
	rep := &Report{Frontier: r}
	md := frontierMarkdown(c, rep)
	require.Contains(t, md, "![attention budget frontier](frontier/frontier.png)")
	require.Contains(t, md, "| policy | F = 0 | F = 0.05 | F = 0.1 | F = 0.5 | F = 1 | recovers all-attention (±1 pt) at |\n|---|---|---|---|---|---|---|\n")
	require.Contains(t, md, "| question | 12.0% | **27.0%** | **29.5%** | **30.0%** | 30.0% | F = 0.1 |\n")
	require.Contains(t, md, "| entropy | 12.0% | 13.0% | 13.5% | 15.0% | 30.0% | only F = 1 |\n")
	require.Contains(t, md, "- Cost: 0.235 forward MFLOP per token (gathered: attention only where it is run) at F = 0, 0.292 at F = 1; entropy's linear pass adds 0.235 at the budgets between.")
	require.NotContains(t, md, "- Check:", "no models: nothing to check against")
}

// TestFrontierSkipped: without an Oryx-TG main model (--runs transformer,gdn) the frontier is skipped with
// a line in the log and the report, and nothing is written for it.
func TestFrontierSkipped(t *testing.T) {
	c := QuickConfig()
	c.Out = t.TempDir()
	var err error
	c.Runs, err = SelectRuns(c.Runs, "transformer,gdn")
	require.NoError(t, err)
	var log bytes.Buffer
	r, err := runFrontier(c, &log)
	require.NoError(t, err)
	require.Equal(t, "no Oryx-TG main model among the runs (--runs)", r.Skipped)
	require.Contains(t, log.String(), "frontier: skipped: no Oryx-TG main model")
	require.NoDirExists(t, filepath.Join(c.Out, FrontierDir))
	md := frontierMarkdown(c, &Report{Frontier: r})
	require.Contains(t, md, "## Attention budget frontier\n\nSkipped: no Oryx-TG main model among the runs (--runs).\n")
	data, err := json.Marshal(r)
	require.NoError(t, err)
	require.Contains(t, string(data), `"skipped":"no Oryx-TG main model among the runs (--runs)"`)

	require.Equal(t, "oryx-tg", frontierRun(DefaultRuns(1)).Name)
	c.FrontierExamples = 0
	c.Runs = DefaultRuns(1)
	r, err = runFrontier(c, &log)
	require.NoError(t, err)
	require.Contains(t, r.Skipped, "off in the configuration")
}

// TestFrontierConfigRefused: a bad frontier configuration is refused before anything is trained.
func TestFrontierConfigRefused(t *testing.T) {
	for _, bad := range []func(*Config){
		func(c *Config) { c.FrontierBudgets = []float64{0, 1.5} },
		func(c *Config) { c.FrontierBudgets = []float64{math.NaN()} },
		func(c *Config) { c.FrontierPolicies = []schedule.Policy{"smart"} },
		func(c *Config) { c.FrontierExamples = -1 },
	} {
		c := QuickConfig()
		c.Out = t.TempDir()
		bad(&c)
		_, err := Run(context.Background(), c, testLog{t})
		require.ErrorContains(t, err, "study: frontier")
		require.NoDirExists(t, filepath.Join(c.Out, "runs"))
	}
}
