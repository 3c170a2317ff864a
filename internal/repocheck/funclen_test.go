package repocheck

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a production function may be, from its func line to its closing brace: a
// longer one is cut into named steps, each readable on one screen.
const maxFuncLines = 120

// longFuncs returns "file:line: NAME is N lines" for every function or method of the Go source src (file
// name rel) longer than maxFuncLines.
func longFuncs(rel string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		start, end := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
		if n := end - start + 1; n > maxFuncLines {
			name := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) == 1 {
				name = recvName(fd.Recv.List[0].Type) + "." + name
			}
			out = append(out, fmt.Sprintf("%s:%d: %s is %d lines (at most %d: cut it into named steps)", rel, start, name, n, maxFuncLines))
		}
	}
	return out, nil
}

// recvName is a method receiver's type name, without pointer or type parameters.
func recvName(t ast.Expr) string {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "?"
		}
	}
}

// TestNoLongFunctions: no production function (the module's non-test Go files) is longer than maxFuncLines.
func TestNoLongFunctions(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := sourceFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	checkedFiles := 0
	for _, rel := range files {
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree, not yet in the index
		}
		if err != nil {
			t.Fatal(err)
		}
		long, err := longFuncs(rel, src)
		if err != nil {
			t.Fatal(err)
		}
		problems = append(problems, long...)
		checkedFiles++
	}
	if checkedFiles < 100 {
		t.Fatalf("checked %d Go files: the file listing missed the module", checkedFiles)
	}
	if len(problems) > 0 {
		t.Errorf("%d function(s) too long:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

// TestLongFuncsCounts: the check counts from the func line to the closing brace, methods named with their
// receiver, and lets a function of exactly maxFuncLines lines through.
func TestLongFuncsCounts(t *testing.T) {
	body := func(lines int) string { return strings.Repeat("\t_ = 0\n", lines-2) }
	src := "package p\n\ntype T struct{}\n\nfunc ok() {\n" + body(maxFuncLines) + "}\n\nfunc (t *T) long() {\n" + body(maxFuncLines+1) + "}\n"
	got, err := longFuncs("p/p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("p/p.go:%d: T.long is %d lines", 5+maxFuncLines+1, maxFuncLines+1)
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Fatalf("got %q, want one problem starting %q", got, want)
	}
}
