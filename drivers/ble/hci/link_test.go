package hci

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	gble "github.com/go-ble/ble"
	"github.com/go-ble/ble/linux/att"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

const centralAddr = "aa:bb:cc:dd:ee:ff"

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// events waits until l has queued n events and returns them.
func events(t *testing.T, l *link, n int) []drv.Event {
	t.Helper()
	var got []drv.Event
	timeout := time.After(10 * time.Second)
	for len(got) < n {
		got = append(got, l.take()...)
		if len(got) >= n {
			break
		}
		select {
		case <-l.wake:
		case <-timeout:
			t.Fatalf("got %d events %#v, want %d", len(got), got, n)
		}
	}
	if len(got) > n {
		t.Fatalf("got %d events %#v, want %d", len(got), got, n)
	}
	return got
}

func wantEvents(t *testing.T, l *link, want ...drv.Event) {
	t.Helper()
	got := events(t, l, len(want))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events = %#v\nwant %#v", got, want)
	}
}

func TestRXWritesAreDeliveredVerbatim(t *testing.T) {
	l := newLink(quietLog())
	c := newFakeConn(centralAddr)
	l.connected(c)
	wantEvents(t, l, drv.Connected{Central: "AA:BB:CC:DD:EE:FF"})

	writes := [][]byte{
		[]byte(`{"cmd":"status"}` + "\n"),
		[]byte("{\"msg\":\"caf\xc3"), // a UTF-8 character cut by the desktop's 180-byte slicing
		[]byte("\xa9\"}\n"),
		{},
		bytes.Repeat([]byte{0xff}, 512),
	}
	for _, w := range writes {
		buf := append([]byte(nil), w...)
		rsp := gble.NewResponseWriter(nil)
		l.serveWrite(gble.NewRequest(c, buf, 0), rsp)
		if rsp.Status() != gble.ErrSuccess {
			t.Fatalf("write %q: status %v", w, rsp.Status())
		}
		for i := range buf { // go-ble reuses its buffer for the next PDU
			buf[i] = 'X'
		}
	}
	got := events(t, l, len(writes))
	for i, w := range writes {
		if r, ok := got[i].(drv.Received); !ok || !bytes.Equal(r.Data, w) {
			t.Fatalf("event %d = %#v, want Received %q", i, got[i], w)
		}
	}
}

func TestWritesFromAnUntrackedConnAreRefused(t *testing.T) {
	l := newLink(quietLog())
	tracked, other := newFakeConn(centralAddr), newFakeConn("11:22:33:44:55:66")
	rsp := gble.NewResponseWriter(nil)
	l.serveWrite(gble.NewRequest(tracked, []byte("early"), 0), rsp)
	if rsp.Status() != gble.ErrUnlikely {
		t.Fatalf("write before connect: status %v, want ErrUnlikely", rsp.Status())
	}
	l.connected(tracked)
	l.connected(other) // ignored: one central at a time
	l.serveWrite(gble.NewRequest(other, []byte("intruder"), 0), rsp)
	if rsp.Status() != gble.ErrUnlikely {
		t.Fatalf("write from a second central: status %v", rsp.Status())
	}
	l.disconnected(other) // not ours: no event
	wantEvents(t, l, drv.Connected{Central: "AA:BB:CC:DD:EE:FF"})
}

func TestBacklogIsBounded(t *testing.T) {
	l := newLink(quietLog())
	c := newFakeConn(centralAddr)
	l.connected(c)
	chunk := make([]byte, 512)
	refused := 0
	for i := 0; i < maxQueued/512+10; i++ {
		rsp := gble.NewResponseWriter(nil)
		l.serveWrite(gble.NewRequest(c, chunk, 0), rsp)
		if rsp.Status() == gble.ErrInsuffResources {
			refused++
		}
	}
	if refused != 10 {
		t.Fatalf("%d writes refused past the backlog, want 10", refused)
	}
	l.take() // the owner catches up
	rsp := gble.NewResponseWriter(nil)
	l.serveWrite(gble.NewRequest(c, chunk, 0), rsp)
	if rsp.Status() != gble.ErrSuccess {
		t.Fatalf("write after the backlog drained: status %v", rsp.Status())
	}
}

// attSession runs go-ble's real ATT server over a fakeConn, as radio.go
// does over an HCI connection.
type attSession struct {
	t         *testing.T
	l         *link
	c         *fakeConn
	rx, tx    uint16 // value handles
	cccd      uint16
	loopEnded chan struct{}
}

