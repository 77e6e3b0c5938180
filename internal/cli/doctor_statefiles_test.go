package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
)

// doctor says which kept files the appliance set aside, as WARN lines
// that do not fail the run, each with what it cost and where the copy
// is; with none, one OK line.
func TestDoctorSaysWhatWasSetAside(t *testing.T) {
	root := t.TempDir()
	data := "/var/lib/claude-pi"
	d := doctor{root: root, dataDir: data}
	if err := os.MkdirAll(filepath.Join(root, data, "lan"), 0o755); err != nil {
		t.Fatal(err)
	}
	cs := d.stateFiles()
	if len(cs) != 1 || !cs[0].ok {
		t.Fatalf("nothing set aside: %+v, want one OK line", cs)
	}
	// Damage clients.json the way a power cut would, and let the helper
	// set it aside as the lan service does.
	at := time.Date(2026, 12, 4, 20, 23, 41, 0, time.UTC)
	if err := os.WriteFile(filepath.Join(root, data, "lan", "clients.json"), []byte(`[{"name":`), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := statefile.Dir{Path: filepath.Join(root, data), Now: func() time.Time { return at }}
	if _, _, dmg := statefile.LoadJSON[[]struct{}](dir, "lan/clients.json", 1<<10, nil); dmg == nil {
		t.Fatal("the damaged file was not set aside")
	}
	p, err := boards.Lookup("sim")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if n := printChecks(&out, p, d.stateFiles()); n != 0 {
		t.Errorf("%d failures for a healed file, want WARN only", n)
	}
	for _, want := range []string{
		"WARN set aside  lan/clients.json (truncated) at 2026-12-04 20:23:41 UTC",
		"pair the computers again", "clients.json.damaged-20261204T202341Z-1-truncated, then delete it",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
