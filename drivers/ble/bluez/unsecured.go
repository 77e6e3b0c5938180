package bluez

import (
	"time"

	"github.com/godbus/dbus/v5"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

// DefaultSecureWithin is how long a central may stay connected in bonded
// mode without securing the link. The appliance serves one central at a
// time, so one that connects and never pairs (or never uses NUS) would
// otherwise hold the only connection and keep the desktop from
// reconnecting. 45 s leaves room for a first pairing (the kernel's SMP
// gives up after 30 s) and for a bonded desktop's first write: its
// keepalive comes at least every 11 s (buddy spec §3).
const DefaultSecureWithin = 45 * time.Second

// secured marks the link secured, once, and ends the wait for it. BlueZ
// calls WriteValue and StartNotify only once the link meets the secure-*
// flags, so either one means the link has Secure Connections encryption.
// It reports whether the link was not secured before. p.mu is held.
func (p *Peripheral) securedLocked() bool {
	if p.secured {
		return false
	}
	p.secured = true
	p.stopSecureWaitLocked()
	return true
}

// waitSecureLocked starts the wait for dev, the new central, to secure the
// link (bonded mode only: an open link is never secured). p.mu is held.
func (p *Peripheral) waitSecureLocked(dev dbus.ObjectPath) {
	p.stopSecureWaitLocked()
	if p.opts.Security != drv.Bonded || p.opts.SecureWithin < 0 {
		return
	}
	d := p.opts.SecureWithin
	p.secureWait = time.AfterFunc(d, func() { p.unsecuredTooLong(dev, d) })
}

func (p *Peripheral) stopSecureWaitLocked() {
	if p.secureWait != nil {
		p.secureWait.Stop()
		p.secureWait = nil
	}
}

// unsecuredTooLong disconnects dev if it is still the central and has not
// secured the link. bluetoothd then reports it gone (Connected: false), and
// we advertise again as after any disconnect.
func (p *Peripheral) unsecuredTooLong(dev dbus.ObjectPath, d time.Duration) {
	p.mu.Lock()
	still := p.central == dev && !p.secured && (p.ctx == nil || p.ctx.Err() == nil)
	p.mu.Unlock()
	if !still {
		return
	}
	p.log.Warn("disconnecting a central that did not secure the link: it held the only connection without pairing",
		"central", centralName(dev), "within", d)
	if err := p.call(dev, ifaceDevice+".Disconnect").Err; err != nil {
		p.log.Warn("disconnecting the unsecured central failed", "central", centralName(dev), "err", err)
	}
}
