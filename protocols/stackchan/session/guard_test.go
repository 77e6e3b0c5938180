package session

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

func errReply(stream uint16, code wire.ErrorCode) []Reply {
	return []Reply{{Code: wire.CtrlError, StreamID: stream, Value: uint32(code)}}
}

func TestResultString(t *testing.T) {
	for r, want := range map[Result]string{Accepted: "accepted", Idempotent: "idempotent", Stale: "stale",
		Invalid: "invalid", Busy: "busy", 0: "result(0)", 9: "result(9)"} {
		if got := r.String(); got != want {
			t.Errorf("Result(%d).String() = %q, want %q", r, got, want)
		}
	}
}

func TestSpeakerFrameBytes(t *testing.T) {
	for rate, want := range map[uint32]int{8000: 1280, 16000: 2560, 24000: 3840} {
		if got := SpeakerFrameBytes(rate); got != want {
			t.Errorf("SpeakerFrameBytes(%d) = %d, want %d", rate, got, want)
		}
	}
}

func TestMicGuardReplies(t *testing.T) {
	var d Dock
	if o := d.MicStart(3, 16000, 0); o.Result != Accepted || o.Replies != nil {
		t.Fatalf("start = %+v, want accepted with no reply before capture", o)
	}
	if o := d.MicStart(3, 16000, 0); o.Result != Idempotent || o.Replies != nil {
		t.Fatalf("repeat start before capture = %+v, want silent idempotent", o)
	}
	started := []Reply{{Code: wire.CtrlMicStarted, StreamID: 3, SampleRate: 16000}}
	if o := d.Mic.CaptureStarted(); !reflect.DeepEqual(o.Replies, started) {
		t.Fatalf("capture started replies %+v, want %+v", o.Replies, started)
	}
	if o := d.MicStart(3, 16000, 0); !reflect.DeepEqual(o.Replies, started) {
		t.Fatalf("repeat start after capture replies %+v, want MIC_STARTED again", o.Replies)
	}
	for want := uint32(0); want < 3; want++ {
		if _, seq, ok := d.Mic.NextFrame(); !ok || seq != want {
			t.Fatalf("NextFrame = %d %v, want %d", seq, ok, want)
		}
	}
	if o := d.MicStart(4, 16000, 0); o.Result != Busy || !reflect.DeepEqual(o.Replies, errReply(4, wire.ErrBusy)) {
		t.Fatalf("second mic id = %+v, want busy ERROR 5", o)
	}
	if o := d.SpeakerStart(5, 24000, 0); o.Result != Busy {
		t.Fatalf("speaker during mic = %v, want busy", o.Result)
	}
	if o := d.Mic.Stop(3, 8000, 0); o.Result != Invalid || !reflect.DeepEqual(o.Replies, errReply(3, wire.ErrInvalidStreamData)) {
		t.Fatalf("stop at 8 kHz = %+v, want invalid ERROR 2", o)
	}
	stopped := []Reply{{Code: wire.CtrlMicStopped, StreamID: 3, SampleRate: 16000}}
	if o := d.Mic.Stop(3, 16000, 0); o.Result != Accepted || !reflect.DeepEqual(o.Replies, stopped) {
		t.Fatalf("stop = %+v, want MIC_STOPPED", o)
	}
	if _, _, ok := d.Mic.NextFrame(); ok {
		t.Fatal("NextFrame after stop produced a frame")
	}
	// TX overflow force-stop: ERROR 3, then a host MIC_STOP still gets MIC_STOPPED.
	d.MicStart(6, 16000, 0)
	s, o := d.Mic.ForceStop(wire.ErrTransportOverflow)
	if s.StreamID != 6 || !reflect.DeepEqual(o.Replies, errReply(6, wire.ErrTransportOverflow)) {
		t.Fatalf("force stop = %v %+v", s, o)
	}
	if o := d.Mic.Stop(6, 16000, 0); o.Result != Idempotent || len(o.Replies) != 1 {
		t.Fatalf("stop after force stop = %+v, want idempotent MIC_STOPPED", o)
	}
}

