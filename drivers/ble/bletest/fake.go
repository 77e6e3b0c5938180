// Package bletest provides Fake, a scripted ble.Peripheral for testing the
// code that owns a BLE link (the ble actor) without a radio or a socket.
//
// The test plays the central: Connect, ExchangeMTU, Subscribe, Write,
// Disconnect. Each call changes the link state at once (as a backend does
// the moment the stack tells it) and queues the matching ble.Events, which
// Run delivers in order. Everything the owner sends with Notify is recorded
// and can be read back with Notifications, Sent or NextNotification.
//
// Notify obeys the same rules as the real backends: ble.ErrNotSubscribed
// while no central has enabled notifications, and an error for anything
// longer than MTU()-3 bytes instead of a silent truncation.
package bletest

import (
	"context"
	"errors"
	"fmt"
	"sync"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

// MaxMTU is the largest ATT MTU a central may exchange (BLE 5, 517).
const MaxMTU = 517

// Fake is a scripted ble.Peripheral. Create it with NewFake; it is safe for
// concurrent use by the test and the code under test.
type Fake struct {
	mu        sync.Mutex
	changed   chan struct{} // closed and replaced on every state change
	pairable  bool
	running   bool
	queue     []drv.Event
	pushed    int // events queued so far
	taken     int // events handed to Run's receiver so far
	central   string
	mtu       int
	subscribe bool
	secured   bool
	notes     [][]byte
	read      int // notifications consumed by NextNotification
	notifyErr error
	bondsErr  error
	bonds     int             // RemoveBonds calls
	bonded    map[string]bool // centrals that paired (Secure), as bluez keeps them
}

var _ drv.Peripheral = (*Fake)(nil)

// NewFake returns a Fake with no central connected. pairable is what
// CanPair reports: true imitates the bluez backend, false hci and sim.
func NewFake(pairable bool) *Fake {
	return &Fake{changed: make(chan struct{}), pairable: pairable, mtu: drv.DefaultMTU, bonded: map[string]bool{}}
}

// String names the fake in logs.
func (f *Fake) String() string { return "bletest.Fake" }

// broadcast wakes every waiter; f.mu must be held.
func (f *Fake) broadcast() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// push queues events for Run; f.mu must be held.
func (f *Fake) push(evs ...drv.Event) {
	f.queue = append(f.queue, evs...)
	f.pushed += len(evs)
	f.broadcast()
}

// Run reports Advertising{On: true}, then delivers queued events in order
// until ctx ends. A second concurrent Run is an error, as it would be for a
// backend that owns one adapter.
func (f *Fake) Run(ctx context.Context, events chan<- drv.Event) error {
	f.mu.Lock()
	if f.running {
		f.mu.Unlock()
		return errors.New("bletest: Run called while already running")
	}
	f.running = true
	f.broadcast()
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.running = false
		f.broadcast()
		f.mu.Unlock()
	}()
	select {
	case <-ctx.Done():
		return nil
	case events <- drv.Advertising{On: true}:
	}
	for {
		f.mu.Lock()
		changed := f.changed
		var next drv.Event
		if len(f.queue) > 0 {
			next = f.queue[0]
		}
		f.mu.Unlock()
		if next == nil {
			select {
			case <-ctx.Done():
				return nil
			case <-changed:
				continue
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case events <- next:
		}
		f.mu.Lock()
		f.queue = f.queue[1:]
		f.taken++
		f.broadcast()
		f.mu.Unlock()
	}
}

// Notify records one notification, or fails the way a backend would.
func (f *Fake) Notify(p []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.central == "" || !f.subscribe {
		return drv.ErrNotSubscribed
	}
	if len(p) > f.mtu-3 {
		return fmt.Errorf("bletest: notification of %d bytes exceeds MTU %d - 3: chunk it with protocols/nus", len(p), f.mtu)
	}
	if f.notifyErr != nil {
		return f.notifyErr
	}
	f.notes = append(f.notes, append([]byte(nil), p...))
	f.broadcast()
	return nil
}

// MTU is the MTU of the current link; ble.DefaultMTU until ExchangeMTU.
func (f *Fake) MTU() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mtu
}

// RemoveBonds counts the call and returns the error set by
// FailRemoveBonds, or else forgets every bond and returns how many there
// were. Like bluez, removing the connected central's bond drops its link.
// A fake that cannot pair returns ble.ErrNoBonds, as hci and sim do.
func (f *Fake) RemoveBonds() (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bonds++
	switch {
	case f.bondsErr != nil:
		return 0, f.bondsErr
	case !f.pairable:
		return 0, drv.ErrNoBonds
	}
	n := len(f.bonded)
	if f.central != "" && f.bonded[f.central] {
		f.disconnect()
	}
	clear(f.bonded)
	f.broadcast()
	return n, nil
}

// CanPair reports what NewFake was given.
func (f *Fake) CanPair() bool { return f.pairable }
