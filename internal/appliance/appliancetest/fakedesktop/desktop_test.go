package fakedesktop

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/protocols/nus"
)

// fakeDevice is the device end of a net.Pipe. net.Pipe keeps write
// boundaries (each Read returns at most one Write), so the test sees the
// desktop's slices as the RX writes they stand for.
type fakeDevice struct {
	t    *testing.T
	conn net.Conn

	// answer returns the reply to a command line; nil sends nothing.
	answer func(m pbuddy.Message) []byte

	mu     sync.Mutex
	slices []int
	lines  [][]byte
	msgs   []pbuddy.Message
	seen   chan pbuddy.Message
}

func newFakeDevice(t *testing.T, answer func(pbuddy.Message) []byte) (*fakeDevice, net.Conn) {
	t.Helper()
	dev, desk := net.Pipe()
	f := &fakeDevice{t: t, conn: dev, answer: answer, seen: make(chan pbuddy.Message, 1024)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		asm := nus.NewAssembler(128 << 10)
		buf := make([]byte, 4096)
		for {
			n, err := dev.Read(buf)
			if n > 0 {
				f.mu.Lock()
				f.slices = append(f.slices, n)
				f.mu.Unlock()
				asm.Feed(buf[:n], f.line)
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { dev.Close(); <-done })
	return f, desk
}

func (f *fakeDevice) line(line []byte, err error) {
	if err != nil {
		return
	}
	m, derr := pbuddy.Decode(line)
	f.mu.Lock()
	f.lines = append(f.lines, append([]byte(nil), line...))
	if derr == nil {
		f.msgs = append(f.msgs, m)
	}
	f.mu.Unlock()
	if derr != nil {
		return
	}
	f.seen <- m
	if f.answer != nil {
		if r := f.answer(m); r != nil {
			go f.send(r) // the pipe is synchronous: never write from the reader
		}
	}
}

func (f *fakeDevice) send(b []byte) { _, _ = f.conn.Write(b) }

// next waits for the next message of kind k, skipping others.
func (f *fakeDevice) next(k pbuddy.Kind) pbuddy.Message {
	f.t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case m := <-f.seen:
			if m.Kind() == k {
				return m
			}
		case <-timeout:
			f.t.Fatalf("no %s within 5 s", k)
			return nil
		}
	}
}

func goodStatus() []byte {
	return pbuddy.EncodeStatus(pbuddy.StatusAck{Name: "Claude_Pi", Bat: pbuddy.Battery{Pct: 100, MilliVolt: 5000, USB: true}})
}

// deviceAnswers acks like a well-behaved device.
func deviceAnswers(m pbuddy.Message) []byte {
	c, ok := m.(pbuddy.Command)
	if !ok {
		return nil
	}
	if c.CmdName() == pbuddy.CmdStatus {
		return goodStatus()
	}
	return pbuddy.AckOK(c.CmdName(), 0)
}

