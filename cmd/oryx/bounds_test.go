package main

import (
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/internal/clitest"
	"github.com/oryx-go/oryx/internal/guard"
	"github.com/stretchr/testify/require"
)

// TestCountsBounded: the counts that had no upper bound at their flag are refused there,
// exit 2 naming the flag, nothing written. Before: selfcheck -T and synth --seq-len of 2000000000 and
// tokenize --workers 2000000000 ran out of memory (a runtime panic), synth --vocab 2000000000 wrote a corpus,
// synth --vocab 8 --pairs 16 failed only in the writer (exit 1), --top-k took any count.
func TestCountsBounded(t *testing.T) {
	tmp := t.TempDir()
	corpus := filepath.Join(tmp, "c.parquet")
	missing := filepath.Join(tmp, "missing")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"selfcheck", "-T", "2000000000"}, "flags -T and -chunk must be ≤ 4096 and ≤ 16384, got 2000000000 and 32"},
		{[]string{"selfcheck", "-chunk", "2000000000"}, "flags -T and -chunk must be ≤ 4096 and ≤ 16384, got 96 and 2000000000"},
		{[]string{"synth", "--kind", "mqar", "--out", corpus, "--seq-len", "2000000000"}, "--seq-len: 2000000000 is out of range [1, 16777216]"},
		{[]string{"synth", "--kind", "mqar", "--out", corpus, "--vocab", "2000000000"}, "--vocab: 2000000000 is out of range [4, 4194304]"},
		{[]string{"synth", "--kind", "mqar", "--out", corpus, "--pairs", "2000000000"}, "--pairs: 2000000000 is out of range [1, 16777216]"},
		{[]string{"synth", "--kind", "mqar", "--out", corpus, "--vocab", "8"}, "--vocab 8 --seq-len 256 --pairs 16: datasets: MQARConfig.Vocab = 8: only 3 keys"},
		{[]string{"synth", "--kind", "synthlang", "--out", corpus, "--n", "2000000000"}, "--n must be in [1, 1073741824], got 2000000000"},
		{[]string{"tokenize", "--input", missing, "--tokenizer", "bytes", "--out", filepath.Join(tmp, "tok"), "--workers", "2000000000"},
			"--workers must be >= 0 and <= 1024 (0 = all CPUs), got 2000000000"},
		{[]string{"generate", "--checkpoint", missing, "--prompt", "hi", "--top-k", "2000000000", "--temperature", "1"},
			"--top-k must be in [0, 4194304] (0 = off), got 2000000000"},
	} {
		clitest.Run(t, nil, c.args...).Check(t, 2, c.want)
	}
	require.NoFileExists(t, corpus, "a refused synth writes nothing")
	require.NoDirExists(t, filepath.Join(tmp, "tok"))

	// Within the bounds but beyond this machine (1,024 rows of 16M tokens, ~149 GiB): refused before a row is
	// written.
	if m := guard.HostMemory(); m == 0 || m > 150<<30 {
		t.Skipf("this machine's memory (%s) may hold 1,024 rows of 16M tokens", guard.HumanBytes(m))
	}
	clitest.Run(t, nil, "synth", "--kind", "mqar", "--out", corpus, "--seq-len", "16000000", "--pairs", "4").
		Check(t, 1, "--seq-len 16000000 (rows written 1,024 at a time) needs ~")
	require.NoFileExists(t, corpus)
}
