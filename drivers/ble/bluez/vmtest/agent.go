//go:build linux

package main

import (
	"fmt"
	"runtime"
	"strconv"
	"time"

	"github.com/godbus/dbus/v5"
)

// refusing makes the agent refuse to pair, as a user who cancels, until the
// returned func is called; that func also forgets the passkeys the pi showed
// meanwhile, so the next pairing waits for a fresh one.
func (d *desk) refusing() (accept func()) {
	d.mu.Lock()
	d.refuse = true
	d.mu.Unlock()
	return func() {
		seen := d.piState().Passkeys // piState locks d.mu itself
		d.mu.Lock()
		d.refuse, d.passkeys = false, seen
		d.mu.Unlock()
	}
}

// deskAgent types the passkey the pi's screen shows, as the user would.
type deskAgent struct{ d *desk }

func (a deskAgent) Release() *dbus.Error { return nil }
func (a deskAgent) RequestPasskey(dev dbus.ObjectPath) (uint32, *dbus.Error) {
	logf("desk: agent asked for a passkey")
	defer stuck("the agent's RequestPasskey", 35*time.Second)()
	a.d.mu.Lock()
	refuse := a.d.refuse
	a.d.mu.Unlock()
	if refuse {
		logf("desk: agent refuses to pair")
		return 0, dbus.NewError("org.bluez.Error.Rejected", nil)
	}
	code, err := a.d.freshPasskey(30 * time.Second)
	if err != nil {
		logf("desk: agent: %v", err)
		return 0, dbus.NewError("org.bluez.Error.Canceled", []any{err.Error()})
	}
	// Base 10 always: the screen zero-pads ("062152"), which fmt.Sscan
	// would read as octal.
	n, perr := strconv.ParseUint(code, 10, 32)
	if perr != nil {
		return 0, dbus.NewError("org.bluez.Error.Canceled", []any{perr.Error()})
	}
	logf("desk: agent types passkey %s", code)
	return uint32(n), nil
}
func (a deskAgent) RequestPinCode(dev dbus.ObjectPath) (string, *dbus.Error) {
	return "", dbus.NewError("org.bluez.Error.Rejected", nil)
}
func (a deskAgent) DisplayPasskey(dev dbus.ObjectPath, passkey uint32, entered uint16) *dbus.Error {
	return nil
}
func (a deskAgent) DisplayPinCode(dev dbus.ObjectPath, pin string) *dbus.Error { return nil }
func (a deskAgent) RequestConfirmation(dev dbus.ObjectPath, passkey uint32) *dbus.Error {
	logf("desk: agent was asked to confirm %06d: the appliance must not offer numeric comparison", passkey)
	return dbus.NewError("org.bluez.Error.Rejected", nil)
}
func (a deskAgent) RequestAuthorization(dev dbus.ObjectPath) *dbus.Error {
	return dbus.NewError("org.bluez.Error.Rejected", nil)
}
func (a deskAgent) AuthorizeService(dev dbus.ObjectPath, uuid string) *dbus.Error { return nil }
func (a deskAgent) Cancel() *dbus.Error                                           { return nil }

// stuck logs every goroutine's stack if the caller has not returned (called
// the func it gets) within d: a BlueZ 5.82 run once saw RequestPasskey
// answer 90 s late, after the pairing had timed out, with nothing to say
// where it waited.
func stuck(what string, d time.Duration) (done func()) {
	t := time.AfterFunc(d, func() {
		buf := make([]byte, 1<<20)
		logf("desk: %s has not returned after %v; goroutines:\n%s", what, d, buf[:runtime.Stack(buf, true)])
	})
	return func() { t.Stop() }
}

// freshPasskey waits for a passkey the screen has not shown before.
func (d *desk) freshPasskey(wait time.Duration) (string, error) {
	d.mu.Lock()
	seen := d.passkeys
	d.mu.Unlock()
	var pi shared
	if !waitFor(wait, func() bool {
		pi = d.piState()
		return pi.Passkeys > seen && pi.Link.Passkey != ""
	}) {
		return "", fmt.Errorf("no new passkey on the appliance's screen within %v", wait)
	}
	d.mu.Lock()
	d.passkeys = pi.Passkeys
	d.mu.Unlock()
	return pi.Passkey, nil
}
