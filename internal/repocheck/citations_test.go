package repocheck

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// noteNames are the file names of the design notes and reference pages: those in docs/ and those of the notes
// folder the project grew out of (outside the repository), so that a citation of either kind is checked.
var noteNames = []string{"mixers", "model", "paper", "evals", "gomlx", "layout", "python-tools", "testing", "studies",
	"backends", "library", "inference", "data", "training", "interop", "history", "determinism"}

var (
	// noteRef matches a cited note file name with the path written before it (group 2) and its name (group 3).
	noteRef = regexp.MustCompile(`(^|[^A-Za-z0-9_-])((?:[A-Za-z0-9_.-]+/)*)(` + strings.Join(noteNames, "|") + `)\.md\b`)
	// trackerRef matches an issue number: "issue N", "issue #N", "(issue N)", "issues N", "issue-N".
	trackerRef = regexp.MustCompile(`(?i)\bissues?[\s-]*#?\d+`)
	// outsideNotes is the notes folder outside the repository.
	outsideNotes = "shared" + "/notes"
)

// checked reports whether the file at rel (slash-separated, relative to the repository root) is one whose
// text is checked: Go, Markdown, shell and Python sources, Makefiles and the CI scripts.
func checked(rel string) bool {
	if strings.HasPrefix(rel, "third_party/") {
		return false // vendored dependencies as published (third_party/PATCHES.md): their authors' citations
	}
	switch path.Ext(rel) {
	case ".go", ".md", ".sh", ".py":
		return true
	}
	return path.Base(rel) == "Makefile" || strings.HasPrefix(rel, ".ci/")
}

// lineProblems returns what is wrong with one line of the file at rel: a citation of a note outside docs/ or
// of a docs/ note that does not exist (hasDoc tells which exist), and tracker issue numbers.
func lineProblems(rel, line string, hasDoc func(name string) bool) []string {
	var out []string
	if strings.Contains(line, outsideNotes) {
		out = append(out, fmt.Sprintf("cites %q, a folder outside the repository: cite the note in docs/ (docs/<note>.md §N)", outsideNotes))
	}
	inDocs := strings.HasPrefix(rel, "docs/")
	for _, m := range noteRef.FindAllStringSubmatch(line, -1) {
		dir, name := m[2], m[3]+".md"
		switch {
		case strings.Contains(dir, "notes"):
			// Reported above (or a notes folder of another name): either way not docs/.
			if !strings.Contains(line, outsideNotes) {
				out = append(out, fmt.Sprintf("cites %s%s: design notes live in docs/ (docs/%s)", dir, name, name))
			}
		case !(dir == "" && inDocs) && !strings.HasSuffix(dir, "docs/"):
			out = append(out, fmt.Sprintf("cites %s%s without its folder: write docs/%s", dir, name, name))
		case !hasDoc(name):
			out = append(out, fmt.Sprintf("cites %s%s, which is not a note in docs/", dir, name))
		}
	}
	for _, m := range trackerRef.FindAllString(line, -1) {
		out = append(out, fmt.Sprintf("names a tracker issue (%q), which a reader of the repository cannot look up: say what the thing is", m))
	}
	return out
}

// TestLineProblems pins the rules on examples. The examples are written with "@" inside the patterns (removed
// before checking) so that this file's own text passes the repository check.
func TestLineProblems(t *testing.T) {
	has := func(name string) bool {
		for _, d := range []string{"mixers", "model", "evals", "gomlx"} {
			if name == d+".md" {
				return true
			}
		}
		return false
	}
	unmark := strings.NewReplacer("@", "").Replace
	cases := []struct {
		file, line string
		problems   int
	}{
		{"layers/ssd.go", "// SSD (docs/mixers@.md §3):", 0},
		{"layers/ssd.go", "// SSD (mixers@.md §3):", 1},
		{"layers/ssd.go", "// see ../shared@/notes/mixers@.md §8", 1},
		{"README.md", "the model of `docs/model@.md` §3.2 and [evals](docs/evals@.md)", 0},
		{"README.md", "(docs/paper@.md §3)", 1},
		{"scripts/peer.py", "as in gomlx@.md §5 and evals@.md §2", 2},
		{"docs/model.md", "see [mixers@.md](mixers@.md) §6", 0},
		{"docs/model.md", "see ../docs/gomlx@.md", 0},
		{"oryx/x.go", "// from the notes/paper@.md reconstruction", 1},
		{"niah/t_test.go", `sharedEssays = "../../shared/data/hf/ruler_essays/essays.parquet"`, 0},
		{"oryx/x.go", "// fixed before any run (issue@ 12)", 1},
		{"BENCHMARKS.md", "## Training (Issue@ #5)", 1},
		{"BENCHMARKS.md", "branch issue@-14c and issues@ 3", 2},
		{"oryx/x.go", "// see https://github.com/gomlx/gomlx/issues/123 and the issue tracker", 0},
		{"oryx/x.go", "// a model.mdl file, remixers.md, evals.mdx", 0},
	}
	for _, c := range cases {
		got := lineProblems(c.file, unmark(c.line), has)
		if len(got) != c.problems {
			t.Errorf("%s: %q: %d problems %q, want %d", c.file, unmark(c.line), len(got), got, c.problems)
		}
	}
}

// TestNoOutsideNotesOrTrackerNumbers walks the repository's source and documentation files (tracked, or new
// and not ignored) and fails, naming file:line, on every citation of a design note outside docs/ (or of a
// docs/ note that does not exist) and every tracker issue number.
func TestNoOutsideNotesOrTrackerNumbers(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	hasDoc := func(name string) bool {
		st, err := os.Stat(filepath.Join(root, "docs", name))
		return err == nil && st.Mode().IsRegular()
	}
	forEachFile(t, checked, 50, func(rel string, data []byte) {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
		for i := 1; sc.Scan(); i++ {
			for _, p := range lineProblems(rel, sc.Text(), hasDoc) {
				t.Errorf("%s:%d: %s", rel, i, p)
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
	})
}

// repoRoot is the nearest directory above the working directory that holds go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// forEachFile calls visit with the content of every file repoFiles lists under keep (those deleted in the
// working tree skipped), and fails t when the listing looks broken (fewer than atLeast files read).
func forEachFile(t *testing.T, keep func(rel string) bool, atLeast int, visit func(rel string, data []byte)) {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := repoFiles(root, keep)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rel := range files {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) {
			continue // tracked but deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		visit(rel, data)
	}
	if n < atLeast {
		t.Fatalf("read only %d files under %s: the file listing is broken", n, root)
	}
	t.Logf("read %d files", n)
}

// repoFiles lists the files keep keeps (slash-separated, relative to root): git's tracked and untracked
// not-ignored files, or, outside a git checkout, every file below root except in hidden directories other
// than .ci and in the top-level output directories .gitignore names.
func repoFiles(root string, keep func(rel string) bool) ([]string, error) {
	var out []string
	cmd := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if listing, err := cmd.Output(); err == nil {
		for _, rel := range strings.Split(string(listing), "\x00") {
			if rel != "" && keep(rel) {
				out = append(out, rel)
			}
		}
		return out, nil
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel != "." && strings.HasPrefix(d.Name(), ".") && rel != ".ci",
				rel == "runs", rel == "results", rel == "out", rel == "bin":
				return filepath.SkipDir
			}
			return nil
		}
		if keep(rel) {
			out = append(out, rel)
		}
		return nil
	})
	return out, err
}
