package ble

import (
	"context"
	"errors"
	"sync"
)

// Reopening is a Peripheral opened afresh by each Run. The ble actor runs
// its Peripheral again after every restart, but a backend is good for one
// Run: the sim closes its listener when Run returns, and only a new D-Bus
// connection recovers from a restarted dbus-daemon. Between runs Notify
// reports no subscriber.
type Reopening struct {
	// Open makes the Peripheral for one Run and returns what releases it
	// after the Run.
	Open func() (Peripheral, func(), error)
	// Pairs is what CanPair reports: it must be known before the first
	// Open, for the actor's first LinkState.
	Pairs bool
	// IdleMTU is the MTU reported between runs; zero means DefaultMTU.
	IdleMTU int

	mu  sync.Mutex
	cur Peripheral
}

var _ Peripheral = (*Reopening)(nil)

// Run opens a Peripheral, runs it until ctx ends or it fails, and
// releases it.
func (r *Reopening) Run(ctx context.Context, events chan<- Event) error {
	p, release, err := r.Open()
	if err != nil {
		return err
	}
	defer release()
	r.set(p)
	defer r.set(nil)
	return p.Run(ctx, events)
}

func (r *Reopening) set(p Peripheral) {
	r.mu.Lock()
	r.cur = p
	r.mu.Unlock()
}

func (r *Reopening) current() Peripheral {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur
}

// Notify implements Peripheral.
func (r *Reopening) Notify(b []byte) error {
	if p := r.current(); p != nil {
		return p.Notify(b)
	}
	return ErrNotSubscribed
}

// MTU implements Peripheral.
func (r *Reopening) MTU() int {
	if p := r.current(); p != nil {
		return p.MTU()
	}
	if r.IdleMTU != 0 {
		return r.IdleMTU
	}
	return DefaultMTU
}

// RemoveBonds implements Peripheral. Between runs a link that pairs
// cannot reach its bonds; one that never pairs has none to remove.
func (r *Reopening) RemoveBonds() (int, error) {
	if p := r.current(); p != nil {
		return p.RemoveBonds()
	}
	if !r.Pairs {
		return 0, ErrNoBonds
	}
	return 0, errors.New("ble: the link is not running (restarting?); cannot remove bonds now: try again in a few seconds")
}

// CanPair implements Peripheral.
func (r *Reopening) CanPair() bool { return r.Pairs }
