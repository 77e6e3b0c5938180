//go:build linux

package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/godbus/dbus/v5"
)

// startNotifications() again (an unchanged CCC value for a bonded device,
// so bluetoothd calls no StartNotify on the appliance), then a status.
func (d *desk) reconnect(dev dbus.ObjectPath) error {
	passkeys := d.piState().Passkeys
	if err := d.call(dev, "org.bluez.Device1.Disconnect"); err != nil {
		return fmt.Errorf("Disconnect: %w", err)
	}
	if err := d.waitPi("disconnect", 15*time.Second, func(p shared) bool { return !p.Link.Connected }); err != nil {
		return err
	}
	if err := d.connect(dev); err != nil {
		return err
	}
	if _, err := d.command(map[string]any{"cmd": "status"}, 15*time.Second); err != nil {
		return fmt.Errorf("first status after a bonded reconnect: %w", err)
	}
	if n := d.piState().Passkeys; n != passkeys {
		return errors.New("a bonded reconnect showed a passkey")
	}
	return nil
}
