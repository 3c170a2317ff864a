package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/internal/clitest"
	"github.com/stretchr/testify/require"
)

// TestMergeChecksResults: `evals merge` checks every result of every file as a rerun
// checks one before trusting it again (an accuracy out of [0, 1], a non-finite value, a negative count of
// documents: exit 1 naming the file and the task, nothing written), and refuses a file that is not valid
// UTF-8 or whose model name holds U+FFFD (a lone surrogate escape): two such names read back the same and
// were merged into one row. Before, merge published 1e308 as "+Inf", −7.5 as "−750.00" and −5 documents. A
// file of lm-eval 0.4.0, which records no document counts, still merges.
func TestMergeChecksResults(t *testing.T) {
	tmp := t.TempDir()
	file := func(name, content string) string {
		path := filepath.Join(tmp, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		return path
	}
	run := func(model, acc, effective string) string {
		return `{"model_name": "` + model + `", "results": {"piqa": {"acc,none": ` + acc + `, "acc_stderr,none": 0.01}}, ` +
			`"n-samples": {"piqa": {"original": 10, "effective": ` + effective + `}}}`
	}
	out := filepath.Join(tmp, "board")
	require.NoError(t, os.MkdirAll(out, 0o755))
	for _, c := range []struct {
		name, content string
		want          []string
	}{
		{"huge.json", run("m", "1e308", "10"), []string{`task "piqa": metric acc is 1e+308, out of [0, 1]`}},
		{"negative.json", run("m", "-7.5", "10"), []string{`task "piqa": metric acc is -7.5, out of [0, 1]`}},
		{"docs.json", run("m", "0.5", "-5"), []string{`task "piqa": -5 documents scored`}},
		{"inf.json", `{"model_name": "m", "results": {"piqa": {"acc,none": Infinity}}, "n-samples": {"piqa": {"original": 10, "effective": 10}}}`,
			[]string{`task "piqa": metric acc is +Inf`}},
		{"bytes.json", run("m\xff", "0.5", "10"), []string{"not valid UTF-8 (at byte 17)"}},
		{"surrogate.json", run(`m\udc80`, "0.5", "10"), []string{"its model \"m\uFFFD\" holds U+FFFD"}},
	} {
		path := file(c.name, c.content)
		clitest.Run(t, nil, "merge", "--out", out, path).Check(t, 1, append(c.want, path)...)
	}
	require.NoFileExists(t, filepath.Join(out, "leaderboard.json"), "a refused merge writes nothing")

	// Two models whose names are different invalid UTF-8: refused, never one row.
	a, b := file("a.json", run("m\xfe", "0.5", "10")), file("b.json", run("m\xff", "0.7", "10"))
	clitest.Run(t, nil, "merge", "--out", out, a, b).Check(t, 1, a, "not valid UTF-8")

	// Valid files merge, lm-eval 0.4.0's without counts among them.
	ok := file("ok.json", run("m", "0.5", "10"))
	old := file("old.json", `{"model_name": "old", "results": {"piqa": {"acc,none": 0.6}}}`)
	clitest.Run(t, nil, "merge", "--out", out, ok, old).Check(t, 0, "2 runs from 2 files")
}
