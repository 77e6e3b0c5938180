package bluez

import (
	"github.com/godbus/dbus/v5"
)

// agent is our Agent1, registered with capability DisplayOnly: the Pi can
// show a passkey but has no keyboard and no yes/no input (buddy spec §4.1).
type agent struct{ p *Peripheral }

var errRejected = dbus.NewError("org.bluez.Error.Rejected", []interface{}{"Claude_Pi shows a passkey; it cannot confirm or enter one"})

// Release implements Agent1.Release.
func (a agent) Release() *dbus.Error { return nil }

// DisplayPasskey implements Agent1.DisplayPasskey: show the code on the
// screen. BlueZ calls it again as the central types (entered counts keys).
func (a agent) DisplayPasskey(device dbus.ObjectPath, passkey uint32, entered uint16) *dbus.Error {
	a.p.passkey(device, passkey)
	return nil
}

// DisplayPinCode implements Agent1.DisplayPinCode (legacy BR/EDR pairing).
func (a agent) DisplayPinCode(device dbus.ObjectPath, pincode string) *dbus.Error {
	return errRejected
}

// RequestPinCode is refused: there is no keyboard.
func (a agent) RequestPinCode(device dbus.ObjectPath) (string, *dbus.Error) {
	return "", errRejected
}

// RequestPasskey is refused: there is no keyboard.
func (a agent) RequestPasskey(device dbus.ObjectPath) (uint32, *dbus.Error) {
	return 0, errRejected
}

// RequestConfirmation is refused: numeric comparison is not offered, as on
// the reference device, so no pairing can complete without the passkey.
func (a agent) RequestConfirmation(device dbus.ObjectPath, passkey uint32) *dbus.Error {
	return errRejected
}

// RequestAuthorization is refused: it is "just works" pairing, which has
// no MITM protection.
func (a agent) RequestAuthorization(device dbus.ObjectPath) *dbus.Error {
	return errRejected
}

// AuthorizeService accepts: the only service is ours.
func (a agent) AuthorizeService(device dbus.ObjectPath, uuid string) *dbus.Error {
	return nil
}

// Cancel implements Agent1.Cancel: the pairing attempt ended unfinished.
func (a agent) Cancel() *dbus.Error {
	a.p.pairingDone(false)
	return nil
}
