package repocheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
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
	prod := func(rel string) bool {
		return checked(rel) && strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")
	}
	var problems []string
	forEachFile(t, prod, 100, func(rel string, src []byte) {
		long, err := longFuncs(rel, src)
		if err != nil {
			t.Fatal(err)
		}
		problems = append(problems, long...)
	})
	if len(problems) > 0 {
		t.Errorf("%d function(s) too long:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}
