// Package protocols_test checks the rule of the protocols/ folder: pure
// codecs and state machines, no I/O and no goroutines, so that every one of
// them can be fuzzed and tested without a clock, a file or a socket.
package protocols_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
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

// TestReadmeListsEveryPackage: protocols/README.md names each package here
// (as `path`), so the list cannot fall behind the folder again.
func TestReadmeListsEveryPackage(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]bool{}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			if dir := filepath.ToSlash(filepath.Dir(path)); dir != "." {
				pkgs[dir] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages: is the walk rooted at protocols/?", len(pkgs))
	}
	for p := range pkgs {
		if !strings.Contains(string(readme), "`"+p+"`") {
			t.Errorf("protocols/README.md does not name `%s`: add a line saying what it is", p)
		}
	}
}
