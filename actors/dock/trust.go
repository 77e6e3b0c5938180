package dock

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/drivers/serial"
	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
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
	files    statefile.Dir // Path "" keeps acceptances for this run only
	docks    []trustedDock
	thisRun  map[string]bool // accepted here without a file, or a dock with no serial
	refused  map[string]bool // refused until it is unplugged
	pinned   string          // dock.serial
	explicit bool            // dock.port: the operator named the device
}

// Validate bounds the file: a longer list is not one this appliance
// wrote (statefile.DecodeJSON calls it).
func (f trustFile) Validate() error {
	if len(f.Docks) > maxTrusted {
		return fmt.Errorf("%d accepted docks, at most %d", len(f.Docks), maxTrusted)
	}
	return nil
}

// maxTrustFile bounds what is read: maxTrusted entries of a serial and a
// time each.
const maxTrustFile = 64 << 10

// loadTrust reads the data dir's TrustFile. A damaged one is set aside
// (statefile; every dock is asked about again) and reported.
func loadTrust(dataDir string, opts Options, now time.Time) (*trust, error) {
	t := &trust{thisRun: map[string]bool{}, refused: map[string]bool{}, pinned: opts.Serial.Serial, explicit: opts.Port != ""}
	if dataDir == "" {
		return t, nil
	}
	// Later saves stamp a set-aside directory with the clock, this load
	// with the start's now.
	t.files = statefile.Dir{Path: dataDir, Now: opts.Now}
	f, _, dmg := statefile.LoadJSON(statefile.Dir{Path: dataDir, Now: func() time.Time { return now }}, TrustFile, maxTrustFile, trustFile{})
	for _, d := range f.Docks {
		if d.Serial != "" && len(d.Serial) <= maxSerial {
			t.docks = append(t.docks, d)
		}
	}
	if dmg != nil {
		return t, fmt.Errorf("dock: %w: accept the dock again on the Pi's screen", dmg)
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
	if serial == "" || t.files.Path == "" || slices.ContainsFunc(t.docks, func(x trustedDock) bool { return x.Serial == serial }) {
		return nil
	}
	docks := append(slices.Clone(t.docks), trustedDock{Serial: serial, Accepted: now.UTC()})
	if len(docks) > maxTrusted {
		docks = docks[len(docks)-maxTrusted:] // the oldest acceptance goes
	}
	if err := t.files.SaveJSON(TrustFile, trustFile{Docks: docks}, 0o644); err != nil {
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
