// Package serial is the USB link to the M5Stack CoreS3 dock: finding the
// CDC-ACM port by its USB ids (303a:1001, the ESP32-S3's built-in USB
// Serial/JTAG), noticing plug and unplug, and opening it the way the
// Stack-chan dock protocol wants (spec §1): raw 115200 8N1, DTR/RTS set once
// and never toggled, a settle pause before the handshake.
//
// The package moves bytes only. Frames, the handshake and sessions belong to
// protocols/ and the dock actor. A Port turns the quirks of go.bug.st/serial
// (a read timeout is (0, nil); an unplug is EIO or a zero-length read) into
// plain io.Reader behaviour: Read blocks until data and ends in ErrClosed or
// ErrDisconnected.
package serial

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// USB ids of the ESP32-S3 USB Serial/JTAG controller, fixed by the chip.
const (
	VID = "303A"
	PID = "1001"
)

// ErrNotFound is wrapped by every "no matching CoreS3" error from Find and
// match, so callers can tell "nothing plugged in" from an enumeration failure.
var ErrNotFound = errors.New("CoreS3 not found")

// notFound carries the detailed text while still matching ErrNotFound.
type notFound struct{ msg string }

func (e *notFound) Error() string        { return e.msg }
func (e *notFound) Is(target error) bool { return target == ErrNotFound }

// Enumerator lists the serial ports with their USB details. It is a func so
// tests can fake plug and unplug; SysfsEnumerator is the default.
type Enumerator func() ([]*PortDetails, error)

// isCoreS3 reports whether a port carries the CoreS3's USB ids. Backends
// disagree on the case of hex ids (sysfs is lowercase, the library
// upper-cases), so compare without case.
func isCoreS3(p *PortDetails) bool {
	return p != nil && p.IsUSB && strings.EqualFold(p.VID, VID) && strings.EqualFold(p.PID, PID)
}

// match picks the CoreS3 among ports. With opts.Serial set only that USB
// serial number qualifies. Several unpinned candidates: the lowest path wins,
// so the choice is stable across scans.
func match(ports []*PortDetails, opts *Opts) (*PortDetails, error) {
	want := ""
	if opts != nil {
		want = opts.Serial
	}
	found := CoreS3Ports(ports)
	if len(found) == 0 {
		return nil, &notFound{fmt.Sprintf("no CoreS3 on USB (looking for %s:%s)", strings.ToLower(VID), PID)}
	}
	if want == "" {
		return found[0], nil
	}
	var others []string
	for _, p := range found {
		if p.SerialNumber == want {
			return p, nil
		}
		others = append(others, fmt.Sprintf("%s at %s", quoteSerial(p.SerialNumber), p.Name))
	}
	return nil, &notFound{fmt.Sprintf("CoreS3 with serial %q not found; found %s", want, strings.Join(others, ", "))}
}

// CoreS3Ports is every port among ports with the CoreS3's USB ids, by path.
// Every ESP32-S3 board reports the same ids, so more than one may be a
// stranger beside the dock (actors/dock's trust decides which is).
func CoreS3Ports(ports []*PortDetails) []*PortDetails {
	var found []*PortDetails
	for _, p := range ports {
		if isCoreS3(p) {
			found = append(found, p)
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Name < found[j].Name })
	return found
}

func quoteSerial(s string) string {
	if s == "" {
		return "one without a serial number"
	}
	return fmt.Sprintf("%q", s)
}

// SysfsEnumerator lists ttyACM and ttyUSB ports from /sys/class/tty without
// opening any device. It replaces enumerator.GetDetailedPortsList as the
// default because the library, to weed out placeholder ttyS ports, opens
// every /dev/ttyS* and sets it raw at 9600 baud: on a Pi whose serial
// console lives on ttyS0 a once-a-second hotplug poll would keep breaking
// the console.
func SysfsEnumerator() ([]*PortDetails, error) {
	return sysfsPorts("/sys", "/dev")
}

// sysfsPorts is SysfsEnumerator with its roots as arguments for tests.
func sysfsPorts(sys, dev string) ([]*PortDetails, error) {
	var out []*PortDetails
	for _, pattern := range []string{"ttyACM*", "ttyUSB*"} {
		names, err := filepath.Glob(filepath.Join(sys, "class", "tty", pattern))
		if err != nil {
			return nil, fmt.Errorf("listing %s/class/tty: %v", sys, err)
		}
		for _, n := range names {
			d := &PortDetails{Name: filepath.Join(dev, filepath.Base(n))}
			// A port whose device vanishes mid-scan is simply not USB (yet);
			// the next scan settles it.
			if usb := usbDeviceDir(filepath.Join(n, "device")); usb != "" {
				d.IsUSB = true
				d.VID = strings.ToUpper(readAttr(usb, "idVendor"))
				d.PID = strings.ToUpper(readAttr(usb, "idProduct"))
				d.SerialNumber = readAttr(usb, "serial")
				d.Manufacturer = readAttr(usb, "manufacturer")
				d.Product = readAttr(usb, "product")
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// usbDeviceDir walks up from a tty's device link to the USB device holding
// idVendor: one level for CDC-ACM (the link is the interface), two for
// usb-serial adapters.
func usbDeviceDir(link string) string {
	dir, err := filepath.EvalSymlinks(link)
	if err != nil {
		return ""
	}
	for range 3 {
		if _, err := os.Stat(filepath.Join(dir, "idVendor")); err == nil {
			return dir
		}
		dir = filepath.Dir(dir)
	}
	return ""
}

func readAttr(dir, name string) string {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Find enumerates once and returns the CoreS3's port. opts may be nil; a nil
// opts.Enumerate means SysfsEnumerator.
func Find(opts *Opts) (*PortDetails, error) {
	enum := SysfsEnumerator
	if opts != nil && opts.Enumerate != nil {
		enum = opts.Enumerate
	}
	ports, err := enum()
	if err != nil {
		return nil, fmt.Errorf("serial: enumerating ports: %w", err)
	}
	p, err := match(ports, opts)
	if err != nil {
		return nil, fmt.Errorf("serial: %w", err)
	}
	return p, nil
}

// PortDetails describes one serial port found by an Enumerator. The field
// names follow go.bug.st/serial/enumerator's type of the same name; this
// package has its own so that it builds everywhere: that package needs cgo
// on macOS, and the claude-pi binary is cross-built there for the CLI hook.
type PortDetails struct {
	Name         string // device path, e.g. /dev/ttyACM0
	IsUSB        bool
	VID, PID     string // hex, e.g. "303A" (compared case-insensitively)
	SerialNumber string
	Manufacturer string
	Product      string
}
