package bletest

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

// run starts f.Run and returns the event channel and a stop func that
// checks Run's result.
func run(t *testing.T, f *Fake) (<-chan drv.Event, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan drv.Event)
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx, events) }()
	return events, func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
	}
}

func next(t *testing.T, events <-chan drv.Event) drv.Event {
	t.Helper()
	select {
	case ev := <-events:
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5s")
		return nil
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestScriptedSessionDeliversEventsInOrder(t *testing.T) {
	f := NewFake(true)
	// Scripted before Run: events wait in the queue behind Advertising.
	must(t, f.Connect("AA:BB:CC:DD:EE:FF"))
	events, stop := run(t, f)
	defer stop()
	must(t, f.ExchangeMTU(185))
	must(t, f.Subscribe(true))
	must(t, f.Secure())
	must(t, f.Write([]byte(`{"time":`)))
	must(t, f.WriteChunks([]byte("[1,2]}\n"), 4))
	f.Push(drv.Passkey{Code: 42})
	must(t, f.Disconnect())

	want := []drv.Event{
		drv.Advertising{On: true},
		drv.Connected{Central: "AA:BB:CC:DD:EE:FF"},
		drv.MTUChanged{MTU: 185},
		drv.Subscribed{On: true},
		drv.Secured{Encrypted: true},
		drv.Received{Data: []byte(`{"time":`)},
		drv.Received{Data: []byte("[1,2")},
		drv.Received{Data: []byte("]}\n")},
		drv.Passkey{Code: 42},
		drv.Secured{Encrypted: false},
		drv.Disconnected{Central: "AA:BB:CC:DD:EE:FF"},
	}
	for i, w := range want {
		if got := next(t, events); !reflect.DeepEqual(got, w) {
			t.Fatalf("event %d = %#v, want %#v", i, got, w)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	must(t, f.Drain(ctx))
}

func TestNotifyFollowsBackendRules(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 182)
	tests := []struct {
		name    string
		script  func(f *Fake) error
		payload []byte
		want    error  // exact sentinel, or nil
		wantSub string // substring of the error when want is nil
	}{
		{"no central", func(f *Fake) error { return nil }, []byte("a"), drv.ErrNotSubscribed, ""},
		{"connected, not subscribed", func(f *Fake) error { return f.Connect("c") }, []byte("a"), drv.ErrNotSubscribed, ""},
		{"unsubscribed again", func(f *Fake) error {
			return errors.Join(f.Connect("c"), f.Subscribe(true), f.Subscribe(false))
		}, []byte("a"), drv.ErrNotSubscribed, ""},
		{"default MTU fits 20", func(f *Fake) error { return errors.Join(f.Connect("c"), f.Subscribe(true)) }, big[:20], nil, ""},
		{"default MTU refuses 21", func(f *Fake) error { return errors.Join(f.Connect("c"), f.Subscribe(true)) }, big[:21], nil, "exceeds MTU 23"},
		{"MTU 185 fits 182", func(f *Fake) error {
			return errors.Join(f.Connect("c"), f.ExchangeMTU(185), f.Subscribe(true))
		}, big, nil, ""},
		{"MTU 185 refuses 183", func(f *Fake) error {
			return errors.Join(f.Connect("c"), f.ExchangeMTU(185), f.Subscribe(true))
		}, append(big, 'y'), nil, "exceeds MTU 185"},
		{"disconnect drops subscription", func(f *Fake) error {
			return errors.Join(f.Connect("c"), f.Subscribe(true), f.Disconnect())
		}, []byte("a"), drv.ErrNotSubscribed, ""},
		{"reconnect starts unsubscribed at MTU 23", func(f *Fake) error {
			return errors.Join(f.Connect("c"), f.ExchangeMTU(517), f.Subscribe(true), f.Disconnect(), f.Connect("c"))
		}, []byte("a"), drv.ErrNotSubscribed, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFake(false)
			must(t, tt.script(f))
			err := f.Notify(tt.payload)
			switch {
			case tt.want != nil:
				if !errors.Is(err, tt.want) {
					t.Fatalf("Notify = %v, want %v", err, tt.want)
				}
			case tt.wantSub != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantSub) {
					t.Fatalf("Notify = %v, want an error containing %q", err, tt.wantSub)
				}
			default:
				if err != nil {
					t.Fatalf("Notify = %v, want nil", err)
				}
			}
			if n := len(f.Notifications()); (err == nil) != (n == 1) {
				t.Fatalf("recorded %d notifications after err=%v", n, err)
			}
		})
	}
}

func TestNotificationsAreCopiedAndReadBackInOrder(t *testing.T) {
	f := NewFake(false)
	must(t, errors.Join(f.Connect("c"), f.Subscribe(true)))
	buf := []byte("one\n")
	must(t, f.Notify(buf))
	copy(buf, "XXXX") // the caller may reuse its buffer
	must(t, f.Notify([]byte("two\n")))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, want := range []string{"one\n", "two\n"} {
		got, err := f.NextNotification(ctx)
		must(t, err)
		if string(got) != want {
			t.Fatalf("NextNotification = %q, want %q", got, want)
		}
	}
	if got := string(f.Sent()); got != "one\ntwo\n" {
		t.Fatalf("Sent = %q", got)
	}

	// A notification sent later wakes a waiting reader.
	go func() { _ = f.Notify([]byte("three\n")) }()
	got, err := f.NextNotification(ctx)
	must(t, err)
	if string(got) != "three\n" {
		t.Fatalf("NextNotification = %q, want three", got)
	}

	short, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := f.NextNotification(short); !errors.Is(err, context.Canceled) {
		t.Fatalf("NextNotification on a done ctx = %v", err)
	}
}

func TestScriptMisuseIsAnError(t *testing.T) {
	f := NewFake(false)
	for name, err := range map[string]error{
		"Write":         f.Write([]byte("x")),
		"Subscribe":     f.Subscribe(true),
		"ExchangeMTU":   f.ExchangeMTU(185),
		"Disconnect":    f.Disconnect(),
		"Connect(\"\")": f.Connect(""),
	} {
		if err == nil {
			t.Errorf("%s without a central = nil, want an error", name)
		}
	}
	must(t, f.Connect("c"))
	for name, err := range map[string]error{
		"second Connect":    f.Connect("d"),
		"ExchangeMTU(22)":   f.ExchangeMTU(22),
		"ExchangeMTU(518)":  f.ExchangeMTU(518),
		"Secure unpairable": f.Secure(),
		"WriteChunks(0)":    f.WriteChunks([]byte("x"), 0),
	} {
		if err == nil {
			t.Errorf("%s = nil, want an error", name)
		}
	}
	if f.Connected() != "c" || f.MTU() != drv.DefaultMTU {
		t.Fatalf("state changed by rejected calls: central %q MTU %d", f.Connected(), f.MTU())
	}
}

func TestInjectedFailures(t *testing.T) {
	f := NewFake(true)
	if !f.CanPair() || NewFake(false).CanPair() {
		t.Fatal("CanPair does not follow NewFake's argument")
	}
	must(t, errors.Join(f.Connect("c"), f.Subscribe(true)))
	boom := errors.New("boom")
	f.FailNotify(boom)
	if err := f.Notify([]byte("x")); !errors.Is(err, boom) {
		t.Fatalf("Notify = %v, want boom", err)
	}
	f.FailNotify(nil)
	must(t, f.Notify([]byte("x")))

	if _, err := f.RemoveBonds(); err != nil {
		t.Fatal(err)
	}
	f.FailRemoveBonds(boom)
	if _, err := f.RemoveBonds(); !errors.Is(err, boom) {
		t.Fatalf("RemoveBonds = %v, want boom", err)
	}
	if f.BondsRemoved() != 2 {
		t.Fatalf("BondsRemoved = %d, want 2", f.BondsRemoved())
	}
}

func TestRunTwiceAndDrainTimeout(t *testing.T) {
	f := NewFake(false)
	_, stop := run(t, f) // nobody reads events
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		f.mu.Lock()
		running := f.running
		f.mu.Unlock()
		if running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Run did not start")
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := f.Run(ctx, make(chan drv.Event)); err == nil {
		t.Fatal("second concurrent Run = nil, want an error")
	}
	must(t, f.Connect("c"))
	if err := f.Drain(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Drain with an unread Connected = %v, want context.Canceled", err)
	}
	stop()
	// Run can start again once the first one returned.
	events, stop2 := run(t, f)
	for _, want := range []drv.Event{drv.Advertising{On: true}, drv.Connected{Central: "c"}} {
		if ev := next(t, events); ev != want {
			t.Fatalf("event = %#v, want %#v", ev, want)
		}
	}
	stop2()
}

// A central that paired is bonded until RemoveBonds, which drops its link
// as bluez does; a fake that cannot pair has no bonds to forget.
func TestRemoveBondsForgetsPairedCentralsAndDropsTheLink(t *testing.T) {
	f := NewFake(true)
	events, stop := run(t, f)
	defer stop()
	next(t, events) // Advertising
	must(t, errors.Join(f.Connect("AA"), f.Secure(), f.Disconnect(), f.Connect("BB"), f.Secure()))
	if got := len(f.Bonds()); got != 2 {
		t.Fatalf("%d bonds after two pairings, want 2", got)
	}
	n, err := f.RemoveBonds()
	if err != nil || n != 2 || len(f.Bonds()) != 0 || f.Connected() != "" {
		t.Fatalf("RemoveBonds = %d, %v; bonds left %v, connected %q: want 2 removed, none left, link down", n, err, f.Bonds(), f.Connected())
	}
	// Connected, Secured, Secured, Disconnected, Connected, Secured, then
	// the two RemoveBonds causes.
	var tail []drv.Event
	for range 8 {
		tail = append(tail, next(t, events))
	}
	if tail[6] != (drv.Secured{Encrypted: false}) || tail[7] != (drv.Disconnected{Central: "BB"}) {
		t.Fatalf("events after RemoveBonds %#v, want Secured{false} then Disconnected BB", tail[6:])
	}
	if n, err := f.RemoveBonds(); n != 0 || err != nil {
		t.Fatalf("RemoveBonds with no bonds = %d, %v, want 0, nil", n, err)
	}
	if _, err := NewFake(false).RemoveBonds(); !errors.Is(err, drv.ErrNoBonds) {
		t.Fatalf("RemoveBonds on a fake that cannot pair = %v, want ErrNoBonds", err)
	}
}
