package evalrun

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/oryx"
)

// lmEvalFiles lists the results_*.json and samples_*.jsonl files directly in dir.
func lmEvalFiles(t *testing.T, dir string) []string {
	var files []string
	for _, pattern := range []string{"results_*.json", "samples_*.jsonl"} {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		require.NoError(t, err)
		files = append(files, m...)
	}
	return files
}

// TestModelNameStaysInItsFolder: lm-eval's folder <dir of --out>/<model>/ is one folder
// inside --out's: `--model ..` and names that are not valid UTF-8 or hold control characters are refused
// (usage errors naming --model), a --checkpoint given as ".." is named after the directory it is, and a
// --out beside the checkpoint, whose lm-eval folder would be the checkpoint directory, is refused naming
// both. Before, the first and the third wrote results_<date>.json (and samples) beside --out's folder and into
// the checkpoint directory. The task's data is missing: a run that is not refused fails its task and still
// writes its results files.
func TestModelNameStaysInItsFolder(t *testing.T) {
	tmp := t.TempDir()
	ckpt := tinyCheckpoint(t, oryx.OryxTG)
	base := Options{Checkpoint: ckpt, Tasks: "piqa", Limit: 1, Batch: 2, Bootstrap: -1, LogSamples: true,
		Harness: harness.Config{DataRoot: t.TempDir()}, Log: testWriter{t}}
	run := func(change func(o *Options)) error {
		o := base
		change(&o)
		_, err := Run(context.Background(), o)
		return err
	}

	for _, c := range []struct{ model, want string }{
		{"..", `--model ".." cannot name lm-eval's results folder (it would be "..")`},
		{".", `--model "." cannot name lm-eval's results folder`},
		{"m\xff", `--model "m\xff" is not valid UTF-8`},
		{"a\nb", `--model "a\nb" holds control characters`},
	} {
		out := filepath.Join(tmp, "a", "b", "run.json")
		err := run(func(o *Options) { o.ModelName, o.Out = c.model, out })
		require.ErrorContains(t, err, c.want)
		require.True(t, cli.IsUsage(err), "a usage error: %v", err)
		require.Empty(t, lmEvalFiles(t, filepath.Join(tmp, "a")), "nothing beside --out's folder")
		require.NoFileExists(t, out)
	}

	// --checkpoint ..: the model is named after the directory.
	sub := filepath.Join(ckpt, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	t.Chdir(sub)
	out := filepath.Join(tmp, "dotdot", "run.json")
	require.ErrorContains(t, run(func(o *Options) { o.Checkpoint, o.Out = "..", out }), "piqa")
	require.Empty(t, lmEvalFiles(t, tmp), "nothing beside --out's folder")
	require.NotEmpty(t, lmEvalFiles(t, filepath.Join(tmp, "dotdot", filepath.Base(ckpt))), "lm-eval's folder is named after the checkpoint")

	// --out beside the checkpoint, directly or through a link to its folder: refused, the checkpoint untouched.
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(filepath.Dir(ckpt), link))
	for _, out := range []string{filepath.Join(filepath.Dir(ckpt), "run.json"), filepath.Join(link, "run.json")} {
		err := run(func(o *Options) { o.Out = out })
		require.ErrorContains(t, err, "would be inside the checkpoint directory "+ckpt)
		require.ErrorContains(t, err, "--out "+out)
		require.True(t, cli.IsUsage(err), "a usage error: %v", err)
		require.Empty(t, lmEvalFiles(t, ckpt), "nothing written into the checkpoint directory")
		require.NoFileExists(t, out)
	}
	// With --model naming another folder the same --out is fine.
	out = filepath.Join(filepath.Dir(ckpt), "run.json")
	require.ErrorContains(t, run(func(o *Options) { o.Out, o.ModelName = out, "org/tiny" }), "piqa")
	require.NotEmpty(t, lmEvalFiles(t, filepath.Join(filepath.Dir(ckpt), "org__tiny")))
	require.Empty(t, lmEvalFiles(t, ckpt))

	// The default results file names the model as lm-eval's folder does: one file in results/.
	o := Options{Checkpoint: ckpt, ModelName: "org/../../m"}
	_, model, def := o.names()
	require.Equal(t, "org/../../m", model)
	require.Equal(t, filepath.Join("results", "org__..__..__m-attention.json"), def)
}
