package bluez

import (
	"github.com/godbus/dbus/v5"
)

// advert is our LEAdvertisement1. BlueZ reads its properties once, with
// GetAll, when we register it.
//
// A legacy advertisement holds 31 bytes: flags (3) + the 128-bit NUS UUID
// (18) + the name (2+len) overflow for "Claude_Pi". The desktop finds us by
// name only (buddy spec §2.2), so the name goes in the advertising data and
// the UUID in the scan response; losing the name would hide the device.
type advert struct{ p *Peripheral }

// advertFits reports whether flags, the UUID and the name fit in 31 bytes.
func advertFits(name string) bool { return 3+18+2+len(name) <= 31 }

func (a advert) properties() map[string]dbus.Variant {
	name := a.p.opts.Name
	props := map[string]dbus.Variant{
		"Type":         dbus.MakeVariant("peripheral"),
		"LocalName":    dbus.MakeVariant(name),
		"Discoverable": dbus.MakeVariant(true),
	}
	if advertFits(name) {
		props["ServiceUUIDs"] = dbus.MakeVariant([]string{uuidNUS})
	} else {
		props["ScanResponseServiceUUIDs"] = dbus.MakeVariant([]string{uuidNUS})
	}
	return props
}

// Release implements LEAdvertisement1.Release: BlueZ dropped the
// advertisement (adapter reset, bluetoothd exit).
func (a advert) Release() *dbus.Error {
	a.p.advertReleased()
	return nil
}

// GetAll implements org.freedesktop.DBus.Properties.GetAll.
func (a advert) GetAll(iface string) (map[string]dbus.Variant, *dbus.Error) {
	if iface != ifaceAdvert {
		return nil, dbus.MakeFailedError(errUnknownInterface(iface))
	}
	return a.properties(), nil
}

// Get implements org.freedesktop.DBus.Properties.Get.
func (a advert) Get(iface, name string) (dbus.Variant, *dbus.Error) {
	if iface != ifaceAdvert {
		return dbus.Variant{}, dbus.MakeFailedError(errUnknownInterface(iface))
	}
	v, ok := a.properties()[name]
	if !ok {
		return dbus.Variant{}, dbus.NewError("org.freedesktop.DBus.Error.InvalidArgs", []interface{}{"no property " + name})
	}
	return v, nil
}

// Set refuses every write: the advertisement is read-only.
func (a advert) Set(iface, name string, v dbus.Variant) *dbus.Error {
	return dbus.NewError("org.freedesktop.DBus.Error.PropertyReadOnly", []interface{}{name})
}
