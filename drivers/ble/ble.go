// Package ble is the Bluetooth LE link of the Claude Hardware Buddy: a
// peripheral that serves the Nordic UART Service (NUS) to one central, the
// Claude desktop app.
//
// Three backends implement Peripheral: bluez (BlueZ over D-Bus; the only one
// that can pair and bond), hci (go-ble on a raw HCI socket, open mode only)
// and sim (the NUS byte stream over a socket, for machines without a radio).
// A backend moves bytes and reports link events; line assembly, chunking and
// everything the bytes mean belong to the ble actor and protocols/nus.
package ble

import (
	"context"
	"errors"
	"fmt"

	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
)

// Security is how much the link must be protected before NUS can be used.
type Security int

const (
	// Bonded requires LE Secure Connections pairing with MITM protection:
	// RX and TX are secure-write/secure-notify (Secure Connections only,
	// never LE legacy pairing), so the desktop's first access
	// triggers passkey pairing. The default.
	Bonded Security = iota
	// Open serves NUS without encryption ("maker mode"). The status ack
	// reports sec:false and the screen warns about it.
	Open
)

// String returns the config spelling, "bonded" or "open".
func (s Security) String() string {
	switch s {
	case Bonded:
		return "bonded"
	case Open:
		return "open"
	}
	return fmt.Sprintf("Security(%d)", int(s))
}

// ParseSecurity parses the config spelling of a Security.
func ParseSecurity(s string) (Security, error) {
	switch s {
	case "", "bonded":
		return Bonded, nil
	case "open":
		return Open, nil
	}
	return 0, fmt.Errorf("ble: unknown security %q: want \"bonded\" or \"open\"", s)
}

// DefaultName is the advertised local name, the buddy protocol's
// DeviceName. The desktop lists only devices whose name starts with
// "Claude" (buddy spec §2.1).
const DefaultName = pbuddy.DeviceName

// MaxNameLen keeps the name inside a legacy advertising packet.
const MaxNameLen = 20

// ValidateName checks an advertised name against the desktop's filter.
func ValidateName(name string) error {
	if len(name) < len("Claude") || name[:len("Claude")] != "Claude" {
		return fmt.Errorf("ble: name %q must start with \"Claude\": the desktop lists no other devices", name)
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("ble: name %q is %d bytes; keep it to %d so it fits the advertisement", name, len(name), MaxNameLen)
	}
	return nil
}

// DefaultMTU is the ATT MTU assumed until the central exchanges a larger one.
const DefaultMTU = 23

// ErrNotSubscribed is returned by Notify while no central has enabled
// notifications on TX. The line is dropped, as the spec requires: lines are
// never queued across connections.
var ErrNotSubscribed = errors.New("ble: no central subscribed to TX notifications")

// ErrNoBonds is RemoveBonds' answer on a backend that cannot pair (hci,
// sim): an open link keeps no bonds, so there is nothing to forget.
var ErrNoBonds = errors.New(`ble: this link cannot pair (security "open", or the hci or sim backend), so it keeps no bonds: nothing to forget`)

// Peripheral is one BLE backend serving NUS.
type Peripheral interface {
	// Run registers the service and starts advertising, then reports link
	// events on events until ctx is done. It recovers by itself from a
	// restart of the Bluetooth stack; it returns only when ctx ends or on
	// an error it cannot recover from (the caller restarts it).
	Run(ctx context.Context, events chan<- Event) error
	// Notify sends one TX notification. p must fit MTU()-3 bytes; callers
	// chunk lines with protocols/nus because stacks may truncate silently.
	Notify(p []byte) error
	// MTU is the current ATT MTU (DefaultMTU when unknown).
	MTU() int
	// RemoveBonds forgets every bonded central so that a desktop can pair
	// afresh: the desktop's unpair command, and the Pi's own "Forget
	// Bluetooth pairing?" screen. It leaves the device pairable and
	// advertising, and returns how many bonds it removed. A backend that
	// cannot pair keeps no bonds and returns ErrNoBonds.
	RemoveBonds() (removed int, err error)
	// CanPair reports whether this backend can encrypt a link at all.
	CanPair() bool
}

// Event is something the link reports to its owner.
type Event interface{ isEvent() }

// Connected: a central connected.
type Connected struct{ Central string }

// Disconnected: the central went away. Pending notifications are lost.
type Disconnected struct{ Central string }

// Received is one write to RX, exactly the bytes the central wrote.
type Received struct{ Data []byte }

// Subscribed reports TX notifications being enabled (On) or disabled.
type Subscribed struct{ On bool }

// Secured reports the link's encryption: true once the link is encrypted
// and authenticated, false on disconnect.
type Secured struct{ Encrypted bool }

// Passkey asks the UI to show a pairing passkey (show it zero-padded to six
// digits). It stays up until PairingDone.
type Passkey struct{ Code uint32 }

// PairingDone ends a pairing attempt; the UI hides the passkey.
type PairingDone struct{ OK bool }

// Advertising reports whether the device is advertising, and why not.
type Advertising struct {
	On  bool
	Err error
}

// MTUChanged reports a new ATT MTU.
type MTUChanged struct{ MTU int }

func (Connected) isEvent()    {}
func (Disconnected) isEvent() {}
func (Received) isEvent()     {}
func (Subscribed) isEvent()   {}
func (Secured) isEvent()      {}
func (Passkey) isEvent()      {}
func (PairingDone) isEvent()  {}
func (Advertising) isEvent()  {}
func (MTUChanged) isEvent()   {}

// FormatPasskey zero-pads a passkey to the six digits the desktop asks for.
func FormatPasskey(code uint32) string { return fmt.Sprintf("%06d", code%1000000) }
