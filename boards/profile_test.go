package boards

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
)

// Opening real hardware needs a Pi with the HAT and cannot run here; these
// tests check the table itself, which is where wiring mistakes live.

var gpioName = regexp.MustCompile(`^GPIO([0-9]|1[0-9]|2[0-7])$`)

func TestProfiles_everyRole(t *testing.T) {
	for _, name := range Names() {
		p, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range Roles {
			if _, ok := p.Button(r); !ok {
				t.Errorf("%s: no button for role %q", name, r)
			}
			n := 0
			for _, b := range p.Buttons {
				if b.Role == r {
					n++
				}
			}
			if n > 1 {
				t.Errorf("%s: %d buttons for role %q", name, n, r)
			}
		}
	}
}

func TestProfiles_pinsValidAndUnique(t *testing.T) {
	// SPI0's own pins belong to spidev: SCLK 11, MOSI 10, CE0 8, CE1 7.
	// GPIO9 (MISO) is allowed: the write-only panels reuse it as D/C.
	spiOwned := map[string]bool{"GPIO7": true, "GPIO8": true, "GPIO10": true, "GPIO11": true}
	// I²S for the DAC: BCLK 18, LRCLK 19, DOUT 21.
	i2s := map[string]bool{"GPIO18": true, "GPIO19": true, "GPIO20": true, "GPIO21": true}
	for _, name := range Names() {
		p, _ := Lookup(name)
		if p.Simulated {
			if len(p.Pins()) != 0 || p.Display != nil {
				t.Errorf("%s: simulated board with pins %v", name, p.Pins())
			}
			continue
		}
		seen := map[string]string{}
		for _, u := range p.Pins() {
			if !gpioName.MatchString(u.Pin) {
				t.Errorf("%s: %s on %q, not a Pi header GPIO", name, u.Use, u.Pin)
			}
			if prev, dup := seen[u.Pin]; dup {
				t.Errorf("%s: %s used twice: %s and %s", name, u.Pin, prev, u.Use)
			}
			seen[u.Pin] = u.Use
			if spiOwned[u.Pin] {
				t.Errorf("%s: %s on %s, an SPI0 pin", name, u.Use, u.Pin)
			}
			if p.Audio != nil && p.Audio.Card == "sndrpihifiberry" && i2s[u.Pin] {
				t.Errorf("%s: %s on %s, an I²S pin the DAC needs", name, u.Use, u.Pin)
			}
		}
		if p.Display == nil || p.Display.DC == "" {
			t.Errorf("%s: no display D/C pin", name)
		}
	}
}

func TestProfiles_configTxt(t *testing.T) {
	want := map[string][]string{
		"pirate-audio":     {"dtparam=spi=on", "dtoverlay=hifiberry-dac", "gpio=25=op,dh"},
		"waveshare-lcd13":  {"dtparam=spi=on"},
		"display-hat-mini": {"dtparam=spi=on"},
		"sim":              nil,
	}
	if got := Names(); !slices.Equal(got, []string{"display-hat-mini", "pirate-audio", "sim", "waveshare-lcd13"}) {
		t.Fatalf("Names() = %v", got)
	}
	for name, lines := range want {
		p, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			if !slices.Contains(p.ConfigTxt, l) {
				t.Errorf("%s: config.txt lines %q lack %q", name, p.ConfigTxt, l)
			}
		}
		for _, l := range p.ConfigTxt {
			if strings.TrimSpace(l) != l || !strings.Contains(l, "=") {
				t.Errorf("%s: malformed config.txt line %q", name, l)
			}
		}
	}
}

func TestProfiles_geometry(t *testing.T) {
	tests := []struct {
		name string
		w, h int
	}{
		{"pirate-audio", 240, 240},
		{"waveshare-lcd13", 240, 240},
		{"display-hat-mini", 320, 240},
		{"sim", 240, 240},
	}
	for _, tt := range tests {
		p, _ := Lookup(tt.name)
		if p.Width != tt.w || p.Height != tt.h {
			t.Errorf("%s: %dx%d, want %dx%d", tt.name, p.Width, p.Height, tt.w, tt.h)
		}
		if d := p.Display; d != nil {
			// The driver's Bounds swap width and height at 90 and 270.
			w, h := d.Opts.Width, d.Opts.Height
			if d.Opts.Rotation == 90 || d.Opts.Rotation == 270 {
				w, h = h, w
			}
			if w != p.Width || h != p.Height {
				t.Errorf("%s: panel opts give %dx%d after rotation, profile says %dx%d", tt.name, w, h, p.Width, p.Height)
			}
			if w*h > 240*320 {
				t.Errorf("%s: larger than the controller's memory", tt.name)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	if _, err := Lookup("pirate-audi0"); err == nil || !strings.Contains(err.Error(), "pirate-audio") {
		t.Errorf("Lookup(typo) = %v, want an error listing the known boards", err)
	}
	a, _ := Lookup("pirate-audio")
	a.Display.Opts.Rotation = 180
	a.Buttons[0].Pin = "GPIO20"
	b, _ := Lookup("pirate-audio")
	if b.Display.Opts.Rotation != 0 || b.Buttons[0].Pin != "GPIO5" {
		t.Error("Lookup returns shared state: a caller's edit leaked into the table")
	}
}

func TestOpen_simulatedRefused(t *testing.T) {
	p, _ := Lookup("sim")
	if _, err := Open(p, nil); err == nil || !strings.Contains(err.Error(), "boards/sim") {
		t.Errorf("Open(sim) = %v, want a refusal pointing at boards/sim", err)
	}
}

// On a Pi 5 a profile's GPIOn is line n of the RP1 chip, never periph's
// bcm283x pin of that name (BCM2711 registers); elsewhere the name goes
// to gpioreg as before.
func TestLookupPinTakesTheRP1LineOnAPi5(t *testing.T) {
	rp1 := map[int]gpio.PinIO{}
	reg := map[string]gpio.PinIO{}
	for _, n := range []int{5, 9, 25, 27} {
		rp1[n] = &gpiotest.Pin{N: fmt.Sprintf("rp1 line %d", n)}
		reg[fmt.Sprintf("GPIO%d", n)] = &gpiotest.Pin{N: fmt.Sprintf("bcm283x GPIO%d", n)}
	}
	byLine := func(n int) gpio.PinIO {
		if p, ok := rp1[n]; ok {
			return p
		}
		return nil
	}
	byName := func(name string) gpio.PinIO {
		if p, ok := reg[name]; ok {
			return p
		}
		return nil
	}
	pi5 := []string{"raspberrypi,5-model-b", "brcm,bcm2712"}
	pi4 := []string{"raspberrypi,4-model-b", "brcm,bcm2711"}
	for _, tt := range []struct {
		compatible []string
		name, want string
	}{
		{pi5, "GPIO25", "rp1 line 25"},
		{pi5, "GPIO5", "rp1 line 5"},
		{pi5, "GPIO3", ""},  // no such line in the fake
		{pi5, "GPIO28", ""}, // not on the header
		{pi5, "SPI_MISO", ""},
		{pi4, "GPIO25", "bcm283x GPIO25"},
		{nil, "GPIO9", "bcm283x GPIO9"},
	} {
		got := ""
		if p := lookupPin(tt.compatible, tt.name, byLine, byName); p != nil {
			got = p.Name()
		}
		if got != tt.want {
			t.Errorf("%v %s: %q, want %q", tt.compatible, tt.name, got, tt.want)
		}
	}
}
