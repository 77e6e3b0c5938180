package dock

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/drivers/serial"
	"github.com/claude-pi/claude-pi/drivers/storage"
)

// TrustFile is where accepted docks are remembered, in the data dir.
const TrustFile = "docks.json"

// maxSerial bounds a USB serial number kept or shown. A USB string
// descriptor holds at most 126 UTF-16 units; a CoreS3's is its MAC, 17.
const maxSerial = 126

// maxTrusted bounds the file: a dock accepted is one plugged in and
// accepted on the Pi's screen, so this many is far beyond any desk.
const maxTrusted = 64

// AcceptDock and RefuseDock are the Pi screen's answer to "New dock
// <serial>" (ui -> dock). Serial must be State.NewDock's: a press meant for
// one dock never accepts another plugged in since.
type (
	AcceptDock struct{ Serial string }
	RefuseDock struct{ Serial string }
)

// trustedDock is one accepted dock in TrustFile.
type trustedDock struct {
	Serial   string    `json:"serial"`
	Accepted time.Time `json:"accepted"`
}

type trustFile struct {
	Docks []trustedDock `json:"docks"`
}

// trust decides which plugged CoreS3 the dock may talk to. Every ESP32-S3
// reports 303a:1001, so the ids say nothing about whose board it is: a dock
// found by discovery is accepted once on the Pi's screen and remembered by
// its USB serial number. Until then the port stays closed, so it gets no
// prompt, no speech and no say in any decision. Naming the dock in the
// configuration (dock.port, dock.serial) is accepting it.
type trust struct {
	path     string // "" keeps acceptances for this run only
	docks    []trustedDock
	thisRun  map[string]bool // accepted here without a file, or a dock with no serial
	refused  map[string]bool // refused until it is unplugged
	pinned   string          // dock.serial
	explicit bool            // dock.port: the operator named the device
}

// loadTrust reads the data dir's TrustFile. A file that cannot be decoded
// is set aside (every dock is asked about again) and reported.
func loadTrust(dataDir string, opts Options, now time.Time) (*trust, error) {
	t := &trust{thisRun: map[string]bool{}, refused: map[string]bool{}, pinned: opts.Serial.Serial, explicit: opts.Port != ""}
	if dataDir == "" {
		return t, nil
	}
	t.path = filepath.Join(dataDir, TrustFile)
	_ = storage.RemoveTemps(t.path)
	b, err := os.ReadFile(t.path)
	if errors.Is(err, os.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, fmt.Errorf("dock: reading %s: %w", t.path, err)
	}
	var f trustFile
	if err := json.Unmarshal(b, &f); err != nil || len(f.Docks) > maxTrusted {
		aside, aerr := storage.SetAside(t.path, now)
		return t, fmt.Errorf("dock: %s is not a list of accepted docks (set aside as %s, %v): accept the dock again on the Pi's screen", t.path, aside, errors.Join(err, aerr))
	}
	for _, d := range f.Docks {
		if d.Serial != "" && len(d.Serial) <= maxSerial {
			t.docks = append(t.docks, d)
		}
	}
	return t, nil
}

// trusted reports whether the dock d may be opened.
func (t *trust) trusted(d serial.Plugged) bool {
	switch {
	case t.explicit:
		return true
	case t.pinned != "" && d.Serial == t.pinned:
		return true
	case t.thisRun[d.Serial]:
		return true
	}
	return d.Serial != "" && slices.ContainsFunc(t.docks, func(x trustedDock) bool { return x.Serial == d.Serial })
}

// accept remembers serial; a dock without one is accepted until unplugged.
func (t *trust) accept(serial string, now time.Time) error {
	delete(t.refused, serial)
	t.thisRun[serial] = true
	if serial == "" || t.path == "" || slices.ContainsFunc(t.docks, func(x trustedDock) bool { return x.Serial == serial }) {
		return nil
	}
	docks := append(slices.Clone(t.docks), trustedDock{Serial: serial, Accepted: now.UTC()})
	if len(docks) > maxTrusted {
		docks = docks[len(docks)-maxTrusted:] // the oldest acceptance goes
	}
	b, err := json.MarshalIndent(trustFile{Docks: docks}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o755); err != nil {
		return fmt.Errorf("dock: remembering the accepted dock: %w", err)
	}
	if err := storage.WriteFile(t.path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("dock: remembering the accepted dock (it is accepted until the appliance restarts): %w", err)
	}
	t.docks = docks
	return nil
}

// unplugged forgets what held only while the dock stayed plugged in.
func (t *trust) unplugged(serial string) {
	delete(t.refused, serial)
	if serial == "" {
		delete(t.thisRun, "")
	}
}

// shownSerial is a serial number as the Pi's screen may draw it: printable
// ASCII only (anything else becomes '?'), at most 32 characters. The
// number comes from the device, which may be hostile.
func shownSerial(s string) string {
	if s == "" {
		return "(no serial number)"
	}
	var b strings.Builder
	for i, r := range s {
		if i >= 32 {
			b.WriteString("…")
			break
		}
		if r < ' ' || r > '~' {
			r = '?'
		}
		b.WriteRune(r)
	}
	return b.String()
}
