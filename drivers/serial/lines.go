package serial

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"syscall"

	bugst "go.bug.st/serial"
)

// Lines is the state of the two modem control lines the host drives.
//
// The ESP32-S3's USB Serial/JTAG controller reads them the way esptool's
// auto-reset circuit does on a UART bridge: RTS raised with DTR low holds
// the chip in reset (EN low), and DTR raised with RTS low holds IO0 low, so
// any reset while the lines stay that way (a watchdog, a brownout, the
// power button) boots the download ROM instead of the firmware. Both raised
// and both low are idle. Linux raises both when it opens the tty and drops
// both when the last holder closes it, each in one control request.
type Lines struct{ DTR, RTS bool }

// LinesRaised is the state the kernel leaves on open.
var LinesRaised = Lines{DTR: true, RTS: true}

// Hazard says what the ESP32-S3 does while the lines stay in l: "" for the
// two idle states.
func (l Lines) Hazard() string {
	switch {
	case !l.DTR && l.RTS:
		return "holds the ESP32-S3 in reset"
	case l.DTR && !l.RTS:
		return "holds the ESP32-S3's IO0 low, so its next reset boots the download ROM"
	}
	return ""
}

func (l Lines) String() string {
	bit := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	return fmt.Sprintf("DTR=%d RTS=%d", bit(l.DTR), bit(l.RTS))
}

// WantLines resolves config dock.dtr / dock.rts into the lines to hold: an
// unset line is raised (as the kernel raised it). The two mixed states are
// refused with an error that names the fix, so the configuration fails at
// start instead of a dock that silently never boots.
func WantLines(dtr, rts *bool) (Lines, error) {
	l := LinesRaised
	if dtr != nil {
		l.DTR = *dtr
	}
	if rts != nil {
		l.RTS = *rts
	}
	if h := l.Hazard(); h != "" {
		return l, fmt.Errorf("dock.dtr/dock.rts give %s, which %s: set both false (or leave both unset, the default) — an unset line stays raised", l, h)
	}
	return l, nil
}

// openWithLines opens path and, when set (either line configured), puts
// both lines in want with one TIOCMSET before anything else: go.bug.st's
// InitialStatusBits. Setting them one at a time cannot go from both raised
// to both low without passing through a mixed state.
//
// A tty without modem lines (a pty: tests, --dock-port on a socat bridge)
// fails that ioctl; it is then opened plainly, since it has no lines to
// hold anything. A device that has lines and still failed keeps the error.
func openWithLines(open func(string, *bugst.Mode) (bugst.Port, error), path string, want Lines, set bool, log *slog.Logger) (bugst.Port, error) {
	mode := &bugst.Mode{BaudRate: Baud, DataBits: 8, Parity: bugst.NoParity, StopBits: bugst.OneStopBit}
	if !set {
		return open(path, mode)
	}
	mode.InitialStatusBits = &bugst.ModemOutputBits{DTR: want.DTR, RTS: want.RTS}
	sp, err := open(path, mode)
	var pe *bugst.PortError
	if err == nil || !errors.As(err, &pe) || pe.Code() != bugst.InvalidSerialPort {
		return sp, err
	}
	mode.InitialStatusBits = nil
	plain, perr := open(path, mode)
	if perr != nil {
		return nil, err
	}
	if _, merr := plain.GetModemStatusBits(); noModemLines(merr) {
		log.Debug("dock port has no modem control lines", "path", path, "err", merr)
		return plain, nil
	}
	plain.Close()
	return nil, err
}

func noModemLines(err error) bool {
	return errors.Is(err, syscall.ENOTTY) || errors.Is(err, syscall.EINVAL)
}

// openError names the path, and marks a permission failure with
// fs.ErrPermission so the dock can tell udev's race after a replug (the
// node exists before its group is applied) from a real failure.
func openError(path string, err error) error {
	var pe *bugst.PortError
	if errors.As(err, &pe) && pe.Code() == bugst.PermissionDenied || errors.Is(err, syscall.EACCES) {
		return fmt.Errorf("serial: opening %s: %w (add the appliance's user to the dialout group; right after a replug, udev may not have applied its rule yet)", path, fs.ErrPermission)
	}
	return fmt.Errorf("serial: opening %s: %w", path, err)
}
