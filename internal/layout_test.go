// Package layout_test checks the shape of the module: a root that holds
// only main.go, and imports that point one way, cli -> appliance ->
// actors, boards, drivers -> protocols and supervisor.
package layout_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/claude-pi/claude-pi/"

// layer is a folder's place in the import order: a package may import only
// packages of a lower layer, or its own folder's (actors/ui may import
// actors/approvals). Test files may also import test helpers (*test) and
// any package below the appliance; e2e/ may import anything.
var layer = map[string]int{
	"protocols": 0, "supervisor": 0,
	"drivers": 1,
	"boards":  2,
	"actors":  3,
	// internal/pisystem reads the machine for setup, doctor and the
	// appliance's audio check.
	"internal/pisystem": 3,
	// internal/mcpserver is `claude-pi mcp` on the developer's computer: a
	// LAN client of the Pi, beside the hook's, under the command table.
	"internal/mcpserver": 3,
	"internal/appliance": 4,
	"internal/cli":       5,
	"main":               6,
}

// layerOf is the layer of the package at dir (relative to the root).
func layerOf(dir string) (string, int, bool) {
	if dir == "." {
		return "main", layer["main"], true
	}
	for _, key := range []string{"internal/appliance", "internal/cli", "internal/pisystem", "internal/mcpserver"} {
		if dir == key || strings.HasPrefix(dir, key+"/") {
			return key, layer[key], true
		}
	}
	top, _, _ := strings.Cut(dir, "/")
	l, ok := layer[top]
	return top, l, ok
}

func TestImportsPointOneWay(t *testing.T) {
	root := ".."
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "firmware" || rel == "image" || rel == "packaging" || strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		if dir == "e2e" || strings.HasPrefix(dir, "e2e/") || dir == "internal" {
			return nil // the scenario tests may start anything; this test is here
		}
		from, fromLayer, ok := layerOf(dir)
		if !ok {
			t.Errorf("%s: folder %q has no place in the layout (add it to layer)", rel, dir)
			return nil
		}
		isTest := strings.HasSuffix(path, "_test.go")
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			pkg, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			to, toLayer, ok := layerOf(pkg)
			switch {
			case !ok:
				t.Errorf("%s imports %s, which has no place in the layout", rel, p)
			case isTest && strings.HasSuffix(pkg, "test"):
				// a test helper, such as appliancetest or supervisortest
			case to == from:
			case isTest && toLayer < layer["internal/appliance"]:
				// A test may drive a sibling's real actor (a driver's test
				// the ble actor, say); only the program's own layers stay
				// out of reach.
			case toLayer >= fromLayer:
				t.Errorf("%s (%s) imports %s (%s): imports point down only (cli -> appliance -> actors, boards, drivers -> protocols, supervisor)", rel, from, p, to)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d Go files; is the walk rooted at the module?", checked)
	}
}

// TestRootHoldsOnlyMain: the root is main.go and no test files; the
// commands are in internal/cli, the appliance in internal/appliance, the
// scenario tests in e2e/.
func TestRootHoldsOnlyMain(t *testing.T) {
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") && e.Name() != "main.go" {
			t.Errorf("the root holds %s: only main.go belongs there (commands in internal/cli, the appliance in internal/appliance, scenario tests in e2e/)", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join("..", "main.go")); err != nil {
		t.Error(err)
	}
}
