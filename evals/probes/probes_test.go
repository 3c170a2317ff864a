package probes

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

func TestSwitchAndMQARCommands(t *testing.T) {
	dir := oryxtest.TinyCheckpoint(t, oryx.OryxTM)
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

// TestMQAROptionsFromRun: unset MQAR options come from run.json when the run trained on the MQAR mixture;
// flags that were set win; a run without MQAR keeps the plain defaults (offset 0).
func TestMQAROptionsFromRun(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, rundir.WriteJSON(dir, rundir.RunFile, map[string]any{
		"data": map[string]string{"Spec": "mix:synth=2,mqar=1,pairs=12"}, "train": map[string]int{"seq_len": 128}}))
	o := MQAROptions{Checkpoint: dir, Offset: -1}.Resolve(io.Discard)
	require.Equal(t, MQAROptions{Checkpoint: dir, Pairs: []int{4, 8}, SeqLen: 128, Vocab: datasets.MQARVocab,
		Offset: datasets.MQARTokenOffset}, o)
	o = MQAROptions{Checkpoint: dir, Offset: 5, SeqLen: 64, Pairs: []int{2}}.Resolve(io.Discard)
	require.Equal(t, MQAROptions{Checkpoint: dir, Pairs: []int{2}, SeqLen: 64, Vocab: datasets.MQARVocab, Offset: 5}, o)
	require.NoError(t, rundir.WriteJSON(dir, rundir.RunFile, map[string]any{
		"data": map[string]string{"Spec": "synth"}, "train": map[string]int{"seq_len": 128}}))
	var log strings.Builder
	o = MQAROptions{Checkpoint: dir, Offset: -1}.Resolve(&log)
	require.Equal(t, MQAROptions{Checkpoint: dir, Pairs: []int{4, 8, 16}, SeqLen: 256, Vocab: datasets.MQARVocab}, o)
	require.Contains(t, log.String(), "not trained on the MQAR mixture")
	// Resolved options are left as they are, and nothing is logged: Resolve may run twice (evals mqar, MQAR).
	log.Reset()
	require.Equal(t, o, o.Resolve(&log))
	require.Empty(t, log.String())
}

// TestHeldOutReadsTheHeldOutPartOfText: for a spec with real text, the analyses' held-out sequences are the
// held-out part (datasets.HeldOut), never the first training windows of the file.
func TestHeldOutReadsTheHeldOutPartOfText(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 8000; i++ {
		b.WriteString("line " + strings.Repeat("x", i%13) + "\n")
	}
	file := filepath.Join(t.TempDir(), "a.txt")
	require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o644))
	tok := tokenizers.NewByteTokenizer()
	spec := datasets.DataSpec{Spec: "text:" + file}
	got, err := HeldOut(spec, tok, 32, 5)
	require.NoError(t, err)
	want, err := datasets.HeldOut(spec, tok, 32, 5)
	require.NoError(t, err)
	require.Equal(t, want, got)
	all := b.String()
	target := (len(all)*9 + 9) / 10
	cut := target + strings.IndexByte(all[target-1:], '\n') // the first line start at or after 90 %
	for i, s := range got {
		text := strings.TrimSuffix(tok.Decode(datasetsInts(s)), "<|endoftext|>")
		require.Contains(t, all[cut:], text, "sequence %d", i)
	}
}

func datasetsInts(x []int32) []int {
	out := make([]int, len(x))
	for i, v := range x {
		out[i] = int(v)
	}
	return out
}
