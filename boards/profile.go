package boards

import (
	"fmt"
	"slices"
	"strings"

	"github.com/claude-pi/claude-pi/drivers/display/st7789"
)

// Role is what a button does in the UI. The UI maps roles, never button
// names, so each board can put approve and deny where the thumb finds them.
type Role string

// The roles every board must provide, and RoleNone for buttons the UI does
// not use yet (they are still listed so their pins are documented and
// never reused).
const (
	RoleApprove Role = "approve" // answers the pending prompt with "once"
	RoleDeny    Role = "deny"    // answers the pending prompt with "deny"
	RoleNext    Role = "next"    // next screen or page
	RoleBack    Role = "back"    // previous screen, or home
	RoleNone    Role = ""
)

// Roles lists the roles every board must map to a button.
var Roles = []Role{RoleApprove, RoleDeny, RoleNext, RoleBack}

// Button is one push button wired from a GPIO to ground.
type Button struct {
	Name string // printed on the board, e.g. "A" or "KEY1"
	Pin  string // periph name, e.g. "GPIO5"
	Role Role
}

// Display is an ST7789 panel on SPI.
type Display struct {
	Bus, CS int // /dev/spidevBUS.CS
	// DC is required. RST and Backlight are "" when not wired.
	DC, RST, Backlight string
	Opts               st7789.Opts
}

// Device is the spidev node the panel is on.
func (d *Display) Device() string { return fmt.Sprintf("/dev/spidev%d.%d", d.Bus, d.CS) }

// Audio is the board's sound output.
type Audio struct {
	// Device is the ALSA PCM name for aplay -D.
	Device string
	// Card is the card id as /proc/asound/cards lists it; doctor looks
	// for it. "" means any card will do.
	Card string
	// Amp is the GPIO that enables the amplifier or un-mutes the DAC
	// (active high); "" when there is none.
	Amp string
}

// LED is an RGB LED, one GPIO per colour.
type LED struct {
	R, G, B   string
	ActiveLow bool // the pin sinks the LED's current: Low is on
}

// Profile is everything the appliance needs to know about one board.
type Profile struct {
	Name  string // as given to --board
	Title string // for humans
	// Simulated boards have no GPIO or SPI: boards/sim provides the
	// display and buttons, and Open refuses them.
	Simulated bool
	// Width and Height are the picture the UI renders, after rotation.
	Width, Height int
	Display       *Display // nil when simulated
	Buttons       []Button
	Audio         *Audio // nil: use the Pi's default ALSA device, if any
	LED           *LED   // nil: no LED
	// ConfigTxt holds the lines /boot/firmware/config.txt needs.
	ConfigTxt []string
}

// Button returns the button with role r.
func (p *Profile) Button(r Role) (Button, bool) {
	for _, b := range p.Buttons {
		if b.Role == r && r != RoleNone {
			return b, true
		}
	}
	return Button{}, false
}

// Pins lists every GPIO the board uses, with what uses it, in a stable
// order. The SPI bus's own pins (SCLK, MOSI, CE) are not included: the
// kernel's spidev owns them.
func (p *Profile) Pins() []PinUse {
	var out []PinUse
	add := func(pin, use string) {
		if pin != "" {
			out = append(out, PinUse{Pin: pin, Use: use})
		}
	}
	if d := p.Display; d != nil {
		add(d.DC, "display D/C")
		add(d.RST, "display reset")
		add(d.Backlight, "display backlight")
	}
	for _, b := range p.Buttons {
		add(b.Pin, "button "+b.Name)
	}
	if a := p.Audio; a != nil {
		add(a.Amp, "audio amplifier enable")
	}
	if l := p.LED; l != nil {
		add(l.R, "LED red")
		add(l.G, "LED green")
		add(l.B, "LED blue")
	}
	return out
}

// PinUse says what a GPIO is for.
type PinUse struct{ Pin, Use string }

// Names lists the boards Lookup knows, sorted.
func Names() []string {
	names := make([]string, 0, len(profiles))
	for _, p := range profiles {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	return names
}

// Lookup returns the profile of the named board. The result is a copy:
// callers may change it (a different rotation, say) without affecting
// others.
func Lookup(name string) (Profile, error) {
	for _, p := range profiles {
		if p.Name == name {
			return p.clone(), nil
		}
	}
	return Profile{}, fmt.Errorf("unknown board %q (known: %s)", name, strings.Join(Names(), ", "))
}

func (p Profile) clone() Profile {
	c := p
	if p.Display != nil {
		d := *p.Display
		c.Display = &d
	}
	if p.Audio != nil {
		a := *p.Audio
		c.Audio = &a
	}
	if p.LED != nil {
		l := *p.LED
		c.LED = &l
	}
	c.Buttons = slices.Clone(p.Buttons)
	c.ConfigTxt = slices.Clone(p.ConfigTxt)
	return c
}
