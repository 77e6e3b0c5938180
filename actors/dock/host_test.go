package dock

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/actors/dock/voice"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

func testHost() *host {
	return newHost(hostConfig{speakPrompts: true, speakAssistant: true, assistantMax: 200,
		Config: voice.Config{SpeakConversation: true, HasTTS: true, Token: "t", Log: slog.New(slog.DiscardHandler)}})
}

// sent parses what the host wrote.
func sent(t testing.TB, h *host) []wire.Frame {
	t.Helper()
	var p wire.Parser
	p.Feed(h.takeTx())
	var out []wire.Frame
	for f, ok := p.Next(); ok; f, ok = p.Next() {
		f.Payload = append([]byte(nil), f.Payload...)
		out = append(out, f)
	}
	return out
}

func ack(caps wire.Caps, max uint32) wire.Frame {
	return wire.HelloAckFrame(0, wire.HelloPayload{MaxPayload: max, Caps: caps})
}

func TestRequestID(t *testing.T) {
	tests := []struct {
		source, id, want string
	}{
		{"desktop", "toolu_01", "approval-desktop-toolu_01"},
		{"cli:a", "x y", requestID("cli:a", "x y")}, // space: hashed
	}
	for _, tt := range tests {
		if got := requestID(tt.source, tt.id); got != tt.want {
			t.Errorf("requestID(%q, %q) = %q, want %q", tt.source, tt.id, got, tt.want)
		}
	}
	long := requestID("desktop", strings.Repeat("ü", 200))
	if len(long) > maxRequestID || long != requestID("desktop", strings.Repeat("ü", 200)) {
		t.Errorf("long id %q: not bounded or not stable", long)
	}
	if requestID("a", "b\x00c") == requestID("a\x00b", "c") || strings.Contains(requestID("cli:a", "x y"), " ") {
		t.Error("hashed ids collide or keep spaces")
	}
}

func TestKindAndResolvedMessage(t *testing.T) {
	kinds := map[string]appevent.ApprovalKind{"Bash": appevent.KindCommand, "Edit": appevent.KindFileChange,
		"Write": appevent.KindFileChange, "MultiEdit": appevent.KindFileChange, "NotebookEdit": appevent.KindFileChange,
		"WebFetch": appevent.KindCommand}
	for tool, want := range kinds {
		if got := kindFor(tool); got != want {
			t.Errorf("kindFor(%q) = %q, want %q", tool, got, want)
		}
	}
	msgs := []struct {
		how  approvals.Resolution
		by   string
		want string
	}{
		{approvals.ApprovedHere, "Claude_Pi", "approved on Claude_Pi"},
		{approvals.DeniedHere, "CoreS3", "denied on CoreS3"},
		{approvals.ApprovedHere, "voice", "approved by voice"},
		{approvals.AnsweredElsewhere, "", "answered on the desktop"},
		{approvals.Gone, "", "desktop disconnected"},
	}
	for _, m := range msgs {
		if got := resolvedMessage(m.how, m.by); got != m.want {
			t.Errorf("resolvedMessage(%v, %q) = %q, want %q", m.how, m.by, got, m.want)
		}
	}
}

func TestHandshake(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name    string
		ack     wire.Frame
		wantErr bool
		event   bool
	}{
		{"release firmware", ack(wire.FirmwareCaps, 4096), false, true},
		{"without EVENT", ack(wire.FirmwareCaps&^wire.CapEvent, 4096), false, false},
		{"without 24 kHz", ack(wire.FirmwareCaps&^wire.CapSpeaker24k, 4096), true, false},
		{"max too small", ack(wire.FirmwareCaps, 639), true, false},
		{"on stream 1", wire.ControlFrame(wire.CtrlHelloAck, 1, 0, 0, wire.HelloPayload{MaxPayload: 4096, Caps: wire.FirmwareCaps}.Append(nil)), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := testHost()
			h.attach(t0)
			if fs := sent(t, h); len(fs) != 1 || fs[0].Flags != uint16(wire.CtrlHello) {
				t.Fatalf("attach sent %v, want one HELLO", fs)
			}
			h.frame(tt.ack, t0.Add(10*time.Millisecond))
			var closed bool
			for _, e := range h.takeEffects() {
				_, closed = e.(closeOut)
			}
			if closed != tt.wantErr || h.eventReady() != tt.event {
				t.Errorf("closed %v ready %v, want %v %v", closed, h.eventReady(), tt.wantErr, tt.event)
			}
		})
	}
}

