//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// unencrypted is a central that does not pair (its user refuses): GATT
// discovery works over the plain link, but the RX write and the TX CCCD
// write are answered Insufficient Authentication, bluetoothd's attempt to
// raise security fails on the refusal, and nothing reaches the appliance.
func (d *desk) unencrypted(addr string, dev dbus.ObjectPath) error {
	accept := d.refusing()
	defer func() {
		accept()
		_ = d.call(dev, "org.bluez.Device1.Disconnect")
		_ = d.call(deskAdapter, "org.bluez.Adapter1.RemoveDevice", dev)
	}()
	if err := d.forget(dev); err != nil {
		return err
	}
	// Each refused access makes bluetoothd try to pair, which the agent
	// refuses, and the link drops: one connection per access.
	mark := btmonSize()
	var errs []error
	for _, access := range []func() error{
		func() error {
			return d.callWithin(20*time.Second, d.txPath, "org.bluez.GattCharacteristic1.StartNotify")
		},
		func() error {
			return d.callWithin(20*time.Second, d.rxPath, "org.bluez.GattCharacteristic1.WriteValue", []byte("{\"cmd\":\"status\"}\n"), map[string]dbus.Variant{"type": dbus.MakeVariant("request")})
		},
	} {
		// A fresh device each time: bluetoothd 5.82 otherwise raises
		// security on the next connect by itself.
		if err := d.discover(addr, false, 30*time.Second); err != nil {
			return err
		}
		if err := d.connectWith(dev, true); err != nil {
			return fmt.Errorf("connecting without pairing: %w", err)
		}
		err := access()
		if err == nil {
			return errors.New("an unpaired central got through: the access succeeded")
		}
		errs = append(errs, err)
		_ = d.call(dev, "org.bluez.Device1.Disconnect")
		_ = d.call(deskAdapter, "org.bluez.Adapter1.RemoveDevice", dev)
		if err := d.waitPi("the refused central gone", 15*time.Second, func(p shared) bool { return !p.Link.Connected }); err != nil {
			return err
		}
	}
	werr, nerr := errs[1], errs[0]
	// The answers on the wire, from this guest's HCI trace.
	var refused int
	if !waitFor(10*time.Second, func() bool { refused = insufficientAuth(mark); return refused >= 2 }) {
		return fmt.Errorf("btmon shows %d Write Requests answered Insufficient Authentication, want 2 (the TX CCCD and RX); D-Bus said %v / %v", refused, nerr, werr)
	}
	logf("desk: unpaired RX write and CCCD write refused: %v / %v", werr, nerr)
	return d.waitPi("no bond and no secured link", 5*time.Second, func(p shared) bool { return p.Bonds == 0 && !p.Link.Secured })
}

const btmonLog = "/host/out/desk/btmon.txt"

func btmonSize() int64 {
	fi, err := os.Stat(btmonLog)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// insufficientAuth counts, in the HCI trace after offset, the ATT Error
// Responses to a Write Request that say Insufficient Authentication.
func insufficientAuth(offset int64) int {
	b, err := os.ReadFile(btmonLog)
	if err != nil || int64(len(b)) < offset {
		return 0
	}
	n := 0
	lines := strings.Split(string(b[offset:]), "\n")
	for i, l := range lines {
		if !strings.Contains(l, "ATT: Error Response (0x01)") || i+3 >= len(lines) {
			continue
		}
		block := strings.Join(lines[i+1:i+4], "\n")
		if strings.Contains(block, "Write Request (0x12)") && strings.Contains(block, "Insufficient Authentication (0x05)") {
			n++
		}
	}
	return n
}
