// Package prefs is the screen's settings page state that survives a
// restart: sound, brightness and the screen timeout, kept in ui.json in
// the data directory and replaced atomically (drivers/storage/statefile),
// so a power cut leaves the old settings or the new, never half a file.
//
// The character is not here: the buddy service keeps the species with
// the owner and the name (buddy.json), because the desktop's species
// command chooses it too.
package prefs

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
)

// File is the settings file's name in the data directory.
const File = "ui.json"

// FormatVersion is the "v" this package writes and reads.
const FormatVersion = 1

// maxFile bounds what Load reads: the file is a few dozen bytes.
const maxFile = 4 << 10

// Brightnesses are the backlight levels the page offers, in percent.
var Brightnesses = []int{25, 50, 75, 100}

// Timeouts are the screen timeouts the page offers; Never keeps the
// screen on.
var Timeouts = []time.Duration{15 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, Never}

// Never is the timeout that never turns the screen off.
const Never time.Duration = -1

// Prefs is the persisted form. The zero value is the defaults: sound on,
// full brightness, the configured timeout.
type Prefs struct {
	Version int  `json:"v"`
	Mute    bool `json:"mute,omitempty"` // no chimes
	// Brightness is one of Brightnesses, 0 meaning 100.
	Brightness int `json:"brightness,omitempty"`
	// TimeoutSec is the screen timeout in seconds, one of Timeouts; 0 is
	// the configured default ([ui] screen_timeout), -1 Never.
	TimeoutSec int `json:"screen_off_s,omitempty"`
}

// Percent is the brightness in percent.
func (p Prefs) Percent() int {
	if p.Brightness == 0 {
		return 100
	}
	return p.Brightness
}

// Timeout is the screen timeout, def when none was chosen.
func (p Prefs) Timeout(def time.Duration) time.Duration {
	switch {
	case p.TimeoutSec == 0:
		return def
	case p.TimeoutSec < 0:
		return Never
	}
	return time.Duration(p.TimeoutSec) * time.Second
}

// NextBrightness is p with the brightness after the current one, round.
func (p Prefs) NextBrightness() Prefs {
	i := slices.Index(Brightnesses, p.Percent())
	p.Brightness = Brightnesses[(i+1)%len(Brightnesses)]
	return p
}

// NextTimeout is p with the first offered timeout longer than the
// current one (Never after the longest, then round to the shortest).
// A configured default between two offers steps to the next one up.
func (p Prefs) NextTimeout(def time.Duration) Prefs {
	cur := p.Timeout(def)
	next := Timeouts[0]
	if cur != Never {
		for _, t := range Timeouts {
			if t == Never || t > cur {
				next = t
				break
			}
		}
	}
	p.TimeoutSec = int(next / time.Second)
	if next == Never {
		p.TimeoutSec = -1
	}
	return p
}

// Validate reports the first value the page could not have written.
func (p Prefs) Validate() error {
	switch {
	case p.Version != FormatVersion:
		return fmt.Errorf("prefs: version %d, want %d", p.Version, FormatVersion)
	case p.Brightness != 0 && !slices.Contains(Brightnesses, p.Brightness):
		return fmt.Errorf("prefs: brightness %d%%, want one of %v", p.Brightness, Brightnesses)
	case p.TimeoutSec > 0 && !slices.Contains(Timeouts, time.Duration(p.TimeoutSec)*time.Second):
		return fmt.Errorf("prefs: screen_off_s %d, want 0 (the configured timeout), -1 (never) or one of %v", p.TimeoutSec, Timeouts[:len(Timeouts)-1])
	case p.TimeoutSec < -1:
		return fmt.Errorf("prefs: screen_off_s %d, want -1 for never", p.TimeoutSec)
	}
	return nil
}

// Encode is the file's content, one JSON line.
func (p Prefs) Encode() ([]byte, error) {
	p.Version = FormatVersion
	if err := p.Validate(); err != nil {
		return nil, err
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("prefs: encoding: %v", err)
	}
	return append(b, '\n'), nil
}

// Decode parses the file strictly (statefile.DecodeJSON): unknown
// fields, values out of range and anything after the object are errors,
// so a foreign or damaged file is set aside rather than half applied.
func Decode(data []byte) (Prefs, error) {
	var p Prefs
	if err := statefile.DecodeJSON(data, &p); err != nil {
		return Prefs{}, fmt.Errorf("prefs: %w", err)
	}
	return p, nil
}

// Defaults is the zero Prefs with the version set.
func Defaults() Prefs { return Prefs{Version: FormatVersion} }

// Load reads ui.json from the data directory: Defaults when it does not
// exist; a damaged file is set aside (statefile) and Defaults returned
// with the Damage, so the screen works either way.
func Load(dir statefile.Dir) (Prefs, *statefile.Damage) {
	p, _, dmg := statefile.LoadJSON(dir, File, maxFile, Defaults())
	return p, dmg
}

// Save replaces ui.json with p atomically.
func Save(dir statefile.Dir, p Prefs) error {
	b, err := p.Encode()
	if err != nil {
		return err
	}
	return dir.Save(File, b, 0o644)
}