func TestSpeakerGuardStartRules(t *testing.T) {
	tests := []struct {
		name    string
		prep    func(d *Dock)
		id      uint16
		rate    uint32
		payload int
		want    Result
		replies []Reply
	}{
		{"fresh", nil, 1, 16000, 0, Accepted, []Reply{{wire.CtrlSpeakerCredit, 1, 16000, CreditWindow}}},
		{"8k credit is the window", nil, 1, 8000, 0, Accepted, []Reply{{wire.CtrlSpeakerCredit, 1, 8000, CreditWindow}}},
		{"bad rate", nil, 1, 44100, 0, Invalid, errReply(1, wire.ErrInvalidStreamData)},
		{"payload", nil, 1, 24000, 1, Invalid, errReply(1, wire.ErrInvalidStreamData)},
		{"repeat gets no credit", func(d *Dock) { d.SpeakerStart(1, 24000, 0) }, 1, 24000, 0, Idempotent, nil},
		{"other rate busy", func(d *Dock) { d.SpeakerStart(1, 24000, 0) }, 1, 16000, 0, Busy, errReply(1, wire.ErrBusy)},
		{"other id busy", func(d *Dock) { d.SpeakerStart(1, 24000, 0) }, 2, 24000, 0, Busy, errReply(2, wire.ErrBusy)},
		{"ended and draining busy", func(d *Dock) {
			d.SpeakerStart(1, 24000, 0)
			d.SpeakerPCM(1, 24000, 0, 2)
			d.Speaker.End(1, 24000, 0)
		}, 1, 24000, 0, Busy, errReply(1, wire.ErrBusy)},
		{"media disabled", func(d *Dock) { d.SetMediaEnabled(false) }, 1, 24000, 0, Busy, errReply(1, wire.ErrBusy)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d Dock
			if tt.prep != nil {
				tt.prep(&d)
			}
			o := d.SpeakerStart(tt.id, tt.rate, tt.payload)
			if o.Result != tt.want || !reflect.DeepEqual(o.Replies, tt.replies) {
				t.Fatalf("start = %v %+v, want %v %+v", o.Result, o.Replies, tt.want, tt.replies)
			}
		})
	}
}

func TestSpeakerPCMErrorsForceStop(t *testing.T) {
	tests := []struct {
		name string
		seq  uint32
		n    int
		prep func(g *SpeakerGuard)
		code wire.ErrorCode
	}{
		{"odd length", 0, 3, nil, wire.ErrInvalidStreamData},
		{"empty", 0, 0, nil, wire.ErrInvalidStreamData},
		{"above credit", 0, CreditWindow + 2, nil, wire.ErrInvalidStreamData},
		{"after end", 0, 2, func(g *SpeakerGuard) { g.End(1, 24000, 0) }, wire.ErrInvalidStreamData},
		{"sequence", 1, 2, nil, wire.ErrSpeakerSequenceMismatch},
		{"overflow", 0, 2, func(g *SpeakerGuard) { g.queued = g.capacity - 1 }, wire.ErrSpeakerBufferOverflow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g SpeakerGuard
			g.Start(1, 24000, 0, false)
			if tt.prep != nil {
				tt.prep(&g)
			}
			o := g.PCM(1, 24000, tt.seq, tt.n)
			if o.Result != Invalid || !reflect.DeepEqual(o.Replies, errReply(1, tt.code)) {
				t.Fatalf("PCM = %v %+v, want ERROR %d", o.Result, o.Replies, tt.code)
			}
			if g.Active().StreamID != 0 || g.Last() != (Session{1, 24000}) {
				t.Fatalf("after error active %v last %v, want force-stopped to last", g.Active(), g.Last())
			}
			if o := g.Advance(time.Second); o.Replies != nil {
				t.Fatalf("force-stopped session still replies %+v (no DONE allowed)", o.Replies)
			}
		})
	}
}

func TestSpeakerStalePCMIsDropped(t *testing.T) {
	var g SpeakerGuard
	g.Start(2, 24000, 0, false)
	if o := g.PCM(1, 24000, 0, 2); o.Result != Stale || o.Replies != nil {
		t.Fatalf("stale PCM = %+v", o)
	}
	if g.Outstanding() != CreditWindow || g.ExpectedSequence() != 0 {
		t.Fatalf("stale PCM consumed credit %d or sequence %d", g.Outstanding(), g.ExpectedSequence())
	}
}

func TestSpeakerCaptions(t *testing.T) {
	var g SpeakerGuard
	g.Start(1, 8000, 0, false)
	tests := []struct {
		text string
		want Result
		code wire.ErrorCode
	}{
		{"  Hello.  ", Accepted, 0},
		{"", Invalid, wire.ErrInvalidRequest},
		{"   ", Invalid, wire.ErrInvalidRequest},
		{"\xff\xfe", Invalid, wire.ErrInvalidRequest},
		{strings.Repeat("a", MaxCaptionBytes+1), Invalid, wire.ErrInvalidRequest},
		{strings.Repeat("a", MaxCaptionBytes), Accepted, 0},
	}
	for _, tt := range tests {
		o := g.Text(1, 8000, []byte(tt.text))
		var want []Reply
		if tt.code != 0 {
			want = errReply(1, tt.code)
		}
		if o.Result != tt.want || !reflect.DeepEqual(o.Replies, want) {
			t.Errorf("Text(%.20q) = %v %+v, want %v %+v", tt.text, o.Result, o.Replies, tt.want, want)
		}
	}
	for g.PendingCaptions() < MaxCaptions {
		g.Text(1, 8000, []byte("x"))
	}
	if o := g.Text(1, 8000, []byte("one too many")); !reflect.DeepEqual(o.Replies, errReply(1, wire.ErrCaptionQueueOverflow)) {
		t.Fatalf("17th caption replies %+v, want ERROR 8", o.Replies)
	}
	if g.Active().StreamID != 1 {
		t.Fatal("caption error stopped the session")
	}
}

