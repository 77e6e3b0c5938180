// Package ble is the link actor: it owns a drivers/ble.Peripheral, turns
// its events into LinkState, assembles RX bytes into lines for the buddy
// service, and is the single ordered writer of TX notifications.
package ble

// ServiceName is the link actor's name in the supervision tree (not a GATT
// service: that is protocols/nus).
const ServiceName = "ble"

// Send asks the link to notify one complete JSON line to the central. Line
// includes its trailing "\n" (the protocols/buddy encoders produce that).
// The actor chunks it at the current MTU and notifies the chunks in order,
// so its mailbox is the single ordered writer the spec demands. With no
// central subscribed the line is dropped, never queued across connections.
type Send struct {
	Line []byte
	// Receipt, when not nil, asks for a Sent carrying it: the sender
	// learns whether this line went out (a permission line that never
	// left must not be credited to the Pi).
	Receipt any
}

// Sent reports the fate of a Send with a Receipt. It goes to the Lines
// service (buddy), ahead of every Line assembled from what the central
// wrote after the line was notified: the heartbeat slot is closed first,
// so no later heartbeat can be folded into an earlier Line.
type Sent struct {
	Receipt any
	// OK: every chunk of the line was notified. A line cut after some
	// chunks is not OK: the next line starts with "\n", so the desktop
	// drops the half it got.
	OK bool
	// Err says why it was dropped ("" when OK).
	Err string
}

// Unpair asks the link to forget every bonded central. buddy sends its ack
// line first, then Unpair, so the desktop still hears the ack.
type Unpair struct{}

// ForgetBonds is the Pi's own "Forget Bluetooth pairing?" (the ui, on a
// long press): forget every bonded central and stay pairable and
// advertising, so the desktop can pair afresh. Answered with
// BondsForgotten.
type ForgetBonds struct{}

// BondsForgotten answers ForgetBonds.
type BondsForgotten struct {
	// Removed is how many bonds were removed.
	Removed int
	// NoBonds: the link cannot pair (open mode, hci or sim), so it keeps
	// no bonds and there was nothing to forget.
	NoBonds bool
	// Err says why some bond could not be removed, "" when none failed.
	Err string
}

// Line is one complete line assembled from RX writes, without its "\n".
// Sent to the "buddy" service, which reads it with Take. A Line the link
// sends stays open until taken: a newer heartbeat that supersedes the one
// in it replaces it there rather than queueing behind it (rxwindow.go).
type Line struct {
	// Data is the line of a Line built by hand (tests); the link leaves
	// it nil and fills the slot.
	Data []byte
	s    *slot
}

// Take returns the line, a copy the receiver owns, and frees its room in
// the link's window. The consumer must take every Line it gets: lines
// not taken hold the link back until the consumer subscribes afresh.
func (l Line) Take() []byte {
	if l.s == nil {
		return l.Data
	}
	return l.s.take()
}

// LineError reports a line dropped for being too long (a
// *nus.LineTooLongError); the next line is unaffected. Sent to "buddy".
type LineError struct{ Err error }

// LinkState is the link as subscribers see it: a supervisor.Subscribe
// gets the current one at once, then every change.
type LinkState struct {
	// Advertising is true while the device is discoverable.
	Advertising bool
	// AdvertiseErr says why advertising failed ("" when it did not).
	AdvertiseErr string
	// Connected is true while a central is connected.
	Connected bool
	// Central identifies the connected central ("" when none).
	Central string
	// Subscribed is true while the central has TX notifications enabled;
	// only then can lines reach it.
	Subscribed bool
	// Secured is true only while the link is really encrypted and
	// authenticated; it feeds the status ack's "sec".
	Secured bool
	// MTU is the current ATT MTU.
	MTU int
	// Passkey is "" or the six digits to show while pairing.
	Passkey string
	// CanPair reports whether the backend can encrypt a link at all.
	CanPair bool
	// Security is the configured mode, "bonded" or "open".
	Security string
}
