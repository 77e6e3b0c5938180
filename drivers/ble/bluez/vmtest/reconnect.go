//go:build linux

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/godbus/dbus/v5"
)

// reconnectPrompt is the prompt pending on the desktop across the reconnect.
const reconnectPrompt = "req_vm_reconnect"

// heartbeat is the desktop's heartbeat, with prompt id pending ("" none).
func heartbeat(id string) string {
	h := map[string]any{"total": 1, "running": 0, "waiting": 0, "msg": "1 idle", "entries": []string{},
		"tokens": 0, "tokens_today": 0}
	if id != "" {
		h["waiting"], h["msg"] = 1, "approve: Bash"
		h["prompt"] = map[string]string{"id": id, "tool": "Bash", "hint": "make test"}
	}
	b, _ := json.Marshal(h)
	return string(b)
}

// reconnect is the desktop's every morning, with a prompt pending:
// disconnect, connect again, startNotifications() again (an unchanged CCC
// value for a bonded device, so bluetoothd calls no StartNotify on the
// appliance), then a status. Through it the prompt stays on the Pi's screen
// marked reconnecting, and A sends nothing, until the desktop's first
// heartbeat after the reconnect lists it again (spec §2.3, §5.4); then A
// answers it, once.
func (d *desk) reconnect(dev dbus.ObjectPath) error {
	passkeys := d.piState().Passkeys
	if c, _ := d.props(dev, "org.bluez.Device1")["Connected"].Value().(bool); !c || d.rxPath == "" {
		// Alone (VMTEST_ONLY), this scenario starts from the pairing.
		if err := d.connect(dev); err != nil {
			return fmt.Errorf("connecting before the drop: %w", err)
		}
	}
	if err := d.send(heartbeat(reconnectPrompt)); err != nil {
		return err
	}
	answerable := func(p shared) bool {
		return p.Shows == "approval" && p.Prompt.ID == reconnectPrompt && !p.Prompt.Reconnecting && !p.Prompt.Decided
	}
	if err := d.waitPi("the prompt answerable on the screen", 10*time.Second, answerable); err != nil {
		return err
	}
	if err := d.call(dev, "org.bluez.Device1.Disconnect"); err != nil {
		return fmt.Errorf("Disconnect: %w", err)
	}
	reconnecting := func(p shared) bool {
		return p.Shows == "approval" && p.Prompt.ID == reconnectPrompt && p.Prompt.Reconnecting
	}
	if err := d.waitPi("disconnect, with the prompt on the screen reconnecting", 15*time.Second, func(p shared) bool {
		return !p.Link.Connected && reconnecting(p)
	}); err != nil {
		return err
	}
	t0 := time.Now()
	if err := d.press("A"); err != nil {
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
	// Connected again, no heartbeat yet: still not answerable.
	if p := d.piState(); !reconnecting(p) {
		return fmt.Errorf("reconnected %.1fs after the drop, before any heartbeat: the screen shows %q, prompt %+v; want it reconnecting",
			time.Since(t0).Seconds(), p.Shows, p.Prompt)
	}
	if err := d.press("A"); err != nil {
		return err
	}
	// The real desktop's first heartbeat comes 8-10 s after a reconnect;
	// a bounded quiet time here shows the presses sent nothing meanwhile.
	time.Sleep(2 * time.Second)
	if perms := d.permissions(); len(perms) != 0 {
		return fmt.Errorf("A on a reconnecting prompt sent %q", perms)
	}
	logf("desk: reconnected %.1fs after the drop; the prompt held, A refused; sending the heartbeat", time.Since(t0).Seconds())
	if err := d.send(heartbeat(reconnectPrompt)); err != nil {
		return err
	}
	if err := d.waitPi("the prompt answerable again after the heartbeat", 10*time.Second, answerable); err != nil {
		return err
	}
	if err := d.press("A"); err != nil {
		return err
	}
	want := fmt.Sprintf(`{"cmd":"permission","id":%q,"decision":"once"}`, reconnectPrompt)
	if !waitFor(10*time.Second, func() bool { return len(d.permissions()) > 0 }) {
		return errors.New("no permission line within 10 s of A on the restored prompt")
	}
	// The desktop answers the session and sends a heartbeat without it.
	if err := d.send(heartbeat("")); err != nil {
		return err
	}
	if err := d.waitPi("the answered prompt gone", 10*time.Second, func(p shared) bool { return p.Prompt.ID == "" }); err != nil {
		return err
	}
	if perms := d.permissions(); !slices.Equal(perms, []string{want}) {
		return fmt.Errorf("permission lines %q, want exactly one: %s", perms, want)
	}
	return nil
}