func start(t *testing.T, desk net.Conn, o Options) *Desktop {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	d, err := Start(ctx, desk, &o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestConnectSendsOwnerThenTimeThenHeartbeat(t *testing.T) {
	f, desk := newFakeDevice(t, deviceAnswers)
	start(t, desk, Options{Owner: "Felix", StatusEvery: -1})
	if m := f.next(pbuddy.KindCommand); m != (pbuddy.Owner{Name: "Felix"}) {
		t.Fatalf("first line %#v, want owner Felix", m)
	}
	f.next(pbuddy.KindTime)
	h := f.next(pbuddy.KindHeartbeat).(pbuddy.Heartbeat)
	if h.Prompt != nil || h.Msg != "ready" {
		t.Errorf("first heartbeat %+v, want no prompt and msg ready", h)
	}
	f.mu.Lock()
	kinds := []pbuddy.Kind{}
	for _, m := range f.msgs[:3] {
		kinds = append(kinds, m.Kind())
	}
	f.mu.Unlock()
	if kinds[0] != pbuddy.KindCommand || kinds[1] != pbuddy.KindTime || kinds[2] != pbuddy.KindHeartbeat {
		t.Errorf("wire order %v, want command(owner), time, heartbeat", kinds)
	}
}

// A reconnect sends owner and time but no heartbeat (spec §2.3): the first
// one comes when the keepalive falls due, and still carries the prompt the
// dropped connection was waiting on.
func TestReconnectSendsNoHeartbeatUntilTheKeepalive(t *testing.T) {
	f0, desk0 := newFakeDevice(t, deviceAnswers)
	d0 := start(t, desk0, Options{StatusEvery: -1})
	d0.SetPrompt("req_1", "Bash", "ls")
	for h := f0.next(pbuddy.KindHeartbeat).(pbuddy.Heartbeat); h.Prompt == nil; {
		h = f0.next(pbuddy.KindHeartbeat).(pbuddy.Heartbeat)
	}
	var r *Resume
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if r = d0.Resume(); !d0.PromptSentAt("req_1").IsZero() {
			break
		}
	}
	d0.Close()
	if r.Prompt == nil || r.Prompt.ID != "req_1" || r.LastBeat.IsZero() {
		t.Fatalf("Resume = %+v, want req_1 and the last beat", r)
	}

	f, desk := newFakeDevice(t, deviceAnswers)
	keepalive := 1500 * time.Millisecond
	connected := time.Now()
	start(t, desk, Options{Owner: "Felix", StatusEvery: -1, Keepalive: keepalive, Resume: &Resume{Session: r.Session, Prompt: r.Prompt}})
	f.next(pbuddy.KindTime)
	h := f.next(pbuddy.KindHeartbeat).(pbuddy.Heartbeat)
	if waited := time.Since(connected); waited < keepalive {
		t.Errorf("first heartbeat %v after the reconnect, want none before the %v keepalive", waited, keepalive)
	}
	if h.Prompt == nil || h.Prompt.ID != "req_1" {
		t.Errorf("first heartbeat after the reconnect %+v, want prompt req_1", h)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.msgs) != 3 || f.msgs[0].Kind() != pbuddy.KindCommand || f.msgs[1].Kind() != pbuddy.KindTime {
		t.Errorf("wire after a reconnect %v, want owner, time, then the keepalive heartbeat", f.msgs)
	}
}

func TestOwnerAckIsAwaitedAtMostThreeSeconds(t *testing.T) {
	_, desk := newFakeDevice(t, nil) // a device that never acks
	began := time.Now()
	start(t, desk, Options{Owner: "Felix", StatusEvery: -1})
	if took := time.Since(began); took < 2900*time.Millisecond || took > 4500*time.Millisecond {
		t.Errorf("connect took %v, want about 3 s (owner ack timeout, failure ignored)", took)
	}
}

func TestWritesAreSlicedAt180Bytes(t *testing.T) {
	f, desk := newFakeDevice(t, deviceAnswers)
	d := start(t, desk, Options{StatusEvery: -1})
	f.next(pbuddy.KindHeartbeat)
	long := `{"evt":"turn","role":"assistant","content":"` + strings.Repeat("é", 1000) + `"}` + "\n"
	if err := d.SendRaw([]byte(long)); err != nil {
		t.Fatal(err)
	}
	f.next(pbuddy.KindTurn)
	f.mu.Lock()
	defer f.mu.Unlock()
	total := 0
	for _, n := range f.slices {
		if n > SliceSize {
			t.Fatalf("a write of %d bytes, want at most %d", n, SliceSize)
		}
		total += n
	}
	if c := d.Counters(); total != c.BytesSent {
		t.Errorf("device read %d bytes, desktop sent %d", total, c.BytesSent)
	}
}

func TestPromptStaysUntilTheDeviceDecides(t *testing.T) {
	f, desk := newFakeDevice(t, deviceAnswers)
	d := start(t, desk, Options{StatusEvery: -1, Keepalive: 50 * time.Millisecond, Debounce: 10 * time.Millisecond})
	f.next(pbuddy.KindHeartbeat)
	id := `req_"quoted"\back` + "\u2028 ☃ 🐸"
	d.SetPrompt(id, "Bash", "npm test")
	for range 3 { // keepalives repeat it
		for {
			h := f.next(pbuddy.KindHeartbeat).(pbuddy.Heartbeat)
			if h.Prompt != nil {
				if h.Prompt.ID != id || h.Waiting != 1 || h.Msg != "approve: Bash" {
					t.Fatalf("heartbeat %+v, want prompt %q waiting 1", h, id)
				}
				break
			}
		}
	}
	// A turn event does not touch the prompt.
	if err := d.SendTurn("assistant", "still working"); err != nil {
		t.Fatal(err)
	}
	if h := f.next(pbuddy.KindHeartbeat).(pbuddy.Heartbeat); h.Prompt == nil {
		t.Fatal("prompt dropped after a turn event")
	}
	// A decision for another id is delivered but changes nothing.
	f.send(pbuddy.EncodePermission("other", pbuddy.Deny))
	if p := <-d.Decisions(); p.ID != "other" {
		t.Fatalf("decision %q, want other", p.ID)
	}
	if d.Prompt() == nil {
		t.Fatal("a decision for another id cleared the prompt")
	}
	line := pbuddy.EncodePermission(id, pbuddy.Once)
	f.send(line)
	p := <-d.Decisions()
	if p.ID != id || p.Decision != pbuddy.Once || string(p.Line)+"\n" != string(line) {
		t.Fatalf("decision %+v, want once for %q with the line as sent", p, id)
	}
	// The next heartbeat (pushed at once) no longer carries it.
	for {
		if h := f.next(pbuddy.KindHeartbeat).(pbuddy.Heartbeat); h.Prompt == nil {
			if h.Waiting != 0 {
				t.Errorf("waiting %d after the decision, want 0", h.Waiting)
			}
			break
		}
	}
}

func TestHeartbeatsDebounceAndKeepalive(t *testing.T) {
	f, desk := newFakeDevice(t, deviceAnswers)
	d := start(t, desk, Options{StatusEvery: -1, Keepalive: time.Hour, Debounce: 100 * time.Millisecond})
	f.next(pbuddy.KindHeartbeat)
	for i := range 10 {
		d.Update(func(s *Session) { s.Tokens = uint64(i) })
	}
	h := f.next(pbuddy.KindHeartbeat).(pbuddy.Heartbeat)
	if h.Tokens != 9 {
		t.Errorf("debounced heartbeat has tokens %d, want the last value 9", h.Tokens)
	}
	time.Sleep(300 * time.Millisecond)
	if c := d.Counters(); c.Heartbeats != 2 {
		t.Errorf("%d heartbeats for a burst of 10 changes, want 1 (+1 at start)", c.Heartbeats)
	}
}

func TestStatusIsValidatedStrictly(t *testing.T) {
	bad := []byte(`{"ack":"status","ok":true,"n":0,"data":{"name":"x","sec":false,"sys":{"up":1,"heap":2},"stats":{"appr":0,"deny":0,"vel":0,"nap":0,"lvl":0}}}` + "\n")
	var reply = goodStatus()
	var mu sync.Mutex
	_, desk := newFakeDevice(t, func(m pbuddy.Message) []byte {
		mu.Lock()
		defer mu.Unlock()
		if m == (pbuddy.Status{}) {
			return reply
		}
		return deviceAnswers(m)
	})
	d := start(t, desk, Options{StatusEvery: 20 * time.Millisecond})
	if r := <-d.StatusAcks(); r.Err != nil || r.Status.Name != "Claude_Pi" {
		t.Fatalf("good status: %+v", r)
	}
	mu.Lock()
	reply = bad
	mu.Unlock()
	for {
		r := <-d.StatusAcks()
		if r.Err != nil {
			if !strings.Contains(r.Err.Error(), "bat") {
				t.Errorf("error %v, want it to name the missing bat", r.Err)
			}
			break
		}
	}
	if c := d.Counters(); c.StatusOK < 1 || c.StatusFailed < 1 {
		t.Errorf("counters %+v, want both ok and failed", c)
	}
}

func TestPushFiles(t *testing.T) {
	files := []PackFile{
		{Name: "manifest.json", Data: []byte(`{"name":"bufo","states":{"idle":"idle.gif"}}`)},
		{Name: "idle.gif", Data: []byte(strings.Repeat("G", 700))},
	}
	tests := []struct {
		name     string
		answer   func(m pbuddy.Message, n *int64) []byte
		wantStep string // "" = success
		wantText string
	}{
		{"ok", nil, "", ""},
		{"char_begin refused with error", func(m pbuddy.Message, _ *int64) []byte {
			if _, ok := m.(pbuddy.CharBegin); ok {
				return pbuddy.AckFail("char_begin", 1200000, "need 1748K, have 1171K")
			}
			return nil
		}, "char_begin", "need 1748K"},
		{"invalid path", func(m pbuddy.Message, _ *int64) []byte {
			if _, ok := m.(pbuddy.File); ok {
				return pbuddy.AckFail("file", 0, "invalid path")
			}
			return nil
		}, "file", "invalid path"},
		{"short file", func(m pbuddy.Message, n *int64) []byte {
			if _, ok := m.(pbuddy.FileEnd); ok {
				return pbuddy.AckOK("file_end", *n-1)
			}
			return nil
		}, "file_end", "wrote"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n int64
			_, desk := newFakeDevice(t, func(m pbuddy.Message) []byte {
				if tt.answer != nil {
					if r := tt.answer(m, &n); r != nil {
						return r
					}
				}
				switch m := m.(type) {
				case pbuddy.File:
					n = 0
				case pbuddy.Chunk:
					b, _ := m.AppendDecoded(nil)
					n += int64(len(b))
					return pbuddy.AckOK("chunk", n)
				case pbuddy.FileEnd:
					return pbuddy.AckOK("file_end", n)
				}
				return deviceAnswers(m)
			})
			d := start(t, desk, Options{StatusEvery: -1})
			err := d.PushFiles(context.Background(), "bufo", files)
			if tt.wantStep == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var pe *PushError
			if !errors.As(err, &pe) || pe.Step != tt.wantStep || !strings.Contains(err.Error(), tt.wantText) {
				t.Fatalf("err = %v, want a PushError at %s containing %q", err, tt.wantStep, tt.wantText)
			}
		})
	}
}

