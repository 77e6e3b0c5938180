//go:build linux

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// discover scans until the appliance's advert is seen afresh at addr.
// With filter, bluetoothd reports only adverts that carry the NUS UUID,
// as CoreBluetooth's withServices: and Web Bluetooth filters do.
func (d *desk) discover(addr string, filter bool, wait time.Duration) error {
	dev := devicePath(addr)
	f := map[string]dbus.Variant{"Transport": dbus.MakeVariant("le"), "DuplicateData": dbus.MakeVariant(true)}
	if filter {
		f["UUIDs"] = dbus.MakeVariant([]string{uuidNUS})
	}
	if err := d.call(deskAdapter, "org.bluez.Adapter1.SetDiscoveryFilter", f); err != nil {
		return fmt.Errorf("SetDiscoveryFilter: %w", err)
	}
	if err := d.call(deskAdapter, "org.bluez.Adapter1.StartDiscovery"); err != nil {
		return fmt.Errorf("StartDiscovery: %w", err)
	}
	defer d.call(deskAdapter, "org.bluez.Adapter1.StopDiscovery")
	var p map[string]dbus.Variant
	if !waitFor(wait, func() bool {
		p = d.props(dev, "org.bluez.Device1")
		name, _ := p["Name"].Value().(string)
		uuids, _ := p["UUIDs"].Value().([]string)
		_, fresh := p["RSSI"]
		return fresh && name == "Claude_Pi" && slices.Contains(uuids, uuidNUS)
	}) {
		return fmt.Errorf("no advert of Claude_Pi with the NUS UUID from %s within %v (device: %v)", addr, wait, p)
	}
	return nil
}

// pair pairs as the desktop does: the OS starts pairing, the agent types
// the passkey off the appliance's screen.
func (d *desk) pair(dev dbus.ObjectPath) error {
	before := d.piState().Passkeys
	if err := d.call(dev, "org.bluez.Device1.Pair"); err != nil {
		return fmt.Errorf("Pair: %w", err)
	}
	p := d.props(dev, "org.bluez.Device1")
	if paired, _ := p["Paired"].Value().(bool); !paired {
		return fmt.Errorf("Pair returned but Paired is %v", p["Paired"])
	}
	if d.piState().Passkeys <= before {
		return errors.New("paired without a passkey on the screen")
	}
	return nil
}

// connect connects and finds NUS, then enables TX notifications (the
// desktop's startNotifications()).
func (d *desk) connect(dev dbus.ObjectPath) error { return d.connectWith(dev, false) }

// connectWith refuse does not enable notifications: the caller probes them.
func (d *desk) connectWith(dev dbus.ObjectPath, refuse bool) error {
	for attempt := 1; ; attempt++ {
		resolved, err := d.connectOnce(dev)
		if err != nil {
			return err
		}
		if resolved {
			break
		}
		if attempt == 2 {
			return errors.New("the link dropped twice before services resolved")
		}
		// Seen once on a bonded reconnect with BlueZ 5.66 (kernel 6.1):
		// the central encrypts the link with its LTK 130 ms before the
		// pi's bluetoothd attaches the ATT bearer; device_attach_att() then
		// raises the socket's security, setsockopt(BT_SECURITY) fails with
		// EINVAL, bluetoothd drops the bearer without answering the MTU
		// request, and the kernel ends the idle link 4 s later. claude-pi
		// never sees that bearer. The desktop reconnects by itself after 2 s
		// (spec §2.3); so does this desk, once, and says so.
		logf("desk: the link dropped before services resolved (the pi's bluetoothd failed to attach ATT?); connecting again after 2 s, as the desktop does")
		d.mu.Lock()
		d.retries++
		d.mu.Unlock()
		time.Sleep(2 * time.Second)
	}
	var objs objects
	if err := d.bus.Object("org.bluez", "/").Call("org.freedesktop.DBus.ObjectManager.GetManagedObjects", 0).Store(&objs); err != nil {
		return err
	}
	var rx, tx dbus.ObjectPath
	for p, ifaces := range objs {
		c, ok := ifaces["org.bluez.GattCharacteristic1"]
		if !ok || !strings.HasPrefix(string(p), string(dev)+"/") {
			continue
		}
		switch c["UUID"].Value() {
		case uuidRX:
			rx = p
		case uuidTX:
			tx = p
		}
	}
	if rx == "" || tx == "" {
		return errors.New("NUS RX/TX not found on the appliance")
	}
	d.mu.Lock()
	d.rxPath, d.txPath, d.partial = rx, tx, nil
	d.mu.Unlock()
	for len(d.lines) > 0 {
		<-d.lines
	}
	if refuse {
		return nil
	}
	if err := d.call(tx, "org.bluez.GattCharacteristic1.StartNotify"); err != nil {
		return fmt.Errorf("StartNotify: %w", err)
	}
	return nil
}

// connectOnce connects and waits until services resolve (true) or the link
// drops before they do (false), for at most 45 s.
func (d *desk) connectOnce(dev dbus.ObjectPath) (bool, error) {
	if err := d.call(dev, "org.bluez.Device1.Connect"); err != nil && !isDBusError(err, "org.bluez.Error.AlreadyConnected") {
		return false, fmt.Errorf("Connect: %w", err)
	}
	var resolved, dropped bool
	t0 := time.Now()
	if !waitFor(45*time.Second, func() bool {
		p := d.props(dev, "org.bluez.Device1")
		resolved, _ = p["ServicesResolved"].Value().(bool)
		connected, _ := p["Connected"].Value().(bool)
		// Connected can lag Connect's reply: a drop counts after 1 s.
		dropped = !connected && time.Since(t0) > time.Second
		return resolved || dropped
	}) {
		return false, errors.New("services not resolved within 45 s")
	}
	return resolved, nil
}

// send writes one line in 180-byte slices, as the desktop does (§3.2).
func (d *desk) send(line string) error {
	b := []byte(line + "\n")
	for len(b) > 0 {
		n := min(len(b), 180)
		if err := d.call(d.rxPath, "org.bluez.GattCharacteristic1.WriteValue", b[:n], map[string]dbus.Variant{"type": dbus.MakeVariant("request")}); err != nil {
			return fmt.Errorf("WriteValue: %w", err)
		}
		b = b[n:]
	}
	return nil
}

// command sends a command and waits for its ack.
func (d *desk) command(cmd map[string]any, wait time.Duration) (map[string]any, error) {
	b, _ := json.Marshal(cmd)
	if err := d.send(string(b)); err != nil {
		return nil, err
	}
	deadline := time.After(wait)
	for {
		select {
		case line := <-d.lines:
			var ack map[string]any
			if json.Unmarshal(line, &ack) == nil && ack["ack"] == cmd["cmd"] {
				if ok, _ := ack["ok"].(bool); !ok {
					return ack, fmt.Errorf("ack %s", line)
				}
				return ack, nil
			}
		case <-deadline:
			return nil, fmt.Errorf("no %v ack within %v", cmd["cmd"], wait)
		}
	}
}
