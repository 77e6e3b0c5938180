// Package contracttest finds the Stack-chan dock contract vectors for tests.
//
// It reads files and imports testing, so it is a test helper in the manner
// of net/http/httptest: only _test.go files import it, and no codec in
// protocols/ does I/O (protocols/layout_test.go checks both).
//
// The vectors are vendored in testdata/stackchan, byte for byte, the way
// upstream vendors the Dock's copies: testdata/VENDOR_SOURCE.json names the
// upstream repository, path and commit of each file and its SHA-256. Read
// checks the hash on every load, so a hand edit fails the test that made
// it; this package's own test checks that the copies equal the team's
// ../shared/contracts/stackchan wherever that folder exists.
package contracttest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Files are the six contract files the dock spec's §22 names.
var Files = []string{
	"test-vectors.json", "negotiation-vectors.json", "application-event-vectors.json",
	"parser-scenarios-v2.json", "media-session-v2.json", "application-event-v1.json",
}

// Source is testdata/VENDOR_SOURCE.json: where each vendored file came from.
type Source struct {
	Upstream string `json:"upstream"`
	License  string `json:"license"`
	Dock     struct {
		Upstream string `json:"upstream"`
		Revision string `json:"revision"`
		License  string `json:"license"`
	} `json:"dock"`
	// Files is keyed by the path under testdata/, e.g.
	// "stackchan/test-vectors.json".
	Files map[string]struct {
		Path     string `json:"path"`     // in Upstream
		Revision string `json:"revision"` // Upstream's commit
		SHA256   string `json:"sha256"`
		// VendoredFrom is "dock" when Upstream's file is itself its pinned
		// copy of the Dock repository's at Dock.Revision.
		VendoredFrom string `json:"vendoredFrom,omitempty"`
	} `json:"files"`
}

// root is the module root, found by walking up from the test's working
// directory (its package directory) to go.mod.
func root(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("contracttest: no go.mod above the test directory")
		}
		dir = parent
	}
}

func testdata(t testing.TB) string {
	return filepath.Join(root(t), "protocols", "stackchan", "contracttest", "testdata")
}

// Dir returns the absolute path of the vendored contract folder.
func Dir(t testing.TB) string {
	t.Helper()
	return filepath.Join(testdata(t), "stackchan")
}

// SharedDir is the team's ../shared/contracts/stackchan beside the
// repository, or "" where there is none (any clone but the team's).
func SharedDir(t testing.TB) string {
	t.Helper()
	d := filepath.Join(root(t), "..", "shared", "contracts", "stackchan")
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		return ""
	}
	return d
}

// ReadSource returns VENDOR_SOURCE.json.
func ReadSource(t testing.TB) Source {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata(t), "VENDOR_SOURCE.json"))
	if err != nil {
		t.Fatalf("contracttest: %v", err)
	}
	var s Source
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("contracttest: VENDOR_SOURCE.json: %v", err)
	}
	return s
}

// Read returns one vendored contract file, e.g. "test-vectors.json", after
// checking it against the SHA-256 that VENDOR_SOURCE.json pins.
func Read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Dir(t), name))
	if err != nil {
		t.Fatalf("contracttest: %v", err)
	}
	f, ok := ReadSource(t).Files["stackchan/"+name]
	if !ok {
		t.Fatalf("contracttest: %s is not in VENDOR_SOURCE.json", name)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != f.SHA256 {
		t.Fatalf("contracttest: %s has SHA-256 %x, VENDOR_SOURCE.json pins %s: the vendored copies are never edited; replace the file with upstream's (%s at %s)",
			name, sum, f.SHA256, f.Path, f.Revision)
	}
	return b
}
