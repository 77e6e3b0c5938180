package bluez

import (
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

// A central that connects and never pairs nor touches NUS is disconnected
// after SecureWithin, and the Pi advertises again for the desktop.
func TestUnsecuredCentralIsDisconnected(t *testing.T) {
	r := start(t, Options{SecureWithin: 200 * time.Millisecond})
	connect(r)
	r.fake.waitCall("disconnect")
	if ev := want[drv.Disconnected](r); ev.Central != "AA:BB:CC:DD:EE:FF" {
		t.Fatalf("disconnected %+v", ev)
	}
	r.fake.waitCall("adv")
	if waiting(r.p) {
		t.Fatal("the wait outlived the central")
	}
}

// A central that secures the link (its first CCCD or RX write, which
// BlueZ lets through only over a Secure Connections link) ends the wait;
// so does one that leaves by itself.
func TestSecuredOrGoneCentralIsNotDisconnected(t *testing.T) {
	secure := map[string]func(r *rig){
		"subscribes": func(r *rig) {
			if err := r.fake.peerObject("/org/claudepi/nus/service0/char1").Call(ifaceGattChar+".StartNotify", 0).Err; err != nil {
				r.t.Fatal(err)
			}
			want[drv.Secured](r)
		},
		"writes": func(r *rig) {
			if err := r.fake.peerObject("/org/claudepi/nus/service0/char0").Call(ifaceGattChar+".WriteValue", 0, []byte("{}\n"),
				map[string]dbus.Variant{"device": dbus.MakeVariant(dev)}).Err; err != nil {
				r.t.Fatal(err)
			}
			want[drv.Secured](r)
		},
		"leaves": func(r *rig) {
			r.fake.changeDevice(dev, map[string]dbus.Variant{"Connected": dbus.MakeVariant(false)})
			want[drv.Disconnected](r)
		},
	}
	for name, f := range secure {
		t.Run(name, func(t *testing.T) {
			r := start(t, Options{SecureWithin: time.Hour})
			connect(r)
			if !waiting(r.p) {
				t.Fatal("no wait started for a new central in bonded mode")
			}
			f(r)
			if waiting(r.p) {
				t.Fatal("the wait is still on")
			}
			// Were the timer to fire late anyway, it must leave the link alone.
			r.p.unsecuredTooLong(dev, time.Hour)
			select {
			case c := <-r.fake.calls:
				if c == "disconnect" {
					t.Fatal("disconnected a central that had secured the link or left")
				}
			default:
			}
		})
	}
}

// Open mode has no secured link to wait for; a negative SecureWithin turns
// the wait off.
func TestNoWaitInOpenModeOrWhenOff(t *testing.T) {
	for name, o := range map[string]Options{
		"open": {Security: drv.Open, SecureWithin: time.Millisecond},
		"off":  {SecureWithin: -1},
	} {
		t.Run(name, func(t *testing.T) {
			r := start(t, o)
			connect(r)
			if waiting(r.p) {
				t.Fatal("a wait started")
			}
		})
	}
	if p, err := New(&dbus.Conn{}, nil); err != nil || p.opts.SecureWithin != DefaultSecureWithin {
		t.Fatalf("default SecureWithin = %v (%v), want %v", p.opts.SecureWithin, err, DefaultSecureWithin)
	}
}

func waiting(p *Peripheral) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.secureWait != nil
}
