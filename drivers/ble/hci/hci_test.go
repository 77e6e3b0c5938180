package hci

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gble "github.com/go-ble/ble"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

// fakeRadio stands in for the controller so Run can be tested.
type fakeRadio struct {
	advErr error
	done   chan struct{}
	err    error

	mu        sync.Mutex
	connected func(gble.Conn)
	gone      func(gble.Conn)
	ad, sr    []byte
	closed    int
}

func (r *fakeRadio) Serve(svc *gble.Service, connected, gone func(gble.Conn)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.connected, r.gone = connected, gone
	return nil
}

func (r *fakeRadio) Advertise(ad, sr []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ad, r.sr = ad, sr
	return r.advErr
}

func (r *fakeRadio) Done() <-chan struct{} { return r.done }
func (r *fakeRadio) Err() error            { return r.err }
func (r *fakeRadio) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed++
	return nil
}

func newTestPeripheral(t *testing.T, r *fakeRadio, openErr error) *Peripheral {
	t.Helper()
	p, err := New(&Options{Security: drv.Open, Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	p.open = func(string, int, *slog.Logger) (radio, error) {
		if openErr != nil {
			return nil, openErr
		}
		return r, nil
	}
	return p
}

func recv(t *testing.T, events <-chan drv.Event) drv.Event {
	t.Helper()
	select {
	case ev := <-events:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
		return nil
	}
}

func TestRunDeliversLinkEventsAndCleansUp(t *testing.T) {
	before := runtime.NumGoroutine()
	r := &fakeRadio{done: make(chan struct{})}
	p := newTestPeripheral(t, r, nil)
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan drv.Event)
	ran := make(chan error, 1)
	go func() { ran <- p.Run(ctx, events) }()

	if ev := recv(t, events); ev != (drv.Advertising{On: true}) {
		t.Fatalf("first event %#v", ev)
	}
	c := newFakeConn(centralAddr)
	r.connected(c)
	if ev := recv(t, events); ev != (drv.Connected{Central: "AA:BB:CC:DD:EE:FF"}) {
		t.Fatalf("event %#v, want Connected", ev)
	}
	c.SetTxMTU(185) // as go-ble's Exchange MTU handler does
	if p.MTU() != 23 {
		t.Fatalf("MTU before exchange = %d", p.MTU())
	}
	c.SetRxMTU(gble.MaxMTU)
	if p.MTU() != 185 {
		t.Fatalf("MTU = %d, want 185", p.MTU())
	}
	if ev := recv(t, events); ev != (drv.MTUChanged{MTU: 185}) {
		t.Fatalf("event %#v, want MTUChanged", ev)
	}
	if err := p.Notify([]byte("x")); !errors.Is(err, drv.ErrNotSubscribed) {
		t.Fatalf("Notify = %v", err)
	}
	r.gone(c)
	if ev := recv(t, events); ev != (drv.Disconnected{Central: "AA:BB:CC:DD:EE:FF"}) {
		t.Fatalf("event %#v, want Disconnected", ev)
	}

	cancel()
	if err := <-ran; err != nil {
		t.Fatalf("Run = %v", err)
	}
	if r.closed != 1 {
		t.Fatalf("radio closed %d times, want 1", r.closed)
	}
	if p.MTU() != drv.DefaultMTU || !errors.Is(p.Notify([]byte("x")), drv.ErrNotSubscribed) {
		t.Fatal("link state survived Run")
	}
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > before; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left, want %d", runtime.NumGoroutine(), before)
		}
	}
}

