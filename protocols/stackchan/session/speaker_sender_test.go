package session

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newSender(t testing.TB, rate uint32, captions bool) *SpeakerSender {
	t.Helper()
	p, err := NewSpeakerSender(SpeakerConfig{StreamID: 5, SampleRate: rate, Captions: captions})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// drain collects every action Next offers at now.
func drain(p *SpeakerSender, now time.Time) []Action {
	var out []Action
	for {
		a, ok := p.Next(now)
		if !ok {
			return out
		}
		a.Payload = append([]byte(nil), a.Payload...)
		out = append(out, a)
	}
}

func TestNewSpeakerSenderRejects(t *testing.T) {
	for _, cfg := range []SpeakerConfig{
		{StreamID: 0, SampleRate: 24000},
		{StreamID: 1, SampleRate: 22050},
		{StreamID: 1, SampleRate: 24000, MaxPayload: 100},
		{StreamID: 1, SampleRate: 24000, MaxPayload: 5000},
	} {
		if _, err := NewSpeakerSender(cfg); err == nil {
			t.Errorf("NewSpeakerSender(%+v) accepted", cfg)
		}
	}
	p, err := NewSpeakerSender(SpeakerConfig{StreamID: 1, SampleRate: 24000, MaxPayload: 1001})
	if err != nil || p.FrameBytes() != 1000 {
		t.Fatalf("frame with max payload 1001 = %d, %v; want 1000", p.FrameBytes(), err)
	}
}

// TestSenderSmallIncrements: credit arriving in slivers never lets a frame out
// early, sequence numbers stay contiguous and the total never exceeds credit.
func TestSenderSmallIncrements(t *testing.T) {
	for _, inc := range []uint32{1, 2, 100, 1279, 3840, 8192} {
		p := newSender(t, 24000, false)
		if a, _ := p.Next(t0); a.Control != wire.CtrlSpeakerStart {
			t.Fatalf("first action %+v, want START", a)
		}
		p.QueuePCM(make([]byte, 10*3840+1000))
		p.Finish()
		var seq uint32
		var sent int
		now := t0
		for i := 0; i < 100000 && p.State() == SenderStreaming || i == 0; i++ {
			now = now.Add(time.Millisecond)
			p.OnCredit(5, inc, now)
			for _, a := range drain(p, now) {
				if a.Type == wire.TypeSpeakerPCM {
					if a.Sequence != seq {
						t.Fatalf("inc %d: sequence %d, want %d", inc, a.Sequence, seq)
					}
					seq++
					sent += len(a.Payload)
				}
			}
			if s, g := p.Sent(); s > g || int64(sent) != s {
				t.Fatalf("inc %d: sent %d (counted %d) > granted %d", inc, s, sent, g)
			}
		}
		if p.State() != SenderEnding || sent != 10*3840+1000 || seq != 11 {
			t.Fatalf("inc %d: state %v, sent %d in %d frames", inc, p.State(), sent, seq)
		}
	}
}

func TestSenderCaptionOrdering(t *testing.T) {
	p := newSender(t, 8000, true)
	p.Next(t0)
	p.OnCredit(5, CreditWindow, t0)
	p.QueueCaption("  One.  ")
	p.QueuePCM(make([]byte, 1280+400)) // one full frame and a sentence tail
	p.QueueCaption("Replaced")
	p.QueueCaption("Two.")
	p.QueuePCM(make([]byte, 600))
	p.QueueCaption("Trailing")
	p.Finish()
	var got []string
	for _, a := range drain(p, t0) {
		switch {
		case a.Control == wire.CtrlSpeakerText:
			got = append(got, "text:"+string(a.Payload))
		case a.Type == wire.TypeSpeakerPCM:
			got = append(got, "pcm:"+strconv.Itoa(len(a.Payload)))
		default:
			got = append(got, a.Control.String())
		}
	}
	want := "text:One. pcm:1280 pcm:400 text:Two. pcm:600 " + wire.CtrlSpeakerEnd.String()
	if strings.Join(got, " ") != want {
		t.Fatalf("actions\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestSenderWaitsForFullFrame(t *testing.T) {
	p := newSender(t, 16000, false)
	p.Next(t0)
	p.OnCredit(5, CreditWindow, t0)
	p.QueuePCM(make([]byte, 1000))
	if a := drain(p, t0); len(a) != 0 {
		t.Fatalf("sent %d actions with less than a frame queued and more to come", len(a))
	}
	p.QueuePCM(make([]byte, 2000))
	if a := drain(p, t0); len(a) != 1 || len(a[0].Payload) != 2560 {
		t.Fatalf("got %d actions, want one 2560-byte frame", len(a))
	}
}

func TestTruncateCaption(t *testing.T) {
	s := strings.Repeat("a", 1023) + "é" // é is 2 bytes: would end at 1025
	got := TruncateCaption(s)
	if len(got) != 1023 || !utf8.ValidString(got) {
		t.Fatalf("TruncateCaption: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
	if TruncateCaption("short") != "short" {
		t.Fatal("short caption changed")
	}
}

func TestSenderCreditNotes(t *testing.T) {
	p := newSender(t, 24000, false)
	if n := p.OnCredit(5, 100, t0); n != CreditIgnored {
		t.Fatalf("credit before START = %v", n)
	}
	p.Next(t0)
	tests := []struct {
		stream uint16
		inc    uint32
		want   CreditNote
		avail  int
	}{
		{4, 8192, CreditIgnored, 0},
		{5, 0, CreditZero, 0},
		{5, 8000, CreditApplied, 8000},
		{5, 1000, CreditClamped, 8192},
		{5, 4294967295, CreditClamped, 8192},
	}
	for _, tt := range tests {
		if n := p.OnCredit(tt.stream, tt.inc, t0); n != tt.want || p.Credit() != tt.avail {
			t.Fatalf("OnCredit(%d, %d) = %v avail %d, want %v avail %d", tt.stream, tt.inc, n, p.Credit(), tt.want, tt.avail)
		}
	}
}

func TestSenderTimeouts(t *testing.T) {
	t.Run("no initial credit", func(t *testing.T) {
		p := newSender(t, 24000, false)
		p.Next(t0)
		if w, ok := p.Wake(); !ok || !w.Equal(t0.Add(InitialCreditWait)) {
			t.Fatalf("Wake = %v %v", w, ok)
		}
		if _, ok := p.Next(t0.Add(time.Second)); ok {
			t.Fatal("acted before the deadline")
		}
		a, ok := p.Next(t0.Add(InitialCreditWait))
		if !ok || a.Control != wire.CtrlSpeakerAbort || !errors.Is(p.Err(), ErrNoCredit) {
			t.Fatalf("at deadline %+v %v err %v", a, ok, p.Err())
		}
	})
	t.Run("credit stall", func(t *testing.T) {
		p := newSender(t, 24000, false)
		p.Next(t0)
		p.OnCredit(5, 3840, t0)
		p.QueuePCM(make([]byte, 3*3840))
		drain(p, t0)
		p.OnCredit(5, 100, t0.Add(10*time.Second)) // progress, not enough for a frame
		drain(p, t0.Add(10*time.Second))
		if a := drain(p, t0.Add(24*time.Second)); len(a) != 0 {
			t.Fatalf("gave up before 15 s without progress: %+v", a)
		}
		a := drain(p, t0.Add(25*time.Second))
		if len(a) != 1 || a[0].Control != wire.CtrlSpeakerAbort || !errors.Is(p.Err(), ErrCreditStall) {
			t.Fatalf("stall actions %+v err %v", a, p.Err())
		}
	})
	t.Run("done timeout", func(t *testing.T) {
		p := newSender(t, 24000, false)
		p.Next(t0)
		p.OnCredit(5, 10, t0)
		p.Finish()
		if a := drain(p, t0); len(a) != 1 || a[0].Control != wire.CtrlSpeakerEnd {
			t.Fatalf("empty session actions %+v, want END", a)
		}
		p.Next(t0.Add(SpeakerDoneTimeout))
		if !errors.Is(p.Err(), ErrDoneTimeout) {
			t.Fatalf("err %v", p.Err())
		}
	})
}

func TestSenderStaleRepliesIgnored(t *testing.T) {
	p := newSender(t, 24000, false)
	p.Next(t0)
	p.OnCredit(5, 100, t0)
	p.Finish()
	drain(p, t0)
	if p.OnDone(4) || p.OnError(4, wire.ErrBusy) || p.State() != SenderEnding {
		t.Fatalf("stale DONE/ERROR changed state to %v", p.State())
	}
	if !p.OnDone(5) || p.State() != SenderDone {
		t.Fatalf("DONE for own stream: state %v", p.State())
	}
	if _, ok := p.Abort(); ok {
		t.Fatal("ABORT offered after DONE")
	}
}

func TestSenderErrorAndReset(t *testing.T) {
	p := newSender(t, 24000, false)
	p.Next(t0)
	var fe *FirmwareError
	if !p.OnError(5, wire.ErrSpeakerSequenceMismatch) || !errors.As(p.Err(), &fe) || fe.Code != wire.ErrSpeakerSequenceMismatch {
		t.Fatalf("ERROR on own stream: err %v", p.Err())
	}
	if err := p.QueuePCM([]byte{0, 0}); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("QueuePCM after failure = %v", err)
	}
	q := newSender(t, 24000, false)
	q.Next(t0)
	q.Reset()
	if !errors.Is(q.Err(), ErrSessionLost) {
		t.Fatalf("reset err %v", q.Err())
	}
	u := newSender(t, 24000, false)
	u.Reset()
	if u.Err() != nil || u.State() != SenderStarting {
		t.Fatalf("reset before START: state %v err %v", u.State(), u.Err())
	}
	if a, _ := u.Next(t0); a.Frame().Flags != uint16(wire.CtrlSpeakerStart) || a.Frame().Type != wire.TypeControl {
		t.Fatalf("START frame %+v", a.Frame())
	}
	if err := newSender(t, 24000, false).QueuePCM([]byte{1}); err == nil {
		t.Fatal("odd PCM chunk accepted")
	}
}

// TestSenderAgainstDock plays a captioned session against the fake CoreS3 with
// a simulated clock: every frame is accepted and the session ends with DONE.
func TestSenderAgainstDock(t *testing.T) {
	for _, rate := range []uint32{8000, 16000, 24000} {
		var d Dock
		p := newSender(t, rate, true)
		for i := 0; i < 3; i++ {
			p.QueueCaption("Sentence " + strconv.Itoa(i))
			p.QueuePCM(make([]byte, int(rate)*2*7/10)) // 0.7 s each
		}
		p.Finish()
		now := t0
		var shown []string
		for step := 0; p.State() < SenderDone && step < 10000; step++ {
			for _, a := range drain(p, now) {
				var o Outcome
				if a.Type == wire.TypeSpeakerPCM {
					o = d.SpeakerPCM(a.StreamID, a.SampleRate, a.Sequence, len(a.Payload))
				} else {
					o, _ = d.Control(a.Control, a.StreamID, a.SampleRate, a.Payload)
				}
				if o.Result != Accepted {
					t.Fatalf("%d Hz: dock %v for %v: %+v", rate, o.Result, a.Control, o.Replies)
				}
				deliver(t, p, o, now)
			}
			now = now.Add(10 * time.Millisecond)
			o := d.Advance(10 * time.Millisecond)
			shown = append(shown, o.Captions...)
			deliver(t, p, o, now)
		}
		if p.State() != SenderDone || strings.Join(shown, "|") != "Sentence 0|Sentence 1|Sentence 2" {
			t.Fatalf("%d Hz: state %v err %v captions %q", rate, p.State(), p.Err(), shown)
		}
	}
}

func deliver(t *testing.T, p *SpeakerSender, o Outcome, now time.Time) {
	t.Helper()
	for _, r := range o.Replies {
		switch r.Code {
		case wire.CtrlSpeakerCredit:
			if n := p.OnCredit(r.StreamID, r.Value, now); n != CreditApplied {
				t.Fatalf("credit %d: %v", r.Value, n)
			}
		case wire.CtrlSpeakerDone:
			p.OnDone(r.StreamID)
		default:
			t.Fatalf("unexpected reply %+v", r)
		}
	}
}