func TestPushRefusedByTheDesktop(t *testing.T) {
	_, desk := newFakeDevice(t, deviceAnswers)
	d := start(t, desk, Options{StatusEvery: -1})
	for _, files := range [][]PackFile{nil, {{Name: "big.gif", Data: make([]byte, MaxPack+1)}}} {
		var pe *PushError
		if err := d.PushFiles(context.Background(), "x", files); !errors.As(err, &pe) || pe.Step != "inventory" {
			t.Errorf("PushFiles(%d files) = %v, want an inventory error", len(files), err)
		}
	}
}

func TestDisconnectEndsTheDesktop(t *testing.T) {
	f, desk := newFakeDevice(t, deviceAnswers)
	d := start(t, desk, Options{StatusEvery: -1})
	f.conn.Close()
	select {
	case <-d.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed after the device hung up")
	}
	if d.Err() == nil {
		t.Error("Err() = nil after a lost connection")
	}
	if _, err := d.Command(context.Background(), pbuddy.Status{}); err == nil {
		t.Error("Command on a dead link = nil error")
	}
}

func TestDialTCPAndUnix(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			addr := "127.0.0.1:0"
			if network == "unix" {
				addr = t.TempDir() + "/nus.sock"
			}
			ln, err := net.Listen(network, addr)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			got := make(chan string, 1)
			go func() {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				defer c.Close()
				buf := make([]byte, 512)
				n, _ := c.Read(buf)
				got <- string(buf[:n])
				_, _ = c.Write(pbuddy.AckOK("owner", 0))
				_, _ = c.Read(buf)
			}()
			dial := ln.Addr().String()
			if network == "unix" {
				dial = "unix:" + addr
			}
			d, err := DialOptions(context.Background(), dial, &Options{Owner: "Ada", StatusEvery: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if s := <-got; !strings.HasPrefix(s, `{"cmd":"owner","name":"Ada"}`) {
				t.Errorf("first bytes %q, want the owner command", s)
			}
		})
	}
	if _, err := Dial(context.Background(), "127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "--nus-listen") {
		t.Errorf("Dial to a closed port = %v, want an error with a hint", err)
	}
}
