package main

import (
	"context"
	"net"
	"sync"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
	blesim "github.com/claude-pi/claude-pi/drivers/ble/sim"
)

// simLink is the sim BLE backend for the supervised ble actor. A
// blesim.Peripheral closes its listener when Run returns, but the ble
// actor runs the same Peripheral again after every restart; simLink gives
// each Run a fresh Peripheral. The first Run uses the listener serve opened
// up front, so "address in use" stops start-up instead of sending the ble
// service into BACKOFF.
type simLink struct {
	addr string
	opts blesim.Options

	mu    sync.Mutex
	first net.Listener // consumed by the first Run
	cur   *blesim.Peripheral
}

var _ drv.Peripheral = (*simLink)(nil)

// newSimLink serves on ln, opened from addr. A TCP port 0 is pinned to the
// port ln got, so a restarted ble service listens where clients connected.
func newSimLink(ln net.Listener, addr string, opts blesim.Options) *simLink {
	if a, ok := ln.Addr().(*net.TCPAddr); ok {
		addr = a.String()
	}
	return &simLink{addr: addr, opts: opts, first: ln}
}

// Addr is the address clients dial: host:port or unix:/path.
func (l *simLink) Addr() string { return l.addr }

// Run implements drv.Peripheral.
func (l *simLink) Run(ctx context.Context, events chan<- drv.Event) error {
	l.mu.Lock()
	ln := l.first
	l.first = nil
	l.mu.Unlock()
	if ln == nil {
		var err error
		if ln, err = blesim.Listen(l.addr); err != nil {
			return err
		}
	}
	p, err := blesim.New(ln, &l.opts)
	if err != nil {
		_ = ln.Close()
		return err
	}
	l.mu.Lock()
	l.cur = p
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.cur = nil
		l.mu.Unlock()
	}()
	return p.Run(ctx, events)
}

// Close releases a listener no Run has taken (start-up failed early).
func (l *simLink) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first != nil {
		_ = l.first.Close()
		l.first = nil
	}
}

func (l *simLink) current() *blesim.Peripheral {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cur
}

// Notify implements drv.Peripheral.
func (l *simLink) Notify(b []byte) error {
	if p := l.current(); p != nil {
		return p.Notify(b)
	}
	return drv.ErrNotSubscribed
}

// MTU implements drv.Peripheral.
func (l *simLink) MTU() int {
	if l.opts.MTU != 0 {
		return l.opts.MTU
	}
	return blesim.DefaultMTU
}

// RemoveBonds implements drv.Peripheral: the simulator has none.
func (l *simLink) RemoveBonds() error { return nil }

// CanPair implements drv.Peripheral: a socket is never encrypted.
func (l *simLink) CanPair() bool { return false }
