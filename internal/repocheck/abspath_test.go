package repocheck

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// machinePath matches an absolute path into a machine's home or work folders (work, root, home and Users
// at the root of the file system): where a checkout, a data folder or a user's files lay on the machine a
// figure or a log came from, which is nowhere on a reader's. The repository cites its own files by their path in it (docs/…) and shared
// data by its place beside the checkout (shared/data/…).
var machinePath = regexp.MustCompile(`(^|[^A-Za-z0-9_.~/-])/(work|root|home|Users)/`)

// allowedMachinePaths are the absolute paths that are not a build machine's, each with why it is there.
var allowedMachinePaths = map[string]string{
	"/home/janpf/.local/lib/go-xla/nvidia": "docs/gomlx.md quotes the CUDA data folder go-xla itself hard-codes",
	"/root/.ssh/id_rsa.json":               "a hostile run.json of evals/hostile_test.go: a tokenizer path outside the run directory, refused",
}

// machinePaths returns "line N: ..." for each line of text that holds an absolute machine path not in
// allowedMachinePaths.
func machinePaths(text string) []string {
	var out []string
	for i, line := range strings.Split(text, "\n") {
		for p := range allowedMachinePaths {
			line = strings.ReplaceAll(line, p, "")
		}
		if loc := machinePath.FindStringIndex(line); loc != nil {
			out = append(out, fmt.Sprintf("line %d: %s", i+1, strings.TrimSpace(line[loc[0]:min(len(line), loc[0]+60)])))
		}
	}
	return out
}

// TestMachinePaths pins the rule on examples (the paths written with "@" inside, removed before checking, so
// that this file passes the repository check).
func TestMachinePaths(t *testing.T) {
	unmark := strings.NewReplacer("@", "").Replace
	for _, c := range []struct {
		text string
		bad  int
	}{
		{"data root `/wo@rk/shared/data/hf`", 1},
		{"PLUGIN=/wo@rk/main/.xla/cpu/x.so and /ro@ot/go/bin", 1},
		{"cd /ho@me/alice/oryx\nls /Us@ers/bob", 2},
		{"data root `shared/data/hf`, plugin <repo>/.xla/cpu/x.so, /tmp/bxvg, /usr/bin/time", 0},
		{"~/wo@rk/x, ./ro@ot/y, a/ho@me/z, https://example.org/ho@me/", 0},
		{`"/ro@ot/.ssh/id_rsa.json" is outside the run directory`, 0},
	} {
		if got := machinePaths(unmark(c.text)); len(got) != c.bad {
			t.Errorf("%q: %d machine paths %q, want %d", unmark(c.text), len(got), got, c.bad)
		}
	}
}

// TestNoMachinePaths fails, naming file and line, on every committed text file (tracked, or new and not
// ignored; third_party/ aside, binary files skipped) that holds an absolute path of a build machine.
func TestNoMachinePaths(t *testing.T) {
	notVendored := func(rel string) bool { return !strings.HasPrefix(rel, "third_party/") }
	forEachFile(t, notVendored, 100, func(rel string, data []byte) {
		if bytes.IndexByte(data, 0) >= 0 {
			return // binary
		}
		for _, p := range machinePaths(string(data)) {
			t.Errorf("%s: %s: an absolute path of a build machine (write it relative to the checkout, or allow it in allowedMachinePaths with the reason)", rel, p)
		}
	})
}
