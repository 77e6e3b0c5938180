//go:build linux

package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// screenForget is /api/state's "forget": the forget-pairing flow.
type screenForget struct {
	Step    string `json:"step"`
	Removed int    `json:"removed"`
	NoBonds bool   `json:"noBonds"`
	Err     string `json:"err"`
}

// longPress is the sim's long press (sim.LongPress is 500 ms), begun after
// what is on the screen now showed: the ui takes no hold begun before.
const longPress = 600 * time.Millisecond

func (d *desk) hold(button string) error {
	time.Sleep(longPress + 200*time.Millisecond)
	n, err := d.ask(request{Press: button, HoldMs: int(longPress.Milliseconds())})
	if err != nil {
		return err
	}
	return d.waitPi("hold of "+button, 10*time.Second, func(p shared) bool { return p.Requests >= n })
}

// forgetFromButtons is the user whose pairing is stuck: on the Pi, next to
// the Links page, hold approve, hold approve again. bluetoothd on the pi
// must then hold no bond and advertise; the desk's old bond no longer
// opens the link; the desk forgets the Pi (Forget, remove in the OS) and a
// new pairing with the passkey off the screen works.
func (d *desk) forgetFromButtons(addr string, dev dbus.ObjectPath) error {
	// Bonded, connected and subscribed, whatever ran before (VMTEST_ONLY
	// may leave out every scenario but the first pairing).
	if err := d.connect(dev); err != nil {
		return fmt.Errorf("connecting with the bond: %w", err)
	}
	if err := d.waitPi("a bonded, connected desk to start from", 15*time.Second, func(p shared) bool {
		return p.Bonds == 1 && p.Link.Connected && p.Link.Secured
	}); err != nil {
		return err
	}
	if err := d.press("X"); err != nil {
		return err
	}
	if err := d.waitPi("the Links page", 5*time.Second, func(p shared) bool { return p.Shows == "info" }); err != nil {
		return err
	}
	if err := d.hold("A"); err != nil {
		return err
	}
	if err := d.waitPi("Forget Bluetooth pairing? on the screen", 5*time.Second, func(p shared) bool {
		return p.Shows == "forget" && p.Forget != nil && p.Forget.Step == "asking"
	}); err != nil {
		return err
	}
	if p := d.piState(); p.Bonds != 1 {
		return fmt.Errorf("the question alone changed the bonds: %d", p.Bonds)
	}
	if err := d.hold("A"); err != nil {
		return err
	}
	if err := d.waitPi("the result on the screen, one bond forgotten", 20*time.Second, func(p shared) bool {
		return p.Forget != nil && p.Forget.Step == "done"
	}); err != nil {
		return err
	}
	if f := d.piState().Forget; f == nil || f.Removed != 1 || f.Err != "" || f.NoBonds {
		return fmt.Errorf("the screen says %+v, want 1 bond forgotten", f)
	}
	if err := d.waitPi("no bond on the pi's bluetoothd, the desk dropped, advertising", 20*time.Second, func(p shared) bool {
		return p.Bonds == 0 && !p.Link.Connected && p.Adverts["hci0"] == 1
	}); err != nil {
		return err
	}
	if err := d.staleBondRefused(dev); err != nil {
		return err
	}
	// The computer's side, as the screen says: Forget, remove the device.
	_ = d.call(dev, "org.bluez.Device1.Disconnect")
	if err := d.call(deskAdapter, "org.bluez.Adapter1.RemoveDevice", dev); err != nil {
		return fmt.Errorf("RemoveDevice on the desk: %w", err)
	}
	if err := d.waitPi("the desk gone", 15*time.Second, func(p shared) bool { return !p.Link.Connected }); err != nil {
		return err
	}
	if err := d.discover(addr, false, 30*time.Second); err != nil {
		return fmt.Errorf("advertising after forgetting: %w", err)
	}
	if err := d.pair(dev); err != nil {
		return fmt.Errorf("pairing afresh: %w", err)
	}
	if err := d.connect(dev); err != nil {
		return err
	}
	if err := d.securedStatus("the new pairing"); err != nil {
		return err
	}
	return d.waitPi("the new bond on the pi", 10*time.Second, func(p shared) bool { return p.Bonds == 1 && p.Link.Secured })
}

// staleBondRefused reconnects with the desk's old key, which the pi no
// longer has: the desk's encryption with it fails "PIN or Key Missing" on
// the wire (its HCI trace) and the link never becomes secured. The agent
// refuses meanwhile, so bluetoothd cannot turn the attempt into a new
// pairing behind the test's back.
func (d *desk) staleBondRefused(dev dbus.ObjectPath) error {
	defer d.refusing()()
	mark := btmonSize()
	cerr := d.callWithin(20*time.Second, dev, "org.bluez.Device1.Connect")
	var missing int
	if !waitFor(10*time.Second, func() bool { missing = keyMissing(mark); return missing >= 1 }) {
		return fmt.Errorf("btmon shows no encryption refused with PIN or Key Missing after the pi forgot the bond (Connect: %v)", cerr)
	}
	if p := d.piState(); p.Link.Secured || p.Bonds != 0 {
		return fmt.Errorf("after the old key's attempt the pi shows secured %v, bonds %d: want neither", p.Link.Secured, p.Bonds)
	}
	logf("desk: the old bond is refused: %d encryption attempt(s) answered PIN or Key Missing (Connect: %v)", missing, cerr)
	return nil
}

// keyMissing counts, in the HCI trace after offset, the Encryption Change
// events that say the peer had no key for us.
func keyMissing(offset int64) int {
	b, err := os.ReadFile(btmonLog)
	if err != nil || int64(len(b)) < offset {
		return 0
	}
	lines := strings.Split(string(b[offset:]), "\n")
	n := 0
	for i, l := range lines {
		if strings.Contains(l, "HCI Event: Encryption") && i+1 < len(lines) && strings.Contains(lines[i+1], "PIN or Key Missing (0x06)") {
			n++
		}
	}
	return n
}