func newATTSession(t *testing.T) *attSession {
	t.Helper()
	l := newLink(quietLog())
	svc := l.service()
	db := att.NewDB([]*gble.Service{svc}, 1)
	c := newFakeConn(centralAddr)
	c.SetRxMTU(gble.MaxMTU)
	as, err := att.NewServer(db, c)
	if err != nil {
		t.Fatal(err)
	}
	s := &attSession{
		t: t, l: l, c: c,
		rx: svc.Characteristics[0].ValueHandle, tx: svc.Characteristics[1].ValueHandle,
		// go-ble puts TX's CCCD right after its value and never fills in
		// the descriptor's Handle.
		cccd: svc.Characteristics[1].ValueHandle + 1, loopEnded: make(chan struct{}),
	}
	l.connected(c)
	go func() {
		as.Loop()
		l.disconnected(c)
		close(s.loopEnded)
	}()
	t.Cleanup(func() {
		c.Close()
		<-s.loopEnded
		l.stop()
	})
	wantEvents(t, l, drv.Connected{Central: "AA:BB:CC:DD:EE:FF"})
	return s
}

// request sends one PDU from the central and returns the server's answer.
func (s *attSession) request(pdu ...byte) []byte {
	s.t.Helper()
	s.c.in <- pdu
	select {
	case rsp := <-s.c.out:
		return rsp
	case <-time.After(10 * time.Second):
		s.t.Fatalf("no response to % X", pdu)
		return nil
	}
}

// command sends a PDU that gets no response (Write Command).
func (s *attSession) command(pdu ...byte) { s.c.in <- pdu }

func le16(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }

func (s *attSession) exchangeMTU(mtu uint16) {
	s.t.Helper()
	rsp := s.request(append([]byte{0x02}, le16(mtu)...)...)
	if want := append([]byte{0x03}, le16(gble.MaxMTU)...); !bytes.Equal(rsp, want) {
		s.t.Fatalf("Exchange MTU response % X, want % X", rsp, want)
	}
}

func (s *attSession) subscribe(on bool) {
	s.t.Helper()
	v := uint16(0)
	if on {
		v = 1
	}
	if rsp := s.request(append(append([]byte{0x12}, le16(s.cccd)...), le16(v)...)...); !bytes.Equal(rsp, []byte{0x13}) {
		s.t.Fatalf("CCCD write response % X", rsp)
	}
}

// notifications collects the notification PDUs sent since the last call.
func (s *attSession) notifications() [][]byte {
	var values [][]byte
	for {
		select {
		case pdu := <-s.c.out:
			if pdu[0] != 0x1b || binary.LittleEndian.Uint16(pdu[1:]) != s.tx {
				s.t.Fatalf("unexpected PDU % X", pdu)
			}
			values = append(values, pdu[3:])
		default:
			return values
		}
	}
}

