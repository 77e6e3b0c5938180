// Package layout_test checks the shape of the module: a root that holds
// only main.go, and imports that point one way, cli -> appliance ->
// actors, boards, drivers -> protocols and supervisor.
package layout_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
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
	// internal/client is a computer's state and its way to a paired Pi,
	// internal/clientcli the commands the computer-side binary has
	// (cmd/claude-pi): below the appliance, which neither may import.
	"internal/client":    2,
	"internal/clientcli": 4,
	"internal/appliance": 4,
	"internal/cli":       5,
	"main":               6,
	// cmd/claude-pi is the computer's main: a top layer like the root's,
	// kept off the appliance by its imports' layers and TestDeps.
	"cmd": 6,
}

// layerOf is the layer of the package at dir (relative to the root).
func layerOf(dir string) (string, int, bool) {
	if dir == "." {
		return "main", layer["main"], true
	}
	for _, key := range []string{"internal/appliance", "internal/clientcli", "internal/client", "internal/cli", "internal/pisystem", "internal/mcpserver"} {
		if dir == key || strings.HasPrefix(dir, key+"/") {
			return key, layer[key], true
		}
	}
	top, _, _ := strings.Cut(dir, "/")
	l, ok := layer[top]
	return top, l, ok
}

// goFiles parses the imports of every Go file of the module (firmware/,
// image/, packaging/ and testdata left out) and hands each to fn with its
// path relative to the root.
func goFiles(t *testing.T, fn func(rel string, f *ast.File)) {
	t.Helper()
	root := ".."
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, file)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "firmware" || rel == "image" || rel == "packaging" || strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(file, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		fn(rel, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d Go files; is the walk rooted at the module?", checked)
	}
}

func TestImportsPointOneWay(t *testing.T) {
	goFiles(t, func(rel string, f *ast.File) {
		dir := path.Dir(rel)
		if dir == "e2e" || strings.HasPrefix(dir, "e2e/") || dir == "internal" {
			return // the scenario tests may start anything; this test is here
		}
		from, fromLayer, ok := layerOf(dir)
		if !ok {
			t.Errorf("%s: folder %q has no place in the layout (add it to layer)", rel, dir)
			return
		}
		isTest := strings.HasSuffix(rel, "_test.go")
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
	})
}

// importUse is one file's import of one package, under the name the file
// uses for it ("" for no alias: the package's own name).
type importUse struct{ file, path, name string }

// nameClashes lists each package imported under more than one name, with
// the files behind each name. A package's own folder (its external tests,
// its examples) and blank or dot imports do not count.
func nameClashes(uses []importUse) []string {
	names := map[string]map[string][]string{}
	for _, u := range uses {
		if u.name == "_" || u.name == "." || path.Dir(u.file) == strings.TrimPrefix(u.path, module) {
			continue
		}
		name := u.name
		if name == "" || name == path.Base(u.path) {
			name = path.Base(u.path) + " (no alias)"
		}
		if names[u.path] == nil {
			names[u.path] = map[string][]string{}
		}
		names[u.path][name] = append(names[u.path][name], u.file)
	}
	var clashes []string
	for p, byName := range names {
		if len(byName) < 2 {
			continue
		}
		var parts []string
		for name, files := range byName {
			parts = append(parts, fmt.Sprintf("%s in %s", name, strings.Join(files, ", ")))
		}
		sort.Strings(parts)
		clashes = append(clashes, fmt.Sprintf("%s is imported as %s", p, strings.Join(parts, "; ")))
	}
	sort.Strings(clashes)
	return clashes
}

// TestOneNamePerImport: a package reads the same in every file, so
// grep finds every use (drivers/ble is drv, actors/ble bleactor,
// actors/buddy buddyactor, protocols/buddy pbuddy).
func TestOneNamePerImport(t *testing.T) {
	var uses []importUse
	goFiles(t, func(rel string, f *ast.File) {
		for _, imp := range f.Imports {
			u := importUse{file: rel}
			u.path, _ = strconv.Unquote(imp.Path.Value)
			if imp.Name != nil {
				u.name = imp.Name.Name
			}
			uses = append(uses, u)
		}
	})
	for _, c := range nameClashes(uses) {
		t.Errorf("%s: pick one name", c)
	}
}

