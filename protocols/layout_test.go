// Package protocols_test checks the rule of the protocols/ folder: pure
// codecs and state machines, no I/O and no goroutines, so that every one of
// them can be fuzzed and tested without a clock, a file or a socket.
package protocols_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ioImports are the standard packages that reach outside the process or
// start work of their own. A codec needs none of them.
var ioImports = map[string]bool{
	"os": true, "os/exec": true, "os/signal": true, "net": true, "net/http": true,
	"io/ioutil": true, "syscall": true, "testing": true, "log": true, "log/slog": true,
	"path/filepath": true,
}

// isTestHelper reports whether a package path is a test helper (named
// like net/http/httptest), which may read files but only tests import.
func isTestHelper(importPath string) bool {
	return strings.HasSuffix(importPath, "test")
}

func TestProtocolsHoldNoIO(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if isTestHelper(filepath.Base(filepath.Dir(path))) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if ioImports[p] {
				t.Errorf("%s imports %q: protocols/ holds no I/O; move the I/O to drivers/ or a *test helper", path, p)
			}
			if isTestHelper(p) {
				t.Errorf("%s imports the test helper %q outside a _test.go file", path, p)
			}
		}
		full, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(full, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				t.Errorf("%s: a go statement: protocols/ starts no goroutines", fset.Position(g.Pos()))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("checked only %d files: is the walk rooted at protocols/?", checked)
	}
}
