package evalrun

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/internal/testutil/tinymodel"
	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/require"
)

func TestRunAndMergeOnRealData(t *testing.T) {
	wd, _ := os.Getwd()
	root := harness.FindDataRoot(wd)
	if root == "" {
		t.Skip("no shared/data/hf: the real evaluation sets are not on this machine")
	}
	out := t.TempDir()
	var files []string
	for _, v := range []oryx.Variant{oryx.OryxTG, oryx.GDN} {
		for _, mixed := range []bool{false, true} {
			if mixed && !v.IsMultiMixer() {
				continue
			}
			f, err := Run(Options{Checkpoint: tinymodel.Checkpoint(t, v), Tasks: "piqa,lambada_openai", Mixed: mixed,
				Harness: harness.Config{DataRoot: root}, Limit: 3, Batch: 4, Bootstrap: -1,
				Out:        filepath.Join(out, string(v)+map[bool]string{true: "-mixed", false: ""}[mixed]+".json"),
				LogSamples: filepath.Join(out, "samples.jsonl"), Log: testWriter{t}})
			require.NoError(t, err)
			files = append(files, f)
		}
	}
	require.NoError(t, Merge(out, files))
	require.FileExists(t, filepath.Join(out, "leaderboard.json"))
	md, err := os.ReadFile(filepath.Join(out, "leaderboard.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "mixed")
}

func TestBadInput(t *testing.T) {
	_, err := Run(Options{Checkpoint: "", Tasks: "piqa"})
	require.ErrorContains(t, err, "--checkpoint")
	_, err = Run(Options{Checkpoint: "x", Tasks: "piqa", Mixed: true, Schedule: "linear"})
	require.ErrorContains(t, err, "exclusive")
	_, err = Run(Options{Checkpoint: "x", Tasks: "no_such_task"})
	require.ErrorContains(t, err, "piqa")
	require.ErrorContains(t, Merge(t.TempDir(), nil), "no run files")
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

func TestSwitchAndMQARCommands(t *testing.T) {
	dir := tinymodel.Checkpoint(t, oryx.OryxTM)
	out := t.TempDir()
	c, err := Switch(SwitchOptions{Checkpoint: dir, Data: "synth", SeqLen: 32, At: 16, Sequences: 4, Batch: 4, Out: out}, testWriter{t})
	require.NoError(t, err)
	require.Len(t, c.Loss, 4)
	require.FileExists(t, filepath.Join(out, "switch.json"))
	require.FileExists(t, filepath.Join(out, "switch.png"))
	res, err := MQAR(MQAROptions{Checkpoint: dir, Pairs: []int{2, 4}, SeqLen: 32, Vocab: 64, Offset: 128, Examples: 4, Seed: 5,
		Batch: 4, Out: filepath.Join(out, "mqar.json")}, testWriter{t})
	require.NoError(t, err)
	require.Len(t, res[4], 3)
	_, err = Switch(SwitchOptions{Checkpoint: dir, Data: filepath.Join(out, "none-*.parquet"), SeqLen: 32, At: 16, Sequences: 4, Batch: 4, Out: out}, testWriter{t})
	require.ErrorContains(t, err, "--data")
}