func TestRunReportsDeviceFailures(t *testing.T) {
	// go-ble wraps the socket's errno with github.com/pkg/errors; %w
	// stands in for that here.
	for _, tc := range []struct {
		name   string
		err    error
		advice string // in the error, besides the cause
		caps   bool   // a missing capability: the drop-in is the fix
	}{
		{"no capabilities", fmt.Errorf("can't set options: %w", syscall.EPERM), DropIn, true},
		{"address family refused by the unit", fmt.Errorf("can't create socket: %w", syscall.EAFNOSUPPORT), DropIn, true},
		{"adapter held by bluetoothd", fmt.Errorf("can't bind: %w", syscall.EBUSY), "systemctl stop bluetooth", false},
	} {
		t.Run("open: "+tc.name, func(t *testing.T) {
			p := newTestPeripheral(t, nil, tc.err)
			err := p.Run(context.Background(), make(chan drv.Event, 4))
			if err == nil || !strings.Contains(err.Error(), tc.err.Error()) || !strings.Contains(err.Error(), tc.advice) {
				t.Fatalf("Run = %v, want the cause (%v) and %q", err, tc.err, tc.advice)
			}
			if !tc.caps && strings.Contains(err.Error(), "drop-in") {
				t.Fatalf("Run = %v: a busy adapter is not a capability problem", err)
			}
		})
	}
	t.Run("advertise", func(t *testing.T) {
		r := &fakeRadio{done: make(chan struct{}), advErr: errors.New("command disallowed")}
		p := newTestPeripheral(t, r, nil)
		events := make(chan drv.Event, 4)
		if err := p.Run(context.Background(), events); err == nil || !strings.Contains(err.Error(), "advertising") {
			t.Fatalf("Run = %v", err)
		}
		if ev := <-events; ev.(drv.Advertising).On || ev.(drv.Advertising).Err == nil {
			t.Fatalf("event %#v, want Advertising{false, err}", ev)
		}
		if r.closed != 1 {
			t.Fatalf("radio closed %d times", r.closed)
		}
	})
	t.Run("device died", func(t *testing.T) {
		r := &fakeRadio{done: make(chan struct{}), err: errors.New("socket closed")}
		close(r.done)
		p := newTestPeripheral(t, r, nil)
		events := make(chan drv.Event, 4)
		if err := p.Run(context.Background(), events); err == nil || !strings.Contains(err.Error(), "socket closed") {
			t.Fatalf("Run = %v", err)
		}
		if ev := <-events; ev != (drv.Advertising{On: true}) {
			t.Fatalf("event %#v", ev)
		}
		if ev := <-events; ev.(drv.Advertising).On {
			t.Fatalf("event %#v, want Advertising{false}", ev)
		}
	})
}

func TestNewRefusesBondedWithAdvice(t *testing.T) {
	for _, opts := range []*Options{nil, {}, {Security: drv.Bonded}} {
		_, err := New(opts)
		if !errors.Is(err, ErrNeedsOpen) || !strings.Contains(err.Error(), "bluez") || !strings.Contains(err.Error(), `security = "open"`) {
			t.Fatalf("New(%+v) = %v", opts, err)
		}
	}
	for _, o := range []Options{{Security: drv.Open, Name: "Pi"}, {Security: drv.Open, Device: -1}} {
		if _, err := New(&o); err == nil {
			t.Errorf("New(%+v) = nil error", o)
		}
	}
	p, err := New(&Options{Security: drv.Open, Device: 1})
	if err != nil {
		t.Fatal(err)
	}
	n, err := p.RemoveBonds()
	if p.CanPair() || n != 0 || !errors.Is(err, drv.ErrNoBonds) || p.MTU() != drv.DefaultMTU || p.String() != "hci(hci1, Claude_Pi)" {
		t.Fatalf("CanPair %v RemoveBonds %d, %v (want ErrNoBonds) MTU %d String %q", p.CanPair(), n, err, p.MTU(), p.String())
	}
}

func TestAdvertDataKeepsTheNameInTheAdvertisement(t *testing.T) {
	nus := []byte{0x9e, 0xca, 0xdc, 0x24, 0x0e, 0xe5, 0xa9, 0xe0, 0x93, 0xf3, 0xa3, 0xb5, 0x01, 0x00, 0x40, 0x6e}
	field := func(typ byte, b []byte) []byte { return append([]byte{byte(len(b) + 1), typ}, b...) }
	flags := field(0x01, []byte{0x06})
	tests := []struct {
		name   string
		ad, sr []byte
	}{
		// flags 3 + name 8 + UUID 18 = 29: everything in one packet.
		{"Claude", bytes.Join([][]byte{flags, field(0x09, []byte("Claude")), field(0x07, nus)}, nil), nil},
		// "Claude_Pi" makes 32: the UUID moves to the scan response.
		{"Claude_Pi", append(flags, field(0x09, []byte("Claude_Pi"))...), field(0x07, nus)},
		{"Claude_Pi-ABCD-12345", append(flags, field(0x09, []byte("Claude_Pi-ABCD-12345"))...), field(0x07, nus)},
	}
	for _, tt := range tests {
		ad, sr, err := advertData(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ad, tt.ad) || !reflect.DeepEqual(sr, tt.sr) {
			t.Errorf("advertData(%q) =\n ad % X\n sr % X\nwant\n ad % X\n sr % X", tt.name, ad, sr, tt.ad, tt.sr)
		}
	}
	if _, _, err := advertData(strings.Repeat("C", 27)); err == nil {
		t.Error("advertData accepted a name that cannot fit")
	}
}
