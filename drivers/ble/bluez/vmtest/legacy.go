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

// A central that offers only LE legacy pairing (its controller's Secure
// Connections off, `btmgmt sc off`), whose key anyone who sniffed the
// pairing can recover. The image's bluetoothd (SecureConnections = only,
// i.e. mgmt `sc only`) refuses the pairing itself; a bluetoothd left at
// BlueZ's default (`sc on`, as on Raspberry Pi OS) lets it pair, and then
// claude-pi's secure-write/secure-notify flags refuse every NUS access.

// legacyOnly starts from no bond with dev and turns Secure Connections off
// on the desk's controller until the returned func turns it back on.
func (d *desk) legacyOnly(dev dbus.ObjectPath) (restore func(), err error) {
	if err := d.unbonded(dev); err != nil {
		return nil, err
	}
	if err := deskSC("off"); err != nil {
		return nil, err
	}
	return func() {
		if err := deskSC("on"); err != nil {
			logf("desk: %v", err)
		}
	}, nil
}

// deskSC sets Secure Connections on the desk's own controller (hci0).
func deskSC(mode string) error {
	err := setSC(0, mode)
	logf("desk: sc %s: %v", mode, err)
	return err
}

// piSC sets the pi's adapter's Secure Connections mode ("only" or "on").
func (d *desk) piSC(mode string) error {
	n, err := d.ask(request{SC: mode})
	if err != nil {
		return err
	}
	return d.waitPi("the pi's adapter in sc "+mode, 15*time.Second, func(p shared) bool { return p.Requests >= n })
}

// legacyPairingRefused: with the image's SecureConnections = only, the
// legacy-only central cannot pair at all, and no passkey is shown.
func (d *desk) legacyPairingRefused(addr string, dev dbus.ObjectPath) error {
	restore, err := d.legacyOnly(dev)
	if err != nil {
		return err
	}
	defer restore()
	if err := d.piSC("only"); err != nil {
		return err
	}
	defer func() {
		if err := d.piSC("on"); err != nil {
			logf("desk: %v", err)
		}
	}()
	defer d.dropDevice(dev)
	if err := d.discover(addr, false, 30*time.Second); err != nil {
		return err
	}
	mark, passkeys := btmonSize(), d.piState().Passkeys
	err = d.pair(dev)
	if err == nil {
		return errors.New("a legacy-only central paired with the SC-only appliance")
	}
	logf("desk: legacy pairing refused: %v", err)
	if paired, _ := d.props(dev, "org.bluez.Device1")["Paired"].Value().(bool); paired {
		return errors.New("the desk says Paired after a refused pairing")
	}
	if err := smpTrace(mark, "Legacy", "Pairing Failed"); err != nil {
		return err
	}
	if n := d.piState().Passkeys; n != passkeys {
		return fmt.Errorf("the screen showed %d passkey(s) for a pairing it must refuse", n-passkeys)
	}
	return d.waitPi("no bond", 5*time.Second, func(p shared) bool { return p.Bonds == 0 && !p.Link.Secured })
}

// legacyBondRefusedByGATT: with BlueZ's default sc on, the legacy-only
// central pairs by passkey, and still cannot subscribe to TX or write RX:
// the link is not Secure Connections (BT_SECURITY_FIPS), so bluetoothd
// answers Insufficient Authentication and nothing reaches the appliance.
func (d *desk) legacyBondRefusedByGATT(addr string, dev dbus.ObjectPath) error {
	restore, err := d.legacyOnly(dev)
	if err != nil {
		return err
	}
	defer restore()
	defer func() {
		d.dropDevice(dev)
		if n, err := d.ask(request{RemoveBonds: true}); err == nil {
			_ = d.waitPi("the legacy bond removed on the pi", 15*time.Second, func(p shared) bool { return p.Requests >= n && p.Bonds == 0 })
		}
	}()
	if err := d.discover(addr, false, 30*time.Second); err != nil {
		return err
	}
	mark := btmonSize()
	if err := d.pair(dev); err != nil {
		return fmt.Errorf("legacy pairing with sc on (BlueZ's default) failed, so this proves nothing about the GATT flags: %w", err)
	}
	if err := smpTrace(mark, "Legacy", ""); err != nil {
		return err
	}
	// A raise of security after the refusal would pair again; the user
	// does not take part in that.
	accept := d.refusing()
	defer accept()
	if err := d.connectWith(dev, true); err != nil {
		return fmt.Errorf("connecting with the legacy bond: %w", err)
	}
	mark = btmonSize()
	if err := d.callWithin(20*time.Second, d.txPath, "org.bluez.GattCharacteristic1.StartNotify"); err == nil {
		return errors.New("a legacy-paired central subscribed to TX")
	}
	_ = d.call(dev, "org.bluez.Device1.Connect") // the refusal may have dropped the link
	if err := d.callWithin(20*time.Second, d.rxPath, "org.bluez.GattCharacteristic1.WriteValue", []byte("{\"cmd\":\"status\"}\n"),
		map[string]dbus.Variant{"type": dbus.MakeVariant("request")}); err == nil {
		return errors.New("a legacy-paired central wrote RX")
	}
	var refused int
	if !waitFor(10*time.Second, func() bool { refused = insufficientAuth(mark); return refused >= 2 }) {
		return fmt.Errorf("btmon shows %d Write Requests answered Insufficient Authentication, want 2 (TX CCCD, RX)", refused)
	}
	return d.waitPi("no secured link, not subscribed", 5*time.Second, func(p shared) bool { return !p.Link.Secured && !p.Link.Subscribed })
}