func TestATTSessionAtEachMTU(t *testing.T) {
	line := []byte(`{"ack":"status","ok":true,"n":0,"data":{"name":"Claude_Pi","sec":false,"bat":{"pct":100},"sys":{"up":12345,"heap":0},"stats":{"appr":1,"deny":0,"vel":0,"nap":0,"lvl":0}},"note":"caf` + "\u00e9 \u2603 \U0001F600" + `"}` + "\n")
	for _, mtu := range []uint16{185, 23, 517} {
		// go-ble's own limit is 515 (512 bytes of value): a 517 request
		// settles there, which still carries the desktop's 180-byte writes.
		eff := min(int(mtu), gble.MaxMTU)
		t.Run(fmt.Sprint("MTU", mtu), func(t *testing.T) {
			s := newATTSession(t)
			if mtu != 23 {
				s.exchangeMTU(mtu)
			}
			// RX: a Write Command and a Write Request, cut inside a character.
			s.command(append(append([]byte{0x52}, le16(s.rx)...), "{\"a\":\"\xe2\x98"...)...)
			if rsp := s.request(append(append([]byte{0x12}, le16(s.rx)...), "\x83\"}\n"...)...); !bytes.Equal(rsp, []byte{0x13}) {
				t.Fatalf("Write Request response % X", rsp)
			}
			var want []drv.Event
			if mtu != 23 {
				want = append(want, drv.MTUChanged{MTU: eff})
			}
			want = append(want, drv.Received{Data: []byte("{\"a\":\"\xe2\x98")}, drv.Received{Data: []byte("\x83\"}\n")})
			wantEvents(t, s.l, want...)

			if err := s.l.notify([]byte("x")); !errors.Is(err, drv.ErrNotSubscribed) {
				t.Fatalf("notify before CCCD = %v, want ErrNotSubscribed", err)
			}
			s.subscribe(true)
			wantEvents(t, s.l, drv.Subscribed{On: true})

			// TX: chunk at MTU-3 as the ble actor does; go-ble must carry
			// every byte, and nothing longer may be accepted.
			max := eff - 3
			if got := s.l.currentMTU(); got != eff {
				t.Fatalf("MTU = %d, want %d", got, eff)
			}
			if err := s.l.notify(make([]byte, max+1)); err == nil || !strings.Contains(err.Error(), "exceeds MTU") {
				t.Fatalf("notify(%d bytes) = %v, want an MTU error", max+1, err)
			}
			for rest := line; len(rest) > 0; {
				n := min(max, len(rest))
				if err := s.l.notify(rest[:n]); err != nil {
					t.Fatal(err)
				}
				rest = rest[n:]
			}
			values := s.notifications()
			for i, v := range values {
				if len(v) > max {
					t.Fatalf("notification %d is %d bytes, over MTU-3 = %d", i, len(v), max)
				}
			}
			if got := bytes.Join(values, nil); !bytes.Equal(got, line) {
				t.Fatalf("central reassembled %q\nwant %q", got, line)
			}

			s.subscribe(false)
			wantEvents(t, s.l, drv.Subscribed{On: false})
			if err := s.l.notify([]byte("x")); !errors.Is(err, drv.ErrNotSubscribed) {
				t.Fatalf("notify after CCCD off = %v, want ErrNotSubscribed", err)
			}

			s.subscribe(true)
			wantEvents(t, s.l, drv.Subscribed{On: true})
			s.c.Close()
			<-s.loopEnded
			// go-ble closes the notifier when its loop ends, racing our
			// disconnect: either order is fine, but Disconnected must come
			// and no Subscribed{On: false} may follow it.
			var got []drv.Event
			for len(got) == 0 || got[len(got)-1] != (drv.Disconnected{Central: "AA:BB:CC:DD:EE:FF"}) {
				if len(got) > 2 {
					t.Fatalf("events %#v, want Disconnected", got)
				}
				select {
				case <-s.l.wake:
				case <-time.After(10 * time.Second):
					t.Fatalf("events %#v, want Disconnected", got)
				}
				got = append(got, s.l.take()...)
			}
			if len(got) == 2 && got[0] != (drv.Subscribed{On: false}) || len(got) > 2 {
				t.Fatalf("events %#v, want [Subscribed{false}] Disconnected", got)
			}
			time.Sleep(10 * time.Millisecond) // let a late notify handler run
			if extra := s.l.take(); len(extra) != 0 {
				t.Fatalf("events after Disconnected: %#v", extra)
			}
			if s.l.currentMTU() != drv.DefaultMTU {
				t.Fatalf("MTU after disconnect = %d", s.l.currentMTU())
			}
		})
	}
}

// TestGoBLETruncatesSilently pins the go-ble behaviour that notify guards
// against: a notifier write longer than MTU-3 is cut without an error. If
// this starts failing, go-ble changed and the guard can be revisited.
func TestGoBLETruncatesSilently(t *testing.T) {
	s := newATTSession(t)
	s.subscribe(true)
	wantEvents(t, s.l, drv.Subscribed{On: true})
	s.l.mu.Lock()
	n := s.l.notifier
	s.l.mu.Unlock()
	if _, err := n.Write(bytes.Repeat([]byte("y"), 100)); err != nil {
		t.Fatalf("go-ble notifier: %v", err)
	}
	values := s.notifications()
	if len(values) != 1 || len(values[0]) != drv.DefaultMTU-3 {
		t.Fatalf("go-ble sent %d notifications, first %d bytes; expected one cut to %d", len(values), len(values[0]), drv.DefaultMTU-3)
	}
}

func TestStopReleasesNotifyHandlers(t *testing.T) {
	s := newATTSession(t)
	s.subscribe(true)
	wantEvents(t, s.l, drv.Subscribed{On: true})
	s.l.stop()
	if err := s.l.notify([]byte("x")); !errors.Is(err, drv.ErrNotSubscribed) {
		t.Fatalf("notify after stop = %v", err)
	}
	time.Sleep(10 * time.Millisecond)
	if q := s.l.take(); len(q) != 0 {
		t.Fatalf("events after stop: %#v", q)
	}
}

// BenchmarkRXWrite measures the per-write cost on go-ble's ATT goroutine:
// a 180-byte desktop slice copied and queued.
func BenchmarkRXWrite(b *testing.B) {
	l := newLink(quietLog())
	c := newFakeConn(centralAddr)
	l.connected(c)
	data := bytes.Repeat([]byte("a"), 180)
	req := gble.NewRequest(c, data, 0)
	rsp := gble.NewResponseWriter(nil)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; b.Loop(); i++ {
		l.serveWrite(req, rsp)
		if i%256 == 0 {
			l.take()
		}
	}
}
