package ble_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/drivers/ble"
	"github.com/claude-pi/claude-pi/drivers/ble/bletest"
)

// TestReopeningOpensEachRun: every Run opens a new Peripheral and releases
// it after; between runs the wrapper answers for itself, and while one
// runs it forwards to it.
func TestReopeningOpensEachRun(t *testing.T) {
	var opened, released int
	var cur *bletest.Fake
	r := &ble.Reopening{Pairs: true, Open: func() (ble.Peripheral, func(), error) {
		opened++
		cur = bletest.NewFake(true)
		return cur, func() { released++ }, nil
	}}
	if err := r.Notify([]byte("x")); !errors.Is(err, ble.ErrNotSubscribed) {
		t.Errorf("Notify before Run = %v, want ErrNotSubscribed", err)
	}
	if _, err := r.RemoveBonds(); r.MTU() != ble.DefaultMTU || !r.CanPair() || err == nil {
		t.Errorf("idle: MTU %d, CanPair %v, RemoveBonds must fail on a link that pairs", r.MTU(), r.CanPair())
	}
	for run := 1; run <= 2; run++ {
		ctx, cancel := context.WithCancel(context.Background())
		events := make(chan ble.Event, 4)
		done := make(chan error, 1)
		go func() { done <- r.Run(ctx, events) }()
		select {
		case ev := <-events:
			if ev != (ble.Advertising{On: true}) {
				t.Fatalf("run %d: first event %#v", run, ev)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("run %d: no event", run)
		}
		if err := cur.Connect("desktop"); err != nil {
			t.Fatal(err)
		}
		if err := cur.ExchangeMTU(185); err != nil {
			t.Fatal(err)
		}
		if _, err := r.RemoveBonds(); err != nil || cur.BondsRemoved() != 1 {
			t.Errorf("run %d: RemoveBonds = %v, %d removed by the running fake", run, err, cur.BondsRemoved())
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if opened != run || released != run {
			t.Fatalf("after run %d: opened %d, released %d", run, opened, released)
		}
		if r.MTU() != ble.DefaultMTU {
			t.Errorf("after run %d the MTU is %d, want the idle default", run, r.MTU())
		}
	}
}

func TestReopeningOpenFails(t *testing.T) {
	broken := errors.New("bluez: no system bus")
	r := &ble.Reopening{IdleMTU: 185, Open: func() (ble.Peripheral, func(), error) { return nil, nil, broken }}
	if err := r.Run(context.Background(), make(chan ble.Event)); !errors.Is(err, broken) {
		t.Fatalf("Run = %v, want the open error", err)
	}
	// A link that never pairs has no bonds, and says so.
	if _, err := r.RemoveBonds(); r.MTU() != 185 || r.CanPair() || !errors.Is(err, ble.ErrNoBonds) {
		t.Errorf("idle sim-like link: MTU %d, CanPair %v, RemoveBonds %v (want ErrNoBonds)", r.MTU(), r.CanPair(), err)
	}
}
