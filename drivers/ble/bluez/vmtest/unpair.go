//go:build linux

package main

import (
	"fmt"
	"time"

	"github.com/godbus/dbus/v5"
)

// forget is the desktop's Forget: unpair, disconnect, drop its own bond.
// The appliance must then hold no bond and advertise again.
func (d *desk) forget(dev dbus.ObjectPath) error {
	if c, _ := d.props(dev, "org.bluez.Device1")["Connected"].Value().(bool); !c {
		if err := d.connect(dev); err != nil {
			return fmt.Errorf("connecting to send unpair: %w", err)
		}
	}
	if _, err := d.command(map[string]any{"cmd": "unpair"}, 10*time.Second); err != nil {
		return err
	}
	_ = d.call(dev, "org.bluez.Device1.Disconnect")
	if err := d.call(deskAdapter, "org.bluez.Adapter1.RemoveDevice", dev); err != nil {
		return fmt.Errorf("RemoveDevice on the desk: %w", err)
	}
	// bluetoothd removes a connected device only once its link is down:
	// a central that reconnects before that is dropped with it (seen in
	// the trace as a disconnect, reason 2, during the new pairing), so wait
	// until the device itself is gone, not only its bond.
	return d.waitPi("bond and device removed, advertising again", 20*time.Second, func(p shared) bool {
		return p.Bonds == 0 && p.Devices == 0 && !p.Link.Connected && p.Adverts["hci0"] == 1
	})
}

// unpairAndRepair is Forget followed by a new pairing.
func (d *desk) unpairAndRepair(addr string, dev dbus.ObjectPath) error {
	if err := d.forget(dev); err != nil {
		return err
	}
	if err := d.discover(addr, false, 30*time.Second); err != nil {
		return fmt.Errorf("advertising did not resume: %w", err)
	}
	if err := d.pair(dev); err != nil {
		return err
	}
	if err := d.connect(dev); err != nil {
		return err
	}
	_, err := d.command(map[string]any{"cmd": "status"}, 15*time.Second)
	return err
}
