package repocheck

import (
	"fmt"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// maxModuleImports is the most packages of the module one package may import (its production files, every
// build tag counted): a package that needs more does more than one job, and is cut into packages that each
// do one (as the evaluation commands were: evals/evalrun, evals/frontier, evals/probes, ...).
const maxModuleImports = 12

// moduleImports returns, for each package directory of the Go files in srcs (slash-separated paths relative
// to the module root → contents), the packages of module it imports, sorted: the union over its files of
// every build tag, test files and testdata left out, itself not counted.
func moduleImports(module string, srcs map[string][]byte) (map[string][]string, error) {
	out := map[string][]string{}
	fset := token.NewFileSet()
	for rel, src := range srcs {
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || slices.Contains(strings.Split(rel, "/"), "testdata") {
			continue
		}
		f, err := parser.ParseFile(fset, rel, src, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		dir := path.Dir(rel)
		self := module
		if dir != "." {
			self += "/" + dir
		}
		if _, ok := out[dir]; !ok {
			out[dir] = nil
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return nil, fmt.Errorf("%s: import %s: %w", rel, imp.Path.Value, err)
			}
			if (p == module || strings.HasPrefix(p, module+"/")) && p != self && !slices.Contains(out[dir], p) {
				out[dir] = append(out[dir], p)
			}
		}
	}
	for _, imps := range out {
		slices.Sort(imps)
	}
	return out, nil
}

// TestModuleImports pins the counting rule on examples: test files, testdata, other modules and the package
// itself are not counted; a package imported by several files counts once; build-tagged files count.
func TestModuleImports(t *testing.T) {
	const m = "example.com/mod"
	got, err := moduleImports(m, map[string][]byte{
		"a/a.go":            []byte("package a\nimport (\n\t\"example.com/mod/b\"\n\t\"fmt\"\n\t\"example.com/mod/a\"\n)\n"),
		"a/a_xla.go":        []byte("//go:build xla\n\npackage a\nimport \"example.com/mod/c\"\nimport \"example.com/mod/b\"\n"),
		"a/a_test.go":       []byte("package a\nimport \"example.com/mod/d\"\n"),
		"a/testdata/x.go":   []byte("package x\nimport \"example.com/mod/e\"\n"),
		"b/b.go":            []byte("package b\nimport \"example.com/modern\"\n"),
		"main.go":           []byte("package main\nimport _ \"example.com/mod/a\"\n"),
		"docs/notes.md":     []byte("import \"example.com/mod/f\"\n"),
		"c/c.go":            []byte("package c\n"),
		"c/internal/d/d.go": []byte("package d\nimport . \"example.com/mod/c\"\n"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"a": {m + "/b", m + "/c"}, "b": nil, ".": {m + "/a"}, "c": nil, "c/internal/d": {m + "/c"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("moduleImports = %v, want %v", got, want)
	}
}

// TestNoPackageImportsTooManyOfTheModule fails, naming the package and its imports, for every package of the
// repository that imports more than maxModuleImports others of the module.
func TestNoPackageImportsTooManyOfTheModule(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mm := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(gomod)
	if mm == nil {
		t.Fatal("go.mod names no module")
	}
	srcs := map[string][]byte{}
	goFile := func(rel string) bool { return checked(rel) && strings.HasSuffix(rel, ".go") }
	forEachFile(t, goFile, 50, func(rel string, data []byte) { srcs[rel] = data })
	imports, err := moduleImports(string(mm[1]), srcs)
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 30 {
		t.Fatalf("found only %d packages under %s: the file listing is broken", len(imports), root)
	}
	most := 0
	for _, dir := range slices.Sorted(maps.Keys(imports)) {
		imps := imports[dir]
		most = max(most, len(imps))
		if len(imps) > maxModuleImports {
			t.Errorf("%s imports %d packages of the module (at most %d: cut it by job): %s", dir, len(imps), maxModuleImports,
				strings.Join(imps, ", "))
		}
	}
	t.Logf("%d packages; the most module imports of one: %d", len(imports), most)
}