func TestHelloResendAndGiveUp(t *testing.T) {
	t0 := time.Unix(1000, 0)
	h := testHost()
	h.attach(t0)
	n := len(sent(t, h))
	for now := t0; now.Before(t0.Add(helloGiveUp)); now = now.Add(100 * time.Millisecond) {
		h.tick(now)
		n += len(sent(t, h))
	}
	if n != 16 {
		t.Errorf("%d HELLOs in 8 s, want 16 (every 500 ms)", n)
	}
	h.tick(t0.Add(helloGiveUp))
	e := h.takeEffects()
	if len(e) != 1 || !errors.Is(e[0].(closeOut).Err, errHandshakeTimeout) {
		t.Errorf("effects after 8 s = %v", e)
	}
}

func TestLaterHelloAckDropsSessions(t *testing.T) {
	t0 := time.Unix(1000, 0)
	h := testHost()
	h.attach(t0)
	h.frame(ack(wire.FirmwareCaps, 4096), t0)
	h.mirror.appeared(prompt, t0, false)
	sent(t, h)
	h.frame(ack(wire.FirmwareCaps, 4096), t0.Add(500*time.Millisecond)) // duplicate: ignored
	if fs := sent(t, h); len(fs) != 0 {
		t.Errorf("duplicate HELLO_ACK within 1 s re-sent %d frames", len(fs))
	}
	h.frame(ack(wire.FirmwareCaps, 4096), t0.Add(2*time.Second)) // firmware reset
	var reqs, tasks int
	for _, f := range sent(t, h) {
		if ev, err := appevent.Decode(f.Payload); err == nil {
			switch ev.(type) {
			case appevent.ApprovalRequest:
				reqs++
			case appevent.TaskStatus:
				tasks++
			}
		}
	}
	if reqs != 1 || tasks != 1 {
		t.Errorf("after a new HELLO_ACK: %d approval.request, %d task.status; want 1 and 1", reqs, tasks)
	}
}

// TestErrorBeforeHelloRehandshakes: a CoreS3 that reset while the port
// stayed open answers our EVENT (or STATUS) with ERROR 1, as before any
// HELLO; the host handshakes again and re-sends the pending approval,
// instead of believing the screen shows it. Errors for other streams are
// left alone.
func TestErrorBeforeHelloRehandshakes(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name   string
		stream func(evID uint16) uint16
		rehs   bool
	}{
		{"ERROR 1 for our approval.request", func(id uint16) uint16 { return id }, true},
		{"ERROR 1 on stream 0 (STATUS)", func(uint16) uint16 { return 0 }, true},
		{"ERROR 1 for an id never sent", func(id uint16) uint16 { return id + 500 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := testHost()
			h.attach(t0)
			h.frame(ack(wire.FirmwareCaps, 4096), t0)
			h.mirror.appeared(prompt, t0, false)
			var evID uint16
			for _, f := range sent(t, h) {
				if f.Type == wire.TypeEvent {
					evID = f.StreamID
				}
			}
			if evID == 0 {
				t.Fatal("no EVENT sent for the prompt")
			}
			now := t0.Add(3 * time.Second)
			h.frame(wire.ErrorFrame(tt.stream(evID), 0, wire.ErrInvalidRequest), now)
			var hellos int
			for _, f := range sent(t, h) {
				if f.Type == wire.TypeControl && f.Flags == uint16(wire.CtrlHello) {
					hellos++
				}
			}
			if got := hellos == 1 && !h.eventReady(); got != tt.rehs {
				t.Fatalf("%d HELLOs, event ready %v; want a new handshake: %v", hellos, h.eventReady(), tt.rehs)
			}
			if !tt.rehs {
				return
			}
			h.frame(ack(wire.FirmwareCaps, 4096), now.Add(10*time.Millisecond))
			var reqs int
			for _, f := range sent(t, h) {
				if ev, err := appevent.Decode(f.Payload); err == nil {
					if _, ok := ev.(appevent.ApprovalRequest); ok {
						reqs++
					}
				}
			}
			if reqs != 1 || !h.eventReady() {
				t.Errorf("after the new HELLO_ACK: %d approval.request, ready %v; want 1, true", reqs, h.eventReady())
			}
		})
	}
}

func TestRecentEvent(t *testing.T) {
	tests := []struct {
		last, id, speaker uint16
		want              bool
	}{
		{0, 1, 0, false},     // nothing sent
		{5, 5, 0, true},      // the last one
		{5, 6, 0, false},     // not sent yet
		{2, 65535, 0, true},  // across the wrap (0 is skipped)
		{200, 100, 0, false}, // too old
		{10, 3, 3, false},    // also the current speaker stream
		{10, 3, 9, true},     // speaker streams far from it
		{10, 0, 0, false},    // stream 0 is not an EVENT id
		{65535, 1, 0, false}, // ahead of the last
	}
	for _, tt := range tests {
		if got := recentEvent(tt.last, tt.speaker, tt.id); got != tt.want {
			t.Errorf("last %d speaker %d: recentEvent(%d) = %v, want %v", tt.last, tt.speaker, tt.id, got, tt.want)
		}
	}
}
