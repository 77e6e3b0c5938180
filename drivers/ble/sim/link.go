package sim

import (
	"net"
	"sync"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

// Link is the sim backend for the supervised ble actor: a ble.Reopening
// that serves each Run on a fresh Peripheral (one closes its listener when
// Run returns). The first Run takes the listener opened up front, so
// "address in use" stops start-up instead of sending the ble service into
// BACKOFF; later runs listen again at the same address.
type Link struct {
	*drv.Reopening
	addr string

	mu    sync.Mutex
	first net.Listener // taken by the first Run
}

// NewLink serves on ln, opened from addr. A TCP port 0 is pinned to the
// port ln got, so a restarted ble service listens where clients connected.
func NewLink(ln net.Listener, addr string, opts Options) *Link {
	if a, ok := ln.Addr().(*net.TCPAddr); ok {
		addr = a.String()
	}
	l := &Link{addr: addr, first: ln}
	mtu := opts.MTU
	if mtu == 0 {
		mtu = DefaultMTU
	}
	l.Reopening = &drv.Reopening{IdleMTU: mtu, Open: func() (drv.Peripheral, func(), error) {
		ln, err := l.listener()
		if err != nil {
			return nil, nil, err
		}
		p, err := New(ln, &opts)
		if err != nil {
			_ = ln.Close()
			return nil, nil, err
		}
		return p, func() {}, nil // Run closed the listener
	}}
	return l
}

func (l *Link) listener() (net.Listener, error) {
	l.mu.Lock()
	ln := l.first
	l.first = nil
	l.mu.Unlock()
	if ln != nil {
		return ln, nil
	}
	return Listen(l.addr)
}

// Addr is the address clients dial: host:port or unix:/path.
func (l *Link) Addr() string { return l.addr }

// Close releases a listener no Run has taken (start-up failed early).
func (l *Link) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first != nil {
		_ = l.first.Close()
		l.first = nil
	}
}
