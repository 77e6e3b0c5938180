package dock

import (
	"slices"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// statusesIn is the STATUS values among frames, in order.
func statusesIn(fs []wire.Frame) []wire.Status {
	var out []wire.Status
	for _, f := range fs {
		if code, _ := f.Control(); f.Type == wire.TypeControl && code == wire.CtrlStatus && len(f.Payload) == 1 {
			out = append(out, wire.Status(f.Payload[0]))
		}
	}
	return out
}

// TestAnsweredWhileAnnouncingSendsIdle (issue 32.6c): a prompt answered
// while its announcement plays is cut off with SPEAKER_ABORT, and the
// badge goes back to IDLE with it, not a minute later.
func TestAnsweredWhileAnnouncingSendsIdle(t *testing.T) {
	t0 := time.Unix(1000, 0)
	h := readyHost(t, t0, func(c *hostConfig) { c.speakPrompts = true })
	sent(t, h)
	h.mirror.appeared(prompt, t0, true)
	var synth *synthOut
	for _, e := range h.takeEffects() {
		if s, ok := e.(synthOut); ok {
			synth = &s
		}
	}
	if synth == nil {
		t.Fatal("no announcement synthesized")
	}
	h.SynthDone(synth.Utt, synth.Index, make([]byte, synth.Rate/5), nil, t0)
	h.updateStatus()
	if st := statusesIn(sent(t, h)); len(st) == 0 || st[len(st)-1] != wire.StatusSpeaking {
		t.Fatalf("statuses while announcing %v, want SPEAKING last", st)
	}

	h.mirror.resolve(prompt, resolvedMessage(approvals.ApprovedHere, "Claude_Pi"))
	fs := sent(t, h)
	aborted := false
	for _, f := range fs {
		if code, _ := f.Control(); f.Type == wire.TypeControl && code == wire.CtrlSpeakerAbort {
			aborted = true
		}
	}
	if st := statusesIn(fs); !aborted || len(st) != 1 || st[0] != wire.StatusIdle {
		t.Errorf("after the answer: SPEAKER_ABORT %v, statuses %v; want the abort and STATUS IDLE", aborted, st)
	}
	if h.Speaking() || h.status != wire.StatusIdle {
		t.Errorf("speaking %v, status %v after the abort", h.Speaking(), h.status)
	}
}

// approvalEvents is the approval events among msgs, as "request <id>" and
// "resolved <id>", in order.
func approvalEvents(t *testing.T, msgs [][]byte) []string {
	t.Helper()
	var out []string
	for _, m := range msgs {
		e, err := appevent.DecodeInbound(m, appevent.HostToFirmware)
		if err != nil {
			continue // raw events (settings)
		}
		switch e := e.(type) {
		case appevent.ApprovalRequest:
			out = append(out, "request "+e.RequestID)
		case appevent.ApprovalResolved:
			out = append(out, "resolved "+e.RequestID)
		}
	}
	return out
}

// TestReplugGetsExactlyThePendingSet (issue 32.6a, the Pi's side): prompt 1
// is decided on the Pi while the CoreS3 is unplugged, still showing it. At
// the next handshake the CoreS3 is told prompt 1 is resolved before it
// gets prompt 2, so prompt 1 never hides prompt 2. The same holds when the
// Pi had not noticed the unplug yet, and wrote the resolution into a link
// that lost it.
func TestReplugGetsExactlyThePendingSet(t *testing.T) {
	t0 := time.Unix(1000, 0)
	h := readyHost(t, t0, nil)
	first, second := prompt, approvals.Prompt{Source: "desktop", ID: "toolu_02", Tool: "Bash", Hint: "make"}
	h.mirror.appeared(first, t0, false)
	h.mirror.presented(requestID(first.Source, first.ID))
	h.mirror.appeared(second, t0, false)
	messages(t, h)

	h.detach(t0.Add(time.Second))
	h.mirror.resolve(first, resolvedMessage(approvals.ApprovedHere, "Claude_Pi"))
	if got := messages(t, h); len(got) != 0 {
		t.Fatalf("%d messages written while detached", len(got))
	}
	t1 := t0.Add(5 * time.Second)
	h.attach(t1)
	h.frame(ack(wire.FirmwareCaps, 4096), t1)
	got := approvalEvents(t, messages(t, h))
	want := []string{"resolved " + requestID(first.Source, first.ID), "request " + requestID(second.Source, second.ID)}
	if !slices.Equal(got, want) {
		t.Errorf("at the handshake the CoreS3 got %q, want %q", got, want)
	}
	// Not yet noticed: the resolution is written, lost, and sent again at
	// the handshake that follows.
	third := approvals.Prompt{Source: "desktop", ID: "toolu_03", Tool: "Bash", Hint: "make three"}
	h.mirror.appeared(third, t1, false)
	h.mirror.resolve(second, resolvedMessage(approvals.ApprovedHere, "Claude_Pi"))
	messages(t, h) // lost with the link
	t2 := t1.Add(5 * time.Second)
	h.frame(wire.ErrorFrame(0, 0, wire.ErrInvalidRequest), t2) // the CoreS3 is back
	h.frame(ack(wire.FirmwareCaps, 4096), t2)
	want = []string{"resolved " + requestID(second.Source, second.ID), "request " + requestID(third.Source, third.ID)}
	if got := approvalEvents(t, messages(t, h)); !slices.Equal(got, want) {
		t.Errorf("after an unnoticed unplug the CoreS3 got %q, want %q", got, want)
	}

	// Owed once: the next handshake sends only the pending set.
	t3 := t2.Add(5 * time.Second)
	h.detach(t3)
	h.attach(t3)
	h.frame(ack(wire.FirmwareCaps, 4096), t3)
	if got := approvalEvents(t, messages(t, h)); !slices.Equal(got, want[1:]) {
		t.Errorf("at the second handshake %q, want %q", got, want[1:])
	}
}

// TestNoSessionMarker (issue 32.6b, the Pi's side): ERROR 1 on stream 0 is
// what our CoreS3 sends the moment USB comes back after a session. On a
// ready session it starts a new handshake at once; during a handshake it
// is not a refusal of our HELLO: the host says HELLO again and keeps going.
func TestNoSessionMarker(t *testing.T) {
	t0 := time.Unix(1000, 0)
	marker := wire.ErrorFrame(0, 0, wire.ErrInvalidRequest)
	hellos := func(fs []wire.Frame) int {
		n := 0
		for _, f := range fs {
			if code, _ := f.Control(); f.Type == wire.TypeControl && code == wire.CtrlHello {
				n++
			}
		}
		return n
	}
	h := readyHost(t, t0, nil)
	sent(t, h)
	t1 := t0.Add(30 * time.Second)
	h.frame(marker, t1)
	if h.phase != handshake || hellos(sent(t, h)) != 1 {
		t.Fatalf("after the marker on a ready session: phase %d; want a new handshake with one HELLO at once", h.phase)
	}
	h.frame(marker, t1.Add(10*time.Millisecond))
	if effs := h.takeEffects(); h.phase != handshake || len(effs) != 0 || hellos(sent(t, h)) != 1 {
		t.Fatalf("marker during the handshake: phase %d, effects %v; want HELLO again and no close", h.phase, effs)
	}
	h.frame(ack(wire.FirmwareCaps, 4096), t1.Add(20*time.Millisecond))
	if !h.eventReady() {
		t.Fatal("not ready after the HELLO_ACK")
	}
	// Another error during a handshake still refuses the CoreS3.
	h.attach(t1.Add(time.Minute))
	h.frame(wire.ErrorFrame(0, 0, wire.ErrBusy), t1.Add(time.Minute))
	if effs := h.takeEffects(); len(effs) != 1 {
		t.Errorf("ERROR BUSY during the handshake: effects %v, want a close", effs)
	}
}
