package contracttest

import (
	"path/filepath"
	"testing"
)

// Every file the spec's §22 names must be there, read from the shared
// folder, not from a copy in the module.
func TestDirHoldsEveryContract(t *testing.T) {
	dir := Dir(t)
	for _, name := range []string{
		"test-vectors.json", "negotiation-vectors.json", "application-event-vectors.json",
		"parser-scenarios-v2.json", "media-session-v2.json", "application-event-v1.json",
	} {
		if len(Read(t, name)) == 0 {
			t.Errorf("%s is empty", name)
		}
	}
	if rel, err := filepath.Rel(filepath.Dir(filepath.Dir(dir)), dir); err != nil || rel != filepath.Join("contracts", "stackchan") {
		t.Fatalf("Dir = %s, want …/shared/contracts/stackchan", dir)
	}
}