// TestSpeakerSessionPlaysOut drives a whole session through the Dock and
// checks credit returns as audio plays, captions wait for their PCM, and DONE
// comes only after the queue drained.
func TestSpeakerSessionPlaysOut(t *testing.T) {
	var d Dock
	o := d.SpeakerStart(9, 8000, 0)
	credit := int(o.Replies[0].Value)
	frame := SpeakerFrameBytes(8000)
	d.Control(wire.CtrlSpeakerText, 9, 8000, []byte("First."))
	var seq uint32
	for credit >= frame {
		o := d.SpeakerPCM(9, 8000, seq, frame)
		if o.Result != Accepted {
			t.Fatalf("frame %d = %v %+v", seq, o.Result, o.Replies)
		}
		credit -= frame
		seq++
		for _, r := range o.Replies {
			credit += int(r.Value)
		}
		if d.Speaker.Queued()+d.Speaker.Outstanding() > 16000 || d.Speaker.Outstanding() > CreditWindow {
			t.Fatalf("queued %d + outstanding %d beyond capacity", d.Speaker.Queued(), d.Speaker.Outstanding())
		}
		if d.Speaker.Queued()+frame > 16000 {
			break
		}
	}
	if !d.Speaker.Playing() {
		t.Fatal("not playing with more than the prebuffer queued")
	}
	d.Control(wire.CtrlSpeakerText, 9, 8000, []byte("Trailing, never shown."))
	if o, _ := d.Control(wire.CtrlSpeakerEnd, 9, 8000, nil); o.Result != Accepted || o.Replies != nil {
		t.Fatalf("end = %+v", o)
	}
	o = d.Advance(10 * time.Millisecond)
	if !reflect.DeepEqual(o.Captions, []string{"First."}) {
		t.Fatalf("captions after first write %q, want [First.]", o.Captions)
	}
	var done []Reply
	for i := 0; i < 300 && done == nil; i++ {
		o := d.Advance(10 * time.Millisecond)
		for _, r := range o.Replies {
			if r.Code == wire.CtrlSpeakerCredit {
				t.Fatalf("credit %+v after END", r)
			}
		}
		if len(o.Captions) > 0 {
			t.Fatalf("trailing caption shown: %q", o.Captions)
		}
		if len(o.Replies) > 0 {
			done = o.Replies
		}
	}
	want := []Reply{{Code: wire.CtrlSpeakerDone, StreamID: 9, SampleRate: 8000}}
	if !reflect.DeepEqual(done, want) || d.Speaker.Queued() != 0 {
		t.Fatalf("completion %+v (queued %d), want %+v", done, d.Speaker.Queued(), want)
	}
	if o, _ := d.Control(wire.CtrlSpeakerEnd, 9, 8000, nil); o.Result != Idempotent || o.Replies != nil {
		t.Fatalf("END after DONE = %+v, want silent idempotent", o)
	}
	if o := d.MicStart(10, 16000, 0); o.Result != Accepted {
		t.Fatalf("mic after speaker done = %v", o.Result)
	}
}

func TestSpeakerEndWithoutPCMIsDoneOnNextAdvance(t *testing.T) {
	var d Dock
	d.SpeakerStart(3, 16000, 0)
	d.Speaker.End(3, 16000, 0)
	o := d.Advance(0)
	if len(o.Replies) != 1 || o.Replies[0].Code != wire.CtrlSpeakerDone {
		t.Fatalf("Advance(0) after empty END = %+v, want DONE", o.Replies)
	}
}

func TestDockResetForgetsLastSessions(t *testing.T) {
	var d Dock
	d.SpeakerStart(1, 24000, 0)
	d.Speaker.Abort(1, 24000, 0)
	if r := d.Speaker.Abort(1, 24000, 0).Result; r != Idempotent {
		t.Fatalf("repeat abort = %v, want idempotent", r)
	}
	if r := d.Speaker.Abort(1, 16000, 0).Result; r != Invalid {
		t.Fatalf("abort of last id at another rate = %v, want invalid", r)
	}
	d.Reset()
	if r := d.Speaker.Abort(1, 24000, 0).Result; r != Stale {
		t.Fatalf("abort after reset = %v, want stale", r)
	}
	if _, ok := d.Control(wire.CtrlHello, 0, 0, nil); ok {
		t.Fatal("Dock.Control claimed HELLO")
	}
}
