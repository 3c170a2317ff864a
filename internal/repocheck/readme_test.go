package repocheck

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readmeMaxLines bounds README.md: a page a newcomer reads in minutes (what the project is, the two commands,
// the quickstart, the status, the main job's results, where to read more, the layout). Reference material lives
// in docs/, dated runs in docs/history.md and BENCHMARKS.md.
const readmeMaxLines = 400

// TestReadmeLength fails when README.md grows past readmeMaxLines lines.
func TestReadmeLength(t *testing.T) {
	text := readRepoFile(t, "README.md")
	if n := strings.Count(text, "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move reference material to docs/ and dated runs to docs/history.md",
			n, readmeMaxLines)
	}
}

// TestReadmeLayoutNamesEveryPackage fails when the README's layout section leaves out a package directory
// of the module (a directory holding .go files, third_party/ and testdata aside) or a top-level folder, or
// names a path that does not exist.
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	named, err := layoutEntries(readRepoFile(t, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := repoFiles(root, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	packages, topLevel := packageDirs(files)
	if len(packages) < 20 {
		t.Fatalf("found only %d package directories under %s: the file listing is broken", len(packages), root)
	}
	isNamed := map[string]bool{}
	firstElems := map[string]bool{}
	for _, p := range named {
		isNamed[p] = true
		firstElems[strings.SplitN(p, "/", 2)[0]] = true
		if st, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil || !st.IsDir() {
			t.Errorf("README.md's layout names %s, which is not a directory of the repository", p)
		}
	}
	for _, p := range packages {
		if !isNamed[p] {
			t.Errorf("README.md's layout does not name the package directory %s: add a line for it", p)
		}
	}
	for _, d := range topLevel {
		if !firstElems[d] {
			t.Errorf("README.md's layout does not name the top-level folder %s/: add a line for it", d)
		}
	}
}

// TestLayoutEntries pins how the layout block is read: the first code block after "## Layout"; a line's first
// word is a path (a trailing "/" dropped, {a,b} groups expanded), indented lines continue the line above.
func TestLayoutEntries(t *testing.T) {
	fence := "```"
	readme := strings.Join([]string{
		"# X", "", "```", "not/the/layout  words", "```", "", "## Layout", "", "Some words.", "",
		fence, "oryx            the model", "                what continues it", "docs/           notes",
		"recipes/{a,b}-{1,2}", "                one line each", fence, "", fence, "other/block", fence,
	}, "\n")
	got, err := layoutEntries(readme)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"oryx", "docs", "recipes/a-1", "recipes/a-2", "recipes/b-1", "recipes/b-2"}
	if !slices.Equal(got, want) {
		t.Errorf("layoutEntries = %q, want %q", got, want)
	}
	for _, bad := range []string{"# X\n\nno layout\n", "## Layout\n\nwords but no block\n", "## Layout\n\n```\noryx\n"} {
		if _, err := layoutEntries(bad); err == nil {
			t.Errorf("layoutEntries(%q): no error", bad)
		}
	}
	pkgs, top := packageDirs([]string{"a/b/x.go", "a/b/y_test.go", "a/c.go", "third_party/g/z.go", "a/testdata/t.go",
		"docs/n.md", ".ci/run", "go.mod", "main.go"})
	if want := []string{"a", "a/b"}; !slices.Equal(pkgs, want) {
		t.Errorf("packageDirs: packages %q, want %q", pkgs, want)
	}
	if want := []string{".ci", "a", "docs", "third_party"}; !slices.Equal(top, want) {
		t.Errorf("packageDirs: top-level folders %q, want %q", top, want)
	}
}

// layoutEntries returns the paths the README's layout block names, in order.
func layoutEntries(readme string) ([]string, error) {
	lines := strings.Split(readme, "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) == "## Layout" })
	if start < 0 {
		return nil, fmt.Errorf(`README.md has no "## Layout" section`)
	}
	open := -1
	for i := start + 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "## ") {
			break
		}
		if strings.HasPrefix(lines[i], "```") {
			open = i
			break
		}
	}
	if open < 0 {
		return nil, fmt.Errorf(`README.md's "## Layout" section has no code block`)
	}
	var out []string
	for _, l := range lines[open+1:] {
		if strings.HasPrefix(l, "```") {
			return out, nil
		}
		if l == "" || l[0] == ' ' || l[0] == '\t' {
			continue // a continuation of the line above
		}
		out = append(out, expandBraces(strings.TrimSuffix(strings.Fields(l)[0], "/"))...)
	}
	return nil, fmt.Errorf(`README.md's "## Layout" code block is not closed`)
}

// expandBraces expands each {a,b,...} group of s, left to right ("x/{a,b}-{1,2}" gives four paths).
func expandBraces(s string) []string {
	i := strings.IndexByte(s, '{')
	j := strings.IndexByte(s, '}')
	if i < 0 || j < i {
		return []string{s}
	}
	var out []string
	for _, alt := range strings.Split(s[i+1:j], ",") {
		out = append(out, expandBraces(s[:i]+alt+s[j+1:])...)
	}
	return out
}

// packageDirs returns, sorted, the directories of files that hold .go files (third_party/ and any testdata
// or hidden directory aside) and the top-level folders of files.
func packageDirs(files []string) (packages, topLevel []string) {
	pkgs, tops := map[string]bool{}, map[string]bool{}
	for _, rel := range files {
		dir := path.Dir(rel)
		if dir == "." {
			continue
		}
		tops[strings.SplitN(dir, "/", 2)[0]] = true
		if path.Ext(rel) != ".go" || strings.HasPrefix(rel, "third_party/") {
			continue
		}
		skip := false
		for _, e := range strings.Split(dir, "/") {
			skip = skip || e == "testdata" || strings.HasPrefix(e, ".") || strings.HasPrefix(e, "_")
		}
		if !skip {
			pkgs[dir] = true
		}
	}
	sorted := func(m map[string]bool) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	return sorted(pkgs), sorted(tops)
}

// readRepoFile returns the text of the repository file rel (slash-separated).
func readRepoFile(t *testing.T, rel string) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
