package bluez

import (
	"github.com/godbus/dbus/v5"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

// D-Bus interface names of the BlueZ API we use (doc/gatt-api.txt,
// doc/advertising-api.txt, doc/agent-api.txt, doc/device-api.txt).
const (
	busName          = "org.bluez"
	ifaceAdapter     = "org.bluez.Adapter1"
	ifaceDevice      = "org.bluez.Device1"
	ifaceGattManager = "org.bluez.GattManager1"
	ifaceGattService = "org.bluez.GattService1"
	ifaceGattChar    = "org.bluez.GattCharacteristic1"
	ifaceAdvManager  = "org.bluez.LEAdvertisingManager1"
	ifaceAdvert      = "org.bluez.LEAdvertisement1"
	ifaceAgentMgr    = "org.bluez.AgentManager1"
	ifaceAgent       = "org.bluez.Agent1"
	ifaceObjManager  = "org.freedesktop.DBus.ObjectManager"
	ifaceProps       = "org.freedesktop.DBus.Properties"
)

// NUS UUIDs (buddy spec §1). Kept here as well as in protocols/nus so the
// driver does not depend on a protocol package for three constants.
const (
	uuidNUS = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
	uuidRX  = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"
	uuidTX  = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"
)

// Flags for each security mode (buddy spec §4.6). In bonded mode every
// access needs a link encrypted with a key from authenticated LE Secure
// Connections pairing, so the desktop's first CCCD write makes BlueZ start
// that pairing. The secure-* flags (BT_ATT_PERM_*_SECURE, the kernel's
// BT_SECURITY_FIPS) are the ones that demand Secure Connections:
// encrypt-authenticated-* also passes a link from LE legacy passkey
// pairing, whose key anyone who sniffed the pairing can recover. BlueZ
// 5.66 and 5.82 parse them the same way (src/gatt-database.c), and answer
// a weaker link with Insufficient Authentication.
func rxFlags(s drv.Security) []string {
	if s == drv.Open {
		return []string{"write-without-response", "write"}
	}
	return []string{"write-without-response", "write", "secure-write"}
}

func txFlags(s drv.Security) []string {
	if s == drv.Open {
		return []string{"notify"}
	}
	return []string{"notify", "secure-notify"}
}

// objectPaths are where our objects live on the bus.
type objectPaths struct {
	app, service, rx, tx, advert, agent dbus.ObjectPath
}

func pathsUnder(root dbus.ObjectPath) objectPaths {
	return objectPaths{
		app:     root,
		service: root + "/service0",
		rx:      root + "/service0/char0",
		tx:      root + "/service0/char1",
		advert:  root + "/advertisement0",
		agent:   root + "/agent",
	}
}

// app is the GATT application BlueZ reads with GetManagedObjects when we
// call RegisterApplication.
type app struct{ p *Peripheral }

// GetManagedObjects implements org.freedesktop.DBus.ObjectManager.
func (a app) GetManagedObjects() (map[dbus.ObjectPath]map[string]map[string]dbus.Variant, *dbus.Error) {
	paths, sec := a.p.paths, a.p.opts.Security
	return map[dbus.ObjectPath]map[string]map[string]dbus.Variant{
		paths.service: {ifaceGattService: {
			"UUID":    dbus.MakeVariant(uuidNUS),
			"Primary": dbus.MakeVariant(true),
		}},
		paths.rx: {ifaceGattChar: {
			"UUID":    dbus.MakeVariant(uuidRX),
			"Service": dbus.MakeVariant(paths.service),
			"Flags":   dbus.MakeVariant(rxFlags(sec)),
		}},
		paths.tx: {ifaceGattChar: {
			"UUID":    dbus.MakeVariant(uuidTX),
			"Service": dbus.MakeVariant(paths.service),
			"Flags":   dbus.MakeVariant(txFlags(sec)),
		}},
	}, nil
}

// rxChar is NUS RX: the desktop writes its lines here in ≤180-byte slices.
type rxChar struct{ p *Peripheral }

// WriteValue implements GattCharacteristic1.WriteValue. BlueZ only calls
// it once the link meets the characteristic's security flags. On a
// connection made by Dial the write was already queued in bluetoothd's
// order, or refused because the queue was full (rxorder.go); msg is the
// raw call, which godbus leaves out of the D-Bus signature.
func (c rxChar) WriteValue(msg dbus.Message, value []byte, options map[string]dbus.Variant) *dbus.Error {
	if queued, err := c.p.awaitRX(msg); queued {
		return err
	}
	c.p.received(value, rxMetaOf(options))
	return nil
}

// ReadValue is refused: RX has no read property.
func (c rxChar) ReadValue(options map[string]dbus.Variant) ([]byte, *dbus.Error) {
	return nil, dbus.NewError("org.bluez.Error.NotPermitted", []interface{}{"RX is write-only"})
}

// txChar is NUS TX: lines go to the desktop as notifications, sent as
// PropertiesChanged signals on Value.
type txChar struct{ p *Peripheral }

// StartNotify implements GattCharacteristic1.StartNotify (a CCCD write).
func (c txChar) StartNotify() *dbus.Error {
	c.p.subscribed(true)
	return nil
}

// StopNotify implements GattCharacteristic1.StopNotify.
func (c txChar) StopNotify() *dbus.Error {
	c.p.subscribed(false)
	return nil
}

// ReadValue is refused: TX is notify-only.
func (c txChar) ReadValue(options map[string]dbus.Variant) ([]byte, *dbus.Error) {
	return nil, dbus.NewError("org.bluez.Error.NotPermitted", []interface{}{"TX is notify-only"})
}
