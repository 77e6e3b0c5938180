package serial

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"
)

// fakeBus is a USB bus the test plugs devices into.
type fakeBus struct {
	mu    sync.Mutex
	ports []*PortDetails
	err   error
	scans int
}

func (b *fakeBus) set(err error, ports ...*PortDetails) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ports, b.err = ports, err
}

func (b *fakeBus) enumerate() ([]*PortDetails, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.scans++
	return b.ports, b.err
}

func next(t *testing.T, ch <-chan Event) Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("event channel closed")
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5 s")
	}
	return nil
}

// quiet checks that no event arrives while the watcher scans several times.
func quiet(t *testing.T, b *fakeBus, ch <-chan Event) {
	t.Helper()
	b.mu.Lock()
	start := b.scans
	b.mu.Unlock()
	for {
		select {
		case ev := <-ch:
			t.Fatalf("unexpected event %#v", ev)
		case <-time.After(time.Millisecond):
		}
		b.mu.Lock()
		n := b.scans
		b.mu.Unlock()
		if n >= start+3 {
			return
		}
	}
}

// pl is the Plugged of core(path, serial).
func pl(path, serial string) Plugged {
	return Plugged{Path: path, Serial: serial, VID: "303A", PID: "1001", Product: "USB JTAG/serial debug unit", Manufacturer: "Espressif"}
}

// lookalike is core(path, serial) with another product string: a board
// that copied a serial number.
func lookalike(path, serial string) *PortDetails {
	p := core(path, serial)
	p.Product = "Totally CoreS3"
	return p
}

func TestWatcher(t *testing.T) {
	ftdi := &PortDetails{Name: "/dev/ttyUSB0", IsUSB: true, VID: "0403", PID: "6001"}
	a := core("/dev/ttyACM0", "S1")
	b := &fakeBus{}
	b.set(nil, ftdi)
	ctx, cancel := context.WithCancel(context.Background())
	w := &Watcher{Enumerate: b.enumerate, Interval: time.Millisecond}
	ch := w.Watch(ctx)
	quiet(t, b, ch)

	steps := []struct {
		name  string
		err   error
		ports []*PortDetails
		want  []Event
	}{
		{"plug", nil, []*PortDetails{ftdi, a}, []Event{pl("/dev/ttyACM0", "S1")}},
		{"scan error is not an unplug", errors.New("EIO"), nil, nil},
		{"unplug", nil, []*PortDetails{ftdi}, []Event{Unplugged{"/dev/ttyACM0"}}},
		{"re-plug at a new path", nil, []*PortDetails{core("/dev/ttyACM1", "S1")}, []Event{pl("/dev/ttyACM1", "S1")}},
		{"swap device at same path", nil, []*PortDetails{core("/dev/ttyACM1", "S2")},
			[]Event{Unplugged{"/dev/ttyACM1"}, pl("/dev/ttyACM1", "S2")}},
		{"second device", nil, []*PortDetails{core("/dev/ttyACM1", "S2"), core("/dev/ttyACM0", "S1")},
			[]Event{pl("/dev/ttyACM0", "S1")}},
		{"same serial, another product string", nil, []*PortDetails{core("/dev/ttyACM1", "S2"), lookalike("/dev/ttyACM0", "S1")},
			[]Event{Unplugged{"/dev/ttyACM0"}, Plugged{Path: "/dev/ttyACM0", Serial: "S1", VID: "303A", PID: "1001", Product: "Totally CoreS3", Manufacturer: "Espressif"}}},
		{"all gone", nil, nil, []Event{Unplugged{"/dev/ttyACM0"}, Unplugged{"/dev/ttyACM1"}}},
	}
	for _, s := range steps {
		b.set(s.err, s.ports...)
		var got []Event
		for range s.want {
			got = append(got, next(t, ch))
		}
		if !reflect.DeepEqual(got, s.want) {
			t.Fatalf("%s: events %#v, want %#v", s.name, got, s.want)
		}
		quiet(t, b, ch)
	}
	cancel()
	for range ch {
	}
}

func TestWatcherSerialPinning(t *testing.T) {
	b := &fakeBus{}
	b.set(nil, core("/dev/ttyACM0", "OTHER"), core("/dev/ttyACM1", "MINE"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := (&Watcher{Enumerate: b.enumerate, Interval: time.Millisecond, Serial: "MINE"}).Watch(ctx)
	if ev, want := next(t, ch), (pl("/dev/ttyACM1", "MINE")); ev != want {
		t.Fatalf("event %#v, want %#v", ev, want)
	}
	quiet(t, b, ch)
	b.set(nil, core("/dev/ttyACM0", "OTHER"))
	if ev, want := next(t, ch), (Unplugged{"/dev/ttyACM1"}); ev != want {
		t.Fatalf("event %#v, want %#v", ev, want)
	}
	b.set(nil, core("/dev/ttyACM0", "OTHER"), core("/dev/ttyACM2", "MINE"))
	if ev, want := next(t, ch), (pl("/dev/ttyACM2", "MINE")); ev != want {
		t.Fatalf("event %#v, want %#v", ev, want)
	}
}

func TestWatcherStopsWhileBlockedOnSend(t *testing.T) {
	b := &fakeBus{}
	b.set(nil, core("/dev/ttyACM0", ""), core("/dev/ttyACM1", ""))
	ctx, cancel := context.WithCancel(context.Background())
	ch := (&Watcher{Enumerate: b.enumerate, Interval: time.Hour}).Watch(ctx)
	next(t, ch) // the second Plugged is now stuck in the send
	cancel()
	for range ch {
	}
}
