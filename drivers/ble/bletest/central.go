package bletest

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

// errNoCentral is what the central-side calls return while nobody is
// connected: a real stack cannot deliver writes or subscriptions without a
// link, so such a script is a test bug.
var errNoCentral = errors.New("bletest: no central connected: call Connect first")

// Connect connects a central named central (an address such as
// "AA:BB:CC:DD:EE:FF"). The MTU starts at ble.DefaultMTU.
func (f *Fake) Connect(central string) error {
	if central == "" {
		return errors.New("bletest: Connect needs a central name")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.central != "" {
		return fmt.Errorf("bletest: central %s already connected; NUS serves one at a time", f.central)
	}
	f.central, f.mtu, f.subscribe, f.secured = central, drv.DefaultMTU, false, false
	f.push(drv.Connected{Central: central})
	return nil
}

// ExchangeMTU sets the link's ATT MTU, as the central's Exchange MTU
// request does, and reports MTUChanged.
func (f *Fake) ExchangeMTU(mtu int) error {
	if mtu < drv.DefaultMTU || mtu > MaxMTU {
		return fmt.Errorf("bletest: MTU %d out of range %d..%d", mtu, drv.DefaultMTU, MaxMTU)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.central == "" {
		return errNoCentral
	}
	f.mtu = mtu
	f.push(drv.MTUChanged{MTU: mtu})
	return nil
}

// Subscribe enables (on) or disables TX notifications, as a CCCD write does.
func (f *Fake) Subscribe(on bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.central == "" {
		return errNoCentral
	}
	f.subscribe = on
	f.push(drv.Subscribed{On: on})
	return nil
}

// Secure reports the link encrypted, as bluez does after pairing. A fake
// made with pairable false refuses, as hci and sim can never encrypt.
func (f *Fake) Secure() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.central == "" {
		return errNoCentral
	}
	if !f.pairable {
		return errors.New("bletest: Secure on a fake that cannot pair (NewFake(false))")
	}
	f.secured = true
	f.bonded[f.central] = true
	f.push(drv.Secured{Encrypted: true})
	return nil
}

// Write delivers one RX write. The fake keeps its own copy, so the caller
// may reuse p.
func (f *Fake) Write(p []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.central == "" {
		return errNoCentral
	}
	f.push(drv.Received{Data: append([]byte(nil), p...)})
	return nil
}

// WriteChunks writes p as the desktop does: slices of at most size bytes,
// cut at arbitrary byte offsets (buddy spec §3.2 uses 180).
func (f *Fake) WriteChunks(p []byte, size int) error {
	if size < 1 {
		return fmt.Errorf("bletest: chunk size %d must be at least 1", size)
	}
	for len(p) > 0 {
		n := min(size, len(p))
		if err := f.Write(p[:n]); err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

// Disconnect drops the central. Like bluez it reports Secured{false} first
// if the link was encrypted, then Disconnected; subscription and MTU reset.
func (f *Fake) Disconnect() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.central == "" {
		return errNoCentral
	}
	f.disconnect()
	return nil
}

// disconnect drops the connected central; f.mu must be held.
func (f *Fake) disconnect() {
	if f.secured {
		f.push(drv.Secured{Encrypted: false})
	}
	f.push(drv.Disconnected{Central: f.central})
	f.central, f.mtu, f.subscribe, f.secured = "", drv.DefaultMTU, false, false
}

// Push queues any event as is, for what the helpers above do not cover
// (Passkey, PairingDone, Advertising{On: false}). It changes no state.
func (f *Fake) Push(ev drv.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.push(ev)
}

// Drain waits until Run has handed every queued event to its receiver.
// It does not wait for the receiver to act on the last one.
func (f *Fake) Drain(ctx context.Context) error {
	for {
		f.mu.Lock()
		done, changed := f.taken == f.pushed, f.changed
		f.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("bletest: %d events not taken: %w", f.Pending(), ctx.Err())
		case <-changed:
		}
	}
}

// Pending is the number of events queued and not yet handed to Run's
// receiver: the writes a receiver that applies backpressure holds back.
func (f *Fake) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pushed - f.taken
}

// Notifications returns a copy of every notification sent so far, in order.
func (f *Fake) Notifications() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([][]byte, len(f.notes))
	for i, n := range f.notes {
		out[i] = append([]byte(nil), n...)
	}
	return out
}

// Sent returns all notifications concatenated: the TX byte stream the
// desktop would reassemble.
func (f *Fake) Sent() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return bytes.Join(f.notes, nil)
}

// NextNotification returns the oldest notification not yet returned by
// NextNotification, waiting for one until ctx ends.
func (f *Fake) NextNotification(ctx context.Context) ([]byte, error) {
	for {
		f.mu.Lock()
		changed := f.changed
		if f.read < len(f.notes) {
			n := append([]byte(nil), f.notes[f.read]...)
			f.read++
			f.mu.Unlock()
			return n, nil
		}
		f.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("bletest: waiting for a notification: %w", ctx.Err())
		case <-changed:
		}
	}
}

// FailNotify makes every later successful Notify return err instead (nil
// restores normal behaviour). Subscription and MTU checks still come first.
func (f *Fake) FailNotify(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notifyErr = err
}

// FailRemoveBonds makes RemoveBonds return err (nil restores success).
func (f *Fake) FailRemoveBonds(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bondsErr = err
}

// Bonds lists the centrals bonded now (each one that called Secure, until
// RemoveBonds), in no order.
func (f *Fake) Bonds() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for c := range f.bonded {
		out = append(out, c)
	}
	return out
}

// BondsRemoved counts RemoveBonds calls.
func (f *Fake) BondsRemoved() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bonds
}

// Connected reports the connected central, "" when none.
func (f *Fake) Connected() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.central
}
