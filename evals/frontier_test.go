package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/evals/frontier"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// TestFrontierEndToEnd: `evals frontier` on a tiny random Oryx-TG with one document per task writes a point
// per task, policy and budget (budgets 0 and 1 measured once), with the realised attention fraction, both
// FLOP accountings (the entropy policy's two passes), the plots, and a rerun that computes nothing new. The
// harness tasks (NIAH, two LM tasks; one LM task under -short) need the shared data; without it only MQAR
// and the mini needle run.
func TestFrontierEndToEnd(t *testing.T) {
	ckpt := oryxtest.TinyCheckpoint(t, oryx.OryxTG)
	out := filepath.Join(t.TempDir(), "frontier")
	tasks := []string{"mqar", "needle"}
	wd, _ := os.Getwd()
	root := harness.FindDataRoot(wd)
	if root != "" { // -short (the XLA suite: every task compiles its shapes): one LM task
		tasks = append(tasks, testutil.Sweep([]string{"piqa", "niah_single_1", "lambada_openai"}, 1)...)
	} else {
		t.Log("no shared/data/hf: NIAH and the LM tasks are left out")
	}
	args := []string{"frontier", "--checkpoint", ckpt, "--tasks", strings.Join(tasks, ","), "--budgets", "0,0.1,1",
		"--limit", "1", "--examples", "2", "--seq-len", "32", "--pairs", "2", "--batch", "2",
		"--param", "niah.lengths=600", "--param", "niah.words=embedded", "--max-length", "600", "--lm-max-length", "256", "--gen-mem-mb", "64", "--out", out}
	if root != "" {
		args = append(args, "--data-root", root)
	}
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(args, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "wrote "+out+"/frontier.json")
	assert.Contains(t, stderr.String(), "of --gen-mem-mb 64 MiB", "--gen-mem-mb reaches the needle's generation")

	var f frontier.Frontier
	data, err := os.ReadFile(filepath.Join(out, "frontier.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &f))
	require.Equal(t, tasks, f.Tasks)
	require.Len(t, f.Points, len(tasks)*4*3)
	require.Empty(t, f.Failed)
	at := map[string]frontier.Point{}
	for _, p := range f.Points {
		at[p.Task+"/"+p.Policy+"/"+map[float64]string{0: "0", 0.1: "0.1", 1: "1"}[p.Budget]] = p
		require.Equal(t, p.Budget == 0 || p.Budget == 1, p.Shared, "%+v", p)
		require.Greater(t, p.Tokens, int64(0))
		require.Greater(t, p.FLOPsGathered, 0.0)
		require.GreaterOrEqual(t, p.FLOPs, p.FLOPsGathered*(1-1e-12), "the dense graph computes at least the gathered work")
		require.InDelta(t, p.FLOPsGathered/float64(p.Tokens), p.FLOPsGatheredPerToken, 1e-9*p.FLOPsGatheredPerToken)
		switch p.Budget {
		case 0, 1:
			require.Equal(t, p.Budget, p.AttentionFraction, "%+v", p)
		default:
			require.InDelta(t, 0.1, p.AttentionFraction, 0.06, "%+v", p)
		}
		require.Equal(t, p.Policy == "entropy" && p.Budget == 0.1, p.LinearPassTokens > 0, "%+v", p)
		require.GreaterOrEqual(t, p.Value, 0.0)
	}
	for _, task := range tasks {
		lin, ent, all := at[task+"/last/0"], at[task+"/entropy/0.1"], at[task+"/entropy/1"]
		require.Equal(t, lin.Value, at[task+"/entropy/0"].Value, task)
		require.Less(t, lin.FLOPsGatheredPerToken, at[task+"/last/0.1"].FLOPsGatheredPerToken, task+": attention costs")
		require.Greater(t, ent.FLOPsGatheredPerToken, at[task+"/last/0.1"].FLOPsGatheredPerToken, task+": the entropy policy's linear pass")
		require.Greater(t, all.FLOPsGatheredPerToken, at[task+"/last/0.1"].FLOPsGatheredPerToken, task)
	}
	for _, png := range []string{"frontier.png", "frontier_fraction.png"} {
		b, err := os.ReadFile(filepath.Join(out, png))
		require.NoError(t, err)
		require.True(t, bytes.HasPrefix(b, []byte("\x89PNG")), png)
	}

	// A rerun continues: every point is there, nothing is recomputed.
	stderr.Reset()
	require.NoError(t, run(args, &stdout, &stderr), stderr.String())
	assert.NotContains(t, stderr.String(), "frontier mqar budget:")
	data2, err := os.ReadFile(filepath.Join(out, "frontier.json"))
	require.NoError(t, err)
	var f2 frontier.Frontier
	require.NoError(t, json.Unmarshal(data2, &f2))
	p1, err := json.Marshal(f.Points)
	require.NoError(t, err)
	p2, err := json.Marshal(f2.Points)
	require.NoError(t, err)
	require.JSONEq(t, string(p1), string(p2))
}

// TestFrontierBadInput: bad flags are refused before any compute, naming the flag.
func TestFrontierBadInput(t *testing.T) {
	ckpt := oryxtest.TinyCheckpoint(t, oryx.OryxTG)
	tr := oryxtest.TinyCheckpoint(t, oryx.Transformer)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"frontier"}, "--checkpoint is required"},
		{[]string{"frontier", "--checkpoint", ckpt, "--budgets", "0,1.5"}, `--budgets "0,1.5"`},
		{[]string{"frontier", "--checkpoint", ckpt, "--policies", "last,smart"}, `unknown policy "smart"`},
		{[]string{"frontier", "--checkpoint", ckpt, "--tasks", "nope", "--data-root", t.TempDir()}, "--tasks"},
		{[]string{"frontier", "--checkpoint", ckpt, "--batch", "0"}, "--batch must be in"},
		{[]string{"frontier", "--checkpoint", tr, "--tasks", "mqar", "--out", t.TempDir()}, "has one readout"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(c.args, &stdout, &stderr)
		require.Error(t, err, strings.Join(c.args, " "))
		assert.Contains(t, err.Error(), c.want, strings.Join(c.args, " "))
	}
}

// TestFrontierRerunWithOtherSettings runs the exact input: a frontier, then a rerun on the same --out with
// other MQAR settings (--pairs); its points used to be kept as computed. They are recomputed, saying why.
func TestFrontierRerunWithOtherSettings(t *testing.T) {
	ckpt := oryxtest.TinyCheckpoint(t, oryx.OryxTG)
	out := filepath.Join(t.TempDir(), "frontier")
	args := func(pairs string) []string {
		return []string{"frontier", "--checkpoint", ckpt, "--tasks", "mqar", "--budgets", "0,1", "--policies", "last",
			"--examples", "2", "--seq-len", "32", "--pairs", pairs, "--batch", "2", "--out", out}
	}
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(args("2"), &stdout, &stderr), stderr.String())
	stderr.Reset()
	require.NoError(t, run(args("2"), &stdout, &stderr), stderr.String())
	assert.NotContains(t, stderr.String(), "frontier mqar budget:", "same settings: nothing recomputed")
	stderr.Reset()
	require.NoError(t, run(args("3"), &stdout, &stderr), stderr.String())
	assert.Contains(t, stderr.String(), "was computed with other settings")
	assert.Contains(t, stderr.String(), "frontier mqar budget:", "other settings: recomputed")
	var f frontier.Frontier
	data, err := os.ReadFile(filepath.Join(out, "frontier.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &f))
	assert.Contains(t, f.Settings["mqar"], "pairs [3]")
}
