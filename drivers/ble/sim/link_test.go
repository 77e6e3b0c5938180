package sim

import (
	"context"
	"net"
	"testing"
	"time"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

// TestLinkServesEveryRunAtOneAddress: the first Run uses the listener
// opened up front, a second Run (the ble actor restarted) listens again on
// the same pinned port, and a client reaches both.
func TestLinkServesEveryRunAtOneAddress(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := NewLink(ln, "127.0.0.1:0", Options{MTU: 100})
	if l.Addr() == "127.0.0.1:0" || l.CanPair() || l.MTU() != 100 {
		t.Fatalf("addr %s, CanPair %v, idle MTU %d", l.Addr(), l.CanPair(), l.MTU())
	}
	for run := 1; run <= 2; run++ {
		ctx, cancel := context.WithCancel(context.Background())
		events := make(chan drv.Event, 16)
		done := make(chan error, 1)
		go func() { done <- l.Run(ctx, events) }()
		if ev := <-events; ev != (drv.Advertising{On: true}) {
			t.Fatalf("run %d: first event %#v", run, ev)
		}
		c, err := net.Dial("tcp", l.Addr())
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		select {
		case ev := <-events:
			if _, ok := ev.(drv.Connected); !ok {
				t.Fatalf("run %d: %#v, want Connected", run, ev)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("run %d: the client was not seen", run)
		}
		c.Close()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
	}
	l.Close() // nothing left to release: harmless
}
