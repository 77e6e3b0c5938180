package bluez

import (
	"github.com/godbus/dbus/v5"
)

// advert is our LEAdvertisement1. BlueZ reads its properties once, with
// GetAll, when we register it.
//
// A legacy advertisement holds 31 bytes. BlueZ always puts LocalName in the
// scan response (src/advertising.c, generate_scan_rsp), so the advertising
// data holds only the flags (3) and the 128-bit NUS UUID (18): scanners that
// filter on the service (CoreBluetooth withServices:, Web Bluetooth) find us,
// and the desktop, which matches the name (buddy spec §2.2), reads it from
// the scan response. ScanResponseServiceUUIDs is not an option: BlueZ 5.66
// ignores it without an error, later versions accept it only with -E.
type advert struct{ p *Peripheral }

func (a advert) properties() map[string]dbus.Variant {
	return map[string]dbus.Variant{
		"Type":         dbus.MakeVariant("peripheral"),
		"ServiceUUIDs": dbus.MakeVariant([]string{uuidNUS}),
		"LocalName":    dbus.MakeVariant(a.p.opts.Name),
		"Discoverable": dbus.MakeVariant(true),
	}
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
