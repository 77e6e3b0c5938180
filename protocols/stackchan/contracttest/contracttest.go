// Package contracttest finds the Stack-chan dock contract vectors for tests.
//
// It reads files and imports testing, so it is a test helper in the manner
// of net/http/httptest: only _test.go files import it, and no codec in
// protocols/ does I/O (protocols/layout_test.go checks both).
//
// The vectors live outside this module, in ../shared/contracts/stackchan
// next to the repository, and are never copied in: a copy would drift from
// upstream unnoticed. A missing folder fails the test loudly, because
// silently skipping the contract would hide a broken checkout.
package contracttest

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the absolute path of the contract folder, found by walking up
// from the test's working directory to the one holding go.mod.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("contracts: no go.mod above the test directory")
		}
		dir = parent
	}
	c := filepath.Join(dir, "..", "shared", "contracts", "stackchan")
	if fi, err := os.Stat(c); err != nil || !fi.IsDir() {
		t.Fatalf("contracts: the Stack-chan contract vectors are missing at %s (check out ../shared beside the repository): %v", c, err)
	}
	return c
}

// Read returns one contract file, e.g. "test-vectors.json".
func Read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Dir(t), name))
	if err != nil {
		t.Fatalf("contracts: %v", err)
	}
	return b
}
