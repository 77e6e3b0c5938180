package sim

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

type harness struct {
	t      *testing.T
	p      *Peripheral
	events chan drv.Event
	stop   func()
}

// start runs a Peripheral on addr and checks, when stopped, that Run
// returned nil and every goroutine it started is gone.
func start(t *testing.T, addr string, opts *Options) *harness {
	t.Helper()
	before := runtime.NumGoroutine()
	ln, err := Listen(addr)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(ln, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan drv.Event, 64)
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx, events) }()
	h := &harness{t: t, p: p, events: events}
	h.stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
		waitGoroutines(t, before)
	}
	h.want(drv.Advertising{On: true})
	return h
}

// waitGoroutines polls until the goroutine count is back to n; it fails
// only after a generous deadline, so it cannot flake on a slow machine.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left, want %d:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (h *harness) next() drv.Event {
	h.t.Helper()
	select {
	case ev := <-h.events:
		return ev
	case <-time.After(10 * time.Second):
		h.t.Fatal("no event within 10s")
		return nil
	}
}

func (h *harness) want(evs ...drv.Event) {
	h.t.Helper()
	for _, w := range evs {
		if got := h.next(); !reflect.DeepEqual(got, w) {
			h.t.Fatalf("event = %#v, want %#v", got, w)
		}
	}
}

// dial connects a client and consumes the connect events.
func (h *harness) dial() net.Conn {
	h.t.Helper()
	network, address := "tcp", h.p.ln.Addr().String()
	if h.p.ln.Addr().Network() == "unix" {
		network = "unix"
	}
	c, err := net.Dial(network, address)
	if err != nil {
		h.t.Fatal(err)
	}
	ev := h.next()
	if _, ok := ev.(drv.Connected); !ok {
		h.t.Fatalf("event = %#v, want Connected", ev)
	}
	h.want(drv.MTUChanged{MTU: h.p.MTU()}, drv.Subscribed{On: true})
	return c
}

// received collects Received events until n bytes have arrived.
func (h *harness) received(n int) [][]byte {
	h.t.Helper()
	var got [][]byte
	for total := 0; total < n; {
		ev := h.next()
		r, ok := ev.(drv.Received)
		if !ok {
			h.t.Fatalf("event = %#v, want Received", ev)
		}
		got = append(got, r.Data)
		total += len(r.Data)
	}
	return got
}

func TestSessionOverTCPAndUnix(t *testing.T) {
	for _, tt := range []struct{ name, addr string }{
		{"tcp", "127.0.0.1:0"},
		{"unix", "unix:" + filepath.Join(t.TempDir(), "nus.sock")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := start(t, tt.addr, nil)
			defer h.stop()
			if err := h.p.Notify([]byte("x")); !errors.Is(err, drv.ErrNotSubscribed) {
				t.Fatalf("Notify before a client = %v, want ErrNotSubscribed", err)
			}
			c := h.dial()

			// RX: a cut UTF-8 character arrives as the client wrote it.
			line := []byte("{\"msg\":\"caf\xc3")
			if _, err := c.Write(line); err != nil {
				t.Fatal(err)
			}
			if got := bytes.Join(h.received(len(line)), nil); !bytes.Equal(got, line) {
				t.Fatalf("received %q, want %q", got, line)
			}

			// TX: exact bytes, nothing added.
			r := bufio.NewReader(c)
			for _, note := range []string{`{"ack":"owner",`, "\"ok\":true}\n"} {
				if err := h.p.Notify([]byte(note)); err != nil {
					t.Fatal(err)
				}
			}
			got, err := r.ReadString('\n')
			if err != nil || got != "{\"ack\":\"owner\",\"ok\":true}\n" {
				t.Fatalf("client read %q, %v", got, err)
			}

			c.Close()
			ev := h.next()
			if _, ok := ev.(drv.Disconnected); !ok {
				t.Fatalf("event = %#v, want Disconnected", ev)
			}
			if err := h.p.Notify([]byte("x")); !errors.Is(err, drv.ErrNotSubscribed) {
				t.Fatalf("Notify after disconnect = %v, want ErrNotSubscribed", err)
			}
			// The next central is welcome.
			h.dial().Close()
			h.next()
		})
	}
}

func TestReadsAreCappedAtATTWriteSize(t *testing.T) {
	h := start(t, "127.0.0.1:0", nil)
	defer h.stop()
	c := h.dial()
	defer c.Close()
	payload := append([]byte("{"), bytes.Repeat([]byte("0123456789abcdef"), 200)...) // 3201 bytes in one write
	if _, err := c.Write(payload); err != nil {
		t.Fatal(err)
	}
	pieces := h.received(len(payload))
	for i, p := range pieces {
		if len(p) > MaxRead {
			t.Fatalf("piece %d is %d bytes, over %d", i, len(p), MaxRead)
		}
	}
	if got := bytes.Join(pieces, nil); !bytes.Equal(got, payload) {
		t.Fatal("reassembled bytes differ from what the client wrote")
	}
}

