package boards

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spireg"
	"periph.io/x/host/v3"
	"periph.io/x/host/v3/distro"
	"periph.io/x/host/v3/gpioioctl"

	"github.com/claude-pi/claude-pi/drivers/display/st7789"
	"github.com/claude-pi/claude-pi/drivers/input"
)

// Hardware is a board's devices, opened. Close releases them.
type Hardware struct {
	Profile Profile
	Display *st7789.Dev
	Buttons *input.Buttons
	// Amp is the audio amplifier enable, or nil.
	Amp gpio.PinOut
	// LED holds the red, green and blue pins, or nils.
	LED [3]gpio.PinOut

	port spi.PortCloser
}

// Close halts the display and buttons and closes the SPI port. It is safe
// to call on a partly opened Hardware.
func (h *Hardware) Close() error {
	var errs []error
	if h.Buttons != nil {
		errs = append(errs, h.Buttons.Close())
	}
	if h.Display != nil {
		errs = append(errs, h.Display.Halt())
	}
	if h.port != nil {
		errs = append(errs, h.port.Close())
	}
	return errors.Join(errs...)
}

// pinByName finds a profile's pin ("GPIO25") on this machine; tests
// replace it.
var pinByName = func(name string) gpio.PinIO {
	return lookupPin(distro.DTCompatible(), name, rp1Line, gpioreg.ByName)
}

// lookupPin is pinByName's choice. On a Pi 5 (device tree "brcm,bcm2712")
// the header GPIO is the RP1 chip's, and the only way to it is the GPIO
// character device, so pin GPIOn is line n of the pinctrl-rp1 chip (rp1).
// Not gpioreg's pin of that name: periph's bcm283x driver registers
// GPIO0..53 on every Broadcom SoC, the Pi 5's too, with the BCM2711's
// register layout. Unprivileged and sandboxed (the systemd unit) it cannot
// map registers and falls back to those same lines, but run as root it tries
// to map /dev/mem at the BCM2711's GPIO address, which on a Pi 5 is not GPIO.
// Elsewhere (Pi 1 to 4) gpioreg's name is right: bcm283x also names pins
// that the kernel calls by their function ("SPI_MISO" on a Pi 3).
func lookupPin(compatible []string, name string, rp1 func(n int) gpio.PinIO, byName func(string) gpio.PinIO) gpio.PinIO {
	if !slices.Contains(compatible, "brcm,bcm2712") {
		return byName(name)
	}
	n, err := strconv.Atoi(strings.TrimPrefix(name, "GPIO"))
	if err != nil || !strings.HasPrefix(name, "GPIO") || n < 0 || n > 27 {
		return nil // the Pi 5's header has GPIO0..27 and nothing else
	}
	return rp1(n)
}

// rp1Line is line n of the Pi 5's RP1 GPIO chip, nil when there is none.
func rp1Line(n int) gpio.PinIO {
	for _, c := range gpioioctl.Chips {
		if c.Label() != "pinctrl-rp1" {
			continue
		}
		if l := c.ByNumber(n); l != nil {
			return l
		}
	}
	return nil
}

// Open initializes periph and opens the board's display, buttons, amplifier
// pin and LED. It cannot run off a Pi; every error names the part and the
// fix. buttonOpts may be nil.
func Open(p Profile, buttonOpts *input.Opts) (*Hardware, error) {
	if p.Simulated {
		return nil, fmt.Errorf("board %s: simulated, it has no hardware to open (use boards/sim)", p.Name)
	}
	if _, err := host.Init(); err != nil {
		return nil, fmt.Errorf("board %s: initializing periph: %w", p.Name, err)
	}
	h := &Hardware{Profile: p}
	if err := h.open(buttonOpts); err != nil {
		h.Close()
		return nil, fmt.Errorf("board %s: %w", p.Name, err)
	}
	return h, nil
}

func (h *Hardware) open(buttonOpts *input.Opts) error {
	p := h.Profile
	if d := p.Display; d != nil {
		if err := h.openDisplay(d); err != nil {
			return err
		}
	}
	pins := make(map[string]gpio.PinIn, len(p.Buttons))
	for _, b := range p.Buttons {
		pin, err := resolve(b.Pin, "button "+b.Name)
		if err != nil {
			return err
		}
		pins[b.Name] = pin
	}
	if len(pins) > 0 {
		bs, err := input.New(pins, buttonOpts)
		if err != nil {
			return fmt.Errorf("buttons: %w", err)
		}
		h.Buttons = bs
	}
	if a := p.Audio; a != nil && a.Amp != "" {
		pin, err := resolve(a.Amp, "audio amplifier enable")
		if err != nil {
			return err
		}
		h.Amp = pin
	}
	if l := p.LED; l != nil {
		for i, name := range []string{l.R, l.G, l.B} {
			pin, err := resolve(name, "LED")
			if err != nil {
				return err
			}
			off := gpio.Low
			if l.ActiveLow {
				off = gpio.High
			}
			if err := pin.Out(off); err != nil {
				return fmt.Errorf("LED pin %s: %w", name, err)
			}
			h.LED[i] = pin
		}
	}
	return nil
}

func (h *Hardware) openDisplay(d *Display) error {
	dev := d.Device()
	if _, err := os.Stat(dev); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("display: %s missing: SPI not enabled: add dtparam=spi=on to /boot/firmware/config.txt and reboot", dev)
	}
	port, err := spireg.Open(dev)
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			return fmt.Errorf("display: opening %s: %w (add the user to the spi group)", dev, err)
		}
		return fmt.Errorf("display: opening %s: %w", dev, err)
	}
	h.port = port
	dc, err := resolve(d.DC, "display D/C")
	if err != nil {
		return err
	}
	var rst, bl gpio.PinOut
	if d.RST != "" {
		if rst, err = resolve(d.RST, "display reset"); err != nil {
			return err
		}
	}
	if d.Backlight != "" {
		if bl, err = resolve(d.Backlight, "display backlight"); err != nil {
			return err
		}
	}
	opts := d.Opts
	dd, err := st7789.New(port, dc, rst, bl, &opts)
	if err != nil {
		return fmt.Errorf("display on %s: %w", dev, err)
	}
	h.Display = dd
	return nil
}

// resolve looks a pin up by its periph name.
func resolve(name, use string) (gpio.PinIO, error) {
	if name == "" {
		return nil, fmt.Errorf("%s: no pin in the profile", use)
	}
	p := pinByName(name)
	if p == nil {
		return nil, fmt.Errorf("%s: pin %s not found: is /dev/gpiochip0 present and readable (add the user to the gpio group)? On a Pi 5 the header is the RP1 chip's (gpioinfo shows pinctrl-rp1): run Raspberry Pi OS, whose kernel drives it", use, name)
	}
	return p, nil
}
