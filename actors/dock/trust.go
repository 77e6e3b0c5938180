package dock

import (
	"fmt"
	"slices"
	"strconv"
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

// maxShownSerial bounds a serial number as the Pi's screen draws it
// (shownSerial). Trust compares the whole serial, so a dock is only ever
// asked about when all of it fits on the screen: a longer one (no real
// board has one) can still be named in dock.serial.
const maxShownSerial = 64

// maxTrusted bounds the file: a dock accepted is one plugged in and
// accepted on the Pi's screen, so this many is far beyond any desk.
const maxTrusted = 64

// maxShownName bounds a USB product or manufacturer string as shown.
const maxShownName = 40

// AcceptDock and RefuseDock are the Pi screen's answer to "New dock
// <serial>" (ui -> dock). Serial must be State.NewDock's: a press meant for
// one dock never accepts another plugged in since.
type (
	AcceptDock struct{ Serial string }
	RefuseDock struct{ Serial string }
)

// trustedDock is one accepted dock in TrustFile. Product and
// Manufacturer are its USB strings when it was accepted: a serial number
// can be copied, so a known serial that comes back under other strings is
// asked about again. Both empty: accepted before they were recorded; the
// first time it is opened they are filled in.
type trustedDock struct {
	Serial       string    `json:"serial"`
	Product      string    `json:"product,omitempty"`
	Manufacturer string    `json:"manufacturer,omitempty"`
	Accepted     time.Time `json:"accepted"`
}

// looks is how a dock presents itself beside its serial number.
type looks struct{ Product, Manufacturer string }

func looksOf(d serial.Plugged) looks { return looks{d.Product, d.Manufacturer} }

func (d trustedDock) looks() looks { return looks{d.Product, d.Manufacturer} }

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
	thisRun  map[identity]bool // accepted here without a file, or a dock with no serial
	refused  map[string]bool   // refused until it is unplugged
	pinned   string            // dock.serial
	explicit bool              // dock.port: the operator named the device
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
	t := &trust{thisRun: map[identity]bool{}, refused: map[string]bool{}, pinned: opts.Serial.Serial, explicit: opts.Port != ""}
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

// identity is what a dock accepted for this run only is known by.
type identity struct {
	serial string
	looks  looks
}

// trustVerdict is what trust makes of a plugged dock.
type trustVerdict uint8

const (
	unknown    trustVerdict = iota // never accepted: ask
	known                          // accepted: open it
	different                      // its serial was accepted under other USB strings: ask again
	unshowable                     // its serial does not fit on the screen: never asked
)

// check judges the plugged dock d. For a different one it also returns
// how the dock looked when it was accepted.
func (t *trust) check(d serial.Plugged) (trustVerdict, looks) {
	switch {
	case t.explicit:
		return known, looks{}
	case t.pinned != "" && d.Serial == t.pinned:
		// The operator named it in the configuration.
		return known, looks{}
	case t.thisRun[identity{d.Serial, looksOf(d)}]:
		return known, looks{}
	}
	if d.Serial != "" {
		if i := slices.IndexFunc(t.docks, func(x trustedDock) bool { return x.Serial == d.Serial }); i >= 0 {
			rec := t.docks[i]
			if rec.looks() == (looks{}) || rec.looks() == looksOf(d) {
				return known, looks{}
			}
			return different, rec.looks()
		}
	}
	if len(d.Serial) > maxSerial || len(shownSerial(d.Serial)) > maxShownSerial {
		return unshowable, looks{}
	}
	return unknown, looks{}
}

// trusted reports whether the dock d may be opened.
func (t *trust) trusted(d serial.Plugged) bool {
	v, _ := t.check(d)
	return v == known
}

// accept remembers d as it looks now; a dock without a serial number is
// accepted until unplugged. A record from before the USB strings were
// kept is filled in.
func (t *trust) accept(d serial.Plugged, now time.Time) error {
	delete(t.refused, d.Serial)
	t.thisRun[identity{d.Serial, looksOf(d)}] = true
	if d.Serial == "" || t.files.Path == "" || len(d.Serial) > maxSerial {
		return nil
	}
	docks := slices.Clone(t.docks)
	rec := trustedDock{Serial: d.Serial, Product: d.Product, Manufacturer: d.Manufacturer, Accepted: now.UTC()}
	if i := slices.IndexFunc(docks, func(x trustedDock) bool { return x.Serial == d.Serial }); i >= 0 {
		if docks[i].looks() == looksOf(d) {
			return nil
		}
		docks = slices.Delete(docks, i, i+1)
	}
	docks = append(docks, rec)
	if len(docks) > maxTrusted {
		docks = docks[len(docks)-maxTrusted:] // the oldest acceptance goes
	}
	if err := t.files.SaveJSON(TrustFile, trustFile{Docks: docks}, 0o644); err != nil {
		return fmt.Errorf("dock: remembering the accepted dock (it is accepted until the appliance restarts): %w", err)
	}
	t.docks = docks
	return nil
}

// recordLooks fills in the USB strings of an accepted dock whose record
// has none (accepted before they were kept), so a lookalike is caught
// from now on. It changes nothing for any other dock.
func (t *trust) recordLooks(d serial.Plugged, now time.Time) error {
	i := slices.IndexFunc(t.docks, func(x trustedDock) bool { return x.Serial == d.Serial })
	if i < 0 || t.docks[i].looks() != (looks{}) || looksOf(d) == (looks{}) {
		return nil
	}
	return t.accept(d, now)
}

// unplugged forgets what held only while the dock stayed plugged in.
func (t *trust) unplugged(d serial.Plugged) {
	delete(t.refused, d.Serial)
	if d.Serial == "" {
		delete(t.thisRun, identity{"", looksOf(d)})
	}
}

// shownSerial is a serial number as the Pi's screen draws it, whole, so
// that what the person reads is what trust compares: printable ASCII as
// it is, anything else escaped (Go's quoting, without the quotes), so two
// serials that differ never look the same. The number comes from the
// device, which may be hostile.
func shownSerial(s string) string {
	if s == "" {
		return "(no serial number)"
	}
	if len(s) > maxSerial {
		s = s[:maxSerial] // check refuses it anyway; bound the work
	}
	q := strconv.QuoteToASCII(s)
	return q[1 : len(q)-1]
}

// shownLooks is a dock's USB strings as the screen shows them, e.g.
// "USB JTAG/serial debug unit" by "Espressif"; "" when it has none.
func shownLooks(l looks) string {
	name := func(s string) string {
		var b strings.Builder
		for i, r := range s {
			if i >= maxShownName {
				b.WriteString("…")
				break
			}
			if r < ' ' || r > '~' {
				r = '?'
			}
			b.WriteRune(r)
		}
		return "\"" + b.String() + "\""
	}
	switch {
	case l == looks{}:
		return "no USB names"
	case l.Manufacturer == "":
		return name(l.Product)
	case l.Product == "":
		return "by " + name(l.Manufacturer)
	}
	return name(l.Product) + " by " + name(l.Manufacturer)
}