func TestNotifyEnforcesMTU(t *testing.T) {
	for _, mtu := range []int{23, 185, 517} {
		h := start(t, "127.0.0.1:0", &Options{MTU: mtu})
		c := h.dial()
		if h.p.MTU() != mtu {
			t.Fatalf("MTU() = %d, want %d", h.p.MTU(), mtu)
		}
		if err := h.p.Notify(make([]byte, mtu-2)); err == nil || !strings.Contains(err.Error(), "exceeds MTU") {
			t.Fatalf("MTU %d: Notify(%d bytes) = %v, want an MTU error", mtu, mtu-2, err)
		}
		fits := bytes.Repeat([]byte("a"), mtu-3)
		if err := h.p.Notify(fits); err != nil {
			t.Fatalf("MTU %d: Notify(%d bytes) = %v", mtu, mtu-3, err)
		}
		got := make([]byte, len(fits))
		if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, fits) {
			t.Fatalf("MTU %d: client read %d bytes, %v", mtu, len(got), err)
		}
		c.Close()
		h.next()
		h.stop()
	}
}

func TestSecondCentralIsRefusedWithAReason(t *testing.T) {
	h := start(t, "127.0.0.1:0", nil)
	defer h.stop()
	first := h.dial()
	defer first.Close()

	second, err := net.Dial("tcp", h.p.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	msg, err := io.ReadAll(second) // ends when the backend closes it
	if err != nil || string(msg) != Refusal {
		t.Fatalf("second client read %q, %v; want %q", msg, err, Refusal)
	}
	// The first central is undisturbed.
	if err := h.p.Notify([]byte("still here\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(first).ReadString('\n')
	if err != nil || line != "still here\n" {
		t.Fatalf("first client read %q, %v", line, err)
	}
	select {
	case ev := <-h.events:
		t.Fatalf("refused client produced event %#v", ev)
	default:
	}
}

func TestStuckClientIsDroppedNotWaitedFor(t *testing.T) {
	h := start(t, "127.0.0.1:0", &Options{MTU: 517, WriteTimeout: 50 * time.Millisecond})
	defer h.stop()
	c := h.dial() // never reads
	defer c.Close()
	chunk := make([]byte, 514)
	var err error
	for i := 0; i < 1<<16 && err == nil; i++ { // fills both socket buffers
		err = h.p.Notify(chunk)
	}
	if err == nil {
		t.Fatal("Notify to a client that never reads kept succeeding")
	}
	if ev := h.next(); reflect.TypeOf(ev) != reflect.TypeOf(drv.Disconnected{}) {
		t.Fatalf("event = %#v, want Disconnected", ev)
	}
}

func TestRunStopsWithAClientConnected(t *testing.T) {
	h := start(t, "127.0.0.1:0", nil)
	c := h.dial()
	defer c.Close()
	h.stop() // checks goroutines
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("client still open after Run returned")
	}
	if err := h.p.Notify([]byte("x")); !errors.Is(err, drv.ErrNotSubscribed) {
		t.Fatalf("Notify after Run = %v, want ErrNotSubscribed", err)
	}
}

func TestRunTwiceIsAnError(t *testing.T) {
	h := start(t, "127.0.0.1:0", nil)
	defer h.stop()
	if err := h.p.Run(context.Background(), make(chan drv.Event)); err == nil {
		t.Fatal("second Run = nil, want an error")
	}
}

func TestPeripheralFacts(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	p, err := New(ln, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := p.RemoveBonds()
	if p.CanPair() || n != 0 || !errors.Is(err, drv.ErrNoBonds) || p.MTU() != DefaultMTU || !strings.HasPrefix(p.String(), "sim(127.0.0.1:") {
		t.Fatalf("CanPair %v, RemoveBonds %d, %v (want ErrNoBonds), MTU %d, String %q", p.CanPair(), n, err, p.MTU(), p.String())
	}
	for _, opts := range []*Options{{MTU: 22}, {MTU: 518}, {MTU: -1}} {
		if _, err := New(ln, opts); err == nil {
			t.Errorf("New(MTU %d) = nil error", opts.MTU)
		}
	}
	if _, err := New(nil, nil); err == nil {
		t.Error("New(nil listener) = nil error")
	}
}

func TestListenAddresses(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		addr    string
		wantErr string
	}{
		{"", "empty"},
		{"unix:", "needs a socket path"},
		{"localhost", "want host:port"},
		{"127.0.0.1:", "no port"},
		{"127.0.0.1:notaport", "listening on"},
		{"unix:" + plain, "not a socket"},
		{"unix:" + filepath.Join(dir, "missing", "x.sock"), "listening on unix socket"},
		{"127.0.0.1:0", ""},
		{"[::1]:0", ""},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			ln, err := Listen(tt.addr)
			if tt.wantErr == "" {
				if err != nil {
					if strings.Contains(tt.addr, "::1") {
						t.Skip("no IPv6 loopback:", err)
					}
					t.Fatal(err)
				}
				ln.Close()
				return
			}
			if err == nil {
				ln.Close()
				t.Fatalf("Listen(%q) = nil error, want %q", tt.addr, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Listen(%q) = %v, want %q", tt.addr, err, tt.wantErr)
			}
		})
	}
	if b, _ := os.ReadFile(plain); string(b) != "keep me" {
		t.Fatal("Listen touched a regular file")
	}
}

func TestListenReplacesStaleSocketButNotALiveOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nus.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Listen("unix:" + path); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("Listen on a live socket = %v, want \"in use\"", err)
	}
	// Leave the file behind as a crashed process would.
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	ln2, err := Listen("unix:" + path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	ln2.Close()
}