// unsecuredDropped: a central that connects, never pairs and never uses
// NUS is disconnected by the appliance after about 45 s (it would
// otherwise hold the only connection), and the appliance advertises again.
func (d *desk) unsecuredDropped(addr string, dev dbus.ObjectPath) error {
	if err := d.unbonded(dev); err != nil {
		return err
	}
	accept := d.refusing()
	defer accept()
	defer d.dropDevice(dev)
	if err := d.discover(addr, false, 30*time.Second); err != nil {
		return err
	}
	mark := btmonSize()
	t0 := time.Now()
	if err := d.connectWith(dev, true); err != nil {
		return fmt.Errorf("connecting without pairing: %w", err)
	}
	if !waitFor(90*time.Second, func() bool {
		c, _ := d.props(dev, "org.bluez.Device1")["Connected"].Value().(bool)
		return !c
	}) {
		return errors.New("the unsecured central is still connected after 90 s")
	}
	held := time.Since(t0)
	logf("desk: the appliance dropped the unsecured central after %.1fs", held.Seconds())
	if held < 40*time.Second || held > 75*time.Second {
		return fmt.Errorf("dropped after %.1fs, want about 45 s", held.Seconds())
	}
	if !waitFor(10*time.Second, func() bool { return traceHas(mark, "Remote User Terminated Connection") }) {
		return errors.New("btmon shows no disconnect by the appliance (Remote User Terminated Connection)")
	}
	return d.waitPi("advertising again, no central", 15*time.Second, func(p shared) bool {
		return !p.Link.Connected && p.Adverts["hci0"] == 1 && p.Bonds == 0
	})
}

// unbonded starts a scenario from no bond on either side: a bond left by
// an earlier scenario (or the first pairing, under VMTEST_ONLY) is
// forgotten as the desktop does.
func (d *desk) unbonded(dev dbus.ObjectPath) error {
	if paired, _ := d.props(dev, "org.bluez.Device1")["Paired"].Value().(bool); paired {
		// The unpair command goes over NUS: connect (again) to find it.
		if err := d.connect(dev); err != nil {
			return fmt.Errorf("connecting to send unpair: %w", err)
		}
		return d.forget(dev)
	}
	d.dropDevice(dev)
	return nil
}

// dropDevice disconnects dev and removes it on the desk.
func (d *desk) dropDevice(dev dbus.ObjectPath) {
	_ = d.call(dev, "org.bluez.Device1.Disconnect")
	_ = d.call(deskAdapter, "org.bluez.Adapter1.RemoveDevice", dev)
	_ = d.waitPi("the central gone", 15*time.Second, func(p shared) bool { return !p.Link.Connected })
}

// smpTrace checks the desk's HCI trace after offset: its Pairing Request
// says Legacy (no Secure Connections bit), and failed is there if given.
func smpTrace(offset int64, legacy, failed string) error {
	b, _ := os.ReadFile(btmonLog)
	if int64(len(b)) < offset {
		return errors.New("btmon trace shrank")
	}
	lines := strings.Split(string(b[offset:]), "\n")
	var req bool
	for i, l := range lines {
		if strings.Contains(l, "SMP: Pairing Request") && i+4 < len(lines) {
			req = req || strings.Contains(strings.Join(lines[i+1:i+5], "\n"), legacy)
		}
	}
	if !req {
		return fmt.Errorf("btmon shows no SMP Pairing Request with %q: the desk did not offer legacy pairing only", legacy)
	}
	if failed != "" && !strings.Contains(string(b[offset:]), failed) {
		return fmt.Errorf("btmon shows no SMP %q", failed)
	}
	return nil
}

func traceHas(offset int64, s string) bool {
	b, _ := os.ReadFile(btmonLog)
	return int64(len(b)) >= offset && strings.Contains(string(b[offset:]), s)
}
