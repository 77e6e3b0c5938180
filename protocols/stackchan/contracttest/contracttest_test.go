package contracttest

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// Every file the spec's §22 names is vendored with its provenance, and the
// folder holds nothing else.
func TestVendoredEveryContract(t *testing.T) {
	src := ReadSource(t)
	hexRE := regexp.MustCompile(`^[0-9a-f]{40}$`)
	if src.Upstream == "" || src.License == "" || !hexRE.MatchString(src.Dock.Revision) {
		t.Errorf("VENDOR_SOURCE.json lacks its upstream, licence or Dock revision: %+v", src)
	}
	for _, name := range Files {
		f := src.Files["stackchan/"+name]
		if f.Path == "" || !hexRE.MatchString(f.Revision) || len(f.SHA256) != 64 {
			t.Errorf("%s: provenance %+v lacks a path, a commit or a SHA-256", name, f)
		}
		if len(Read(t, name)) == 0 { // Read checks the hash
			t.Errorf("%s is empty", name)
		}
	}
	entries, err := os.ReadDir(Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !slices.Contains(Files, e.Name()) {
			t.Errorf("%s is vendored but no contract: remove it or name it in Files and VENDOR_SOURCE.json", e.Name())
		}
	}
	if len(src.Files) != len(Files) {
		t.Errorf("VENDOR_SOURCE.json names %d files, want the %d contracts", len(src.Files), len(Files))
	}
}

// The vendored copies are the team's shared ones, byte for byte, wherever
// ../shared is checked out beside the repository.
func TestVendoredMatchesShared(t *testing.T) {
	shared := SharedDir(t)
	if shared == "" {
		t.Skip("no ../shared/contracts/stackchan beside the repository: nothing to compare the vendored copies with")
	}
	for _, name := range Files {
		want, err := os.ReadFile(filepath.Join(shared, name))
		if err != nil {
			t.Errorf("shared: %v", err)
			continue
		}
		if got := Read(t, name); !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s: copy the shared file over the vendored one, byte for byte, and update its sha256 in VENDOR_SOURCE.json",
				name, filepath.Join(shared, name))
		}
	}
}
