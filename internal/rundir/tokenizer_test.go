package rundir

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTokenizer(t *testing.T) {
	dir := t.TempDir()
	spec, err := Tokenizer(dir)
	require.NoError(t, err)
	require.Equal(t, "bytes", spec, "no run.json: the byte tokenizer")

	require.NoError(t, os.MkdirAll(filepath.Join(dir, "tokenizer"), 0o755))
	inside := filepath.Join(dir, "tokenizer", "gpt-neox-20b.json")
	require.NoError(t, os.WriteFile(inside, []byte("{}"), 0o644))
	outside := filepath.Join(t.TempDir(), "tokenizer.json")
	require.NoError(t, os.WriteFile(outside, []byte("{}"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link.json")))

	for _, c := range []struct {
		runJSON, want, err string
	}{
		{`{"tokenizer": "bytes"}`, "bytes", ""},
		{`{"tokenizer": ""}`, "bytes", ""},
		{`{"tokenizer": "/abs/elsewhere/tokenizer.json", "tokenizer_file": "tokenizer/gpt-neox-20b.json"}`, inside, ""},
		{`{"tokenizer": "tokenizer/gpt-neox-20b.json"}`, inside, ""},
		{`{"tokenizer": "/etc/passwd.json"}`, "", `tokenizer "/etc/passwd.json" is outside the run directory`},
		{`{"tokenizer": "../../secret/tokenizer.json"}`, "", `tokenizer "../../secret/tokenizer.json" is outside the run directory`},
		{`{"tokenizer_file": "../x.json"}`, "", `tokenizer_file "../x.json" is outside the run directory`},
		{`{"tokenizer": "missing.json"}`, "", "is missing (the path is relative to the run directory)"},
		{`{"tokenizer": "link.json"}`, "", `tokenizer "link.json" is a link to /`},
		{`{"tokenizer": 5}`, "", "not a run record"},
		{`not json`, "", "not a run record"},
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, RunFile), []byte(c.runJSON), 0o644))
		got, err := Tokenizer(dir)
		if c.err != "" {
			require.ErrorContains(t, err, c.err, c.runJSON)
			require.ErrorContains(t, err, "--tokenizer", c.runJSON)
			require.ErrorContains(t, err, filepath.Join(dir, RunFile), c.runJSON)
			continue
		}
		require.NoError(t, err, c.runJSON)
		require.Equal(t, c.want, got, c.runJSON)
	}
}

// FuzzRunJSON: whatever run.json holds, Tokenizer returns "bytes", a path inside the run directory, or an
// error — never a path outside it, never a panic.
func FuzzRunJSON(f *testing.F) {
	for _, s := range []string{`{"tokenizer": "bytes"}`, `{"tokenizer": "/etc/x.json"}`, `{"tokenizer_file": "a/b.json"}`,
		`{"tokenizer": "../x.model"}`, `{"tokenizer": "a/../../b.json"}`, `{}`, `[`, `{"tokenizer": "x\u0000.json"}`} {
		f.Add([]byte(s))
	}
	root := f.TempDir()
	dir := filepath.Join(root, "run")
	if err := os.MkdirAll(filepath.Join(dir, "a"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "b.json"), nil, 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, RunFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		spec, err := Tokenizer(dir)
		if err != nil || spec == "bytes" {
			return
		}
		rel, rerr := filepath.Rel(dir, spec)
		if rerr != nil || !filepath.IsLocal(rel) {
			t.Fatalf("run.json %q resolved to %q, outside %s", data, spec, dir)
		}
	})
}