func TestNameClashes(t *testing.T) {
	const pb = module + "protocols/buddy"
	tests := []struct {
		name string
		uses []importUse
		want int
	}{
		{"one alias", []importUse{{"a/x.go", pb, "pbuddy"}, {"b/y.go", pb, "pbuddy"}}, 0},
		{"alias and bare", []importUse{{"a/x.go", pb, "pbuddy"}, {"b/y.go", pb, ""}}, 1},
		{"two aliases", []importUse{{"a/x.go", pb, "pbuddy"}, {"b/y.go", pb, "pb"}}, 1},
		{"alias equal to the name is no alias", []importUse{{"a/x.go", pb, "buddy"}, {"b/y.go", pb, ""}}, 0},
		{"own folder's tests", []importUse{{"a/x.go", pb, "pbuddy"}, {"protocols/buddy/example_test.go", pb, ""}}, 0},
		{"blank import", []importUse{{"a/x.go", "image/jpeg", ""}, {"b/y_test.go", "image/jpeg", "_"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nameClashes(tt.uses); len(got) != tt.want {
				t.Errorf("nameClashes = %q, want %d clashes", got, tt.want)
			}
		})
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

// TestClientNeverReachesTheAppliance: the computer's side (internal/client,
// internal/clientcli, cmd/) imports nothing of the appliance, tests
// included, so that the computer's claude-pi builds without it. Layers
// already keep internal/client and internal/clientcli below it; this names
// the rule, and covers cmd/, whose layer alone would allow it.
func TestClientNeverReachesTheAppliance(t *testing.T) {
	goFiles(t, func(rel string, f *ast.File) {
		dir := path.Dir(rel)
		if !strings.HasPrefix(dir+"/", "internal/client/") && !strings.HasPrefix(dir+"/", "internal/clientcli/") && !strings.HasPrefix(dir, "cmd/") {
			return
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			pkg, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			for _, banned := range []string{"actors/", "boards/", "internal/appliance/", "internal/cli/", "supervisor/"} {
				if strings.HasPrefix(pkg+"/", banned) && !(strings.HasSuffix(rel, "_test.go") && pkg == "internal/cli/clitest") {
					t.Errorf("%s imports %s: the computer's side must not reach the appliance (%s)", rel, p, banned)
				}
			}
		}
	})
}

// narrowRule forbids one folder (and those under it) an import the layers
// alone would allow: a part that must not learn another's vocabulary.
type narrowRule struct {
	from, to string // folders relative to the root; to covers those under it
	why      string
}

var narrowRules = []narrowRule{
	{"actors/approvals", "protocols", "approvals speaks its own language (approvals.Decision); each codec translates at its own edge"},
	{"actors/lan", "protocols/buddy", "the lan never touches BLE; it translates approvals.Decision to the hook's behavior"},
	{"protocols/hookbridge", "protocols/buddy", "the hook's codec needs nothing of the BLE one"},
	{"boards/sim", "internal/appliance/webapi", "the sim board is only a board: the /api/state schema and its server live in internal/appliance/webapi"},
	{"boards/sim", "protocols", "the sim board is only a board: the fake Claude desktop lives in internal/appliance/appliancetest/fakedesktop"},
	{"actors/dock/voice", "actors/dock", "voice is below the dock: it reaches the host only through voice.Sink, which the host implements"},
}

// under reports whether dir is folder or below it.
func under(dir, folder string) bool { return dir == folder || strings.HasPrefix(dir, folder+"/") }

// TestNarrowRules: each rule of narrowRules holds for the program's files;
// a test may import the other vocabulary to check a translation against it.
func TestNarrowRules(t *testing.T) {
	goFiles(t, func(rel string, f *ast.File) {
		dir := path.Dir(rel)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			pkg, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			for _, r := range narrowRules {
				if under(dir, r.from) && under(pkg, r.to) && !strings.HasSuffix(rel, "_test.go") {
					t.Errorf("%s imports %s: %s", rel, p, r.why)
				}
			}
		}
	})
}
