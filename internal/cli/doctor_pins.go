package cli

import (
	"fmt"
	"io"

	"github.com/claude-pi/claude-pi/boards"
)

// writePins is the wiring part of `claude-pi doctor --board NAME`: every
// GPIO the board uses and what for, so a HAT can be checked (or wired by
// hand) against the profile the appliance drives.
func writePins(w io.Writer, p boards.Profile) {
	pins := p.Pins()
	if p.Display == nil && len(pins) == 0 {
		fmt.Fprintf(w, "pins: none (%s has no GPIO or SPI)\n", p.Name)
		return
	}
	fmt.Fprintf(w, "pins of %s:\n", p.Name)
	if d := p.Display; d != nil {
		fmt.Fprintf(w, "  %-8s display (SPI bus %d, chip select %d)\n", d.Device(), d.Bus, d.CS)
	}
	for _, u := range pins {
		fmt.Fprintf(w, "  %-8s %s\n", u.Pin, u.Use)
	}
}
