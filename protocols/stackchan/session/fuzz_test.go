package session

import (
	"testing"
	"time"
	"unicode/utf8"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// Each fuzz input is a script: one opcode byte followed by its arguments,
// taken from the bytes that follow (missing bytes read as 0).
type script struct {
	b []byte
	i int
}

func (s *script) more() bool { return s.i < len(s.b) }

func (s *script) u8() byte {
	if s.i >= len(s.b) {
		return 0
	}
	s.i++
	return s.b[s.i-1]
}

func (s *script) u16() int { return int(s.u8()) | int(s.u8())<<8 }

var fuzzRates = [...]uint32{8000, 16000, 24000, 16000, 0, 44100, 24000, 8000}

// checkDock asserts the invariants every reachable firmware state keeps.
func checkDock(t *testing.T, d *Dock, o Outcome) {
	t.Helper()
	sp := &d.Speaker
	if d.Mic.Active() != 0 && sp.Active().StreamID != 0 {
		t.Fatalf("microphone %d and speaker %v active together", d.Mic.Active(), sp.Active())
	}
	if sp.Outstanding() < 0 || sp.Outstanding() > CreditWindow || sp.Queued() < 0 {
		t.Fatalf("outstanding %d queued %d", sp.Outstanding(), sp.Queued())
	}
	if s := sp.Active(); s.StreamID != 0 && sp.Queued()+sp.Outstanding() > int(s.SampleRate)*2 {
		t.Fatalf("queued %d + outstanding %d beyond 1 s at %d Hz", sp.Queued(), sp.Outstanding(), s.SampleRate)
	}
	if sp.Active().StreamID == 0 && (sp.Queued() != 0 || sp.Outstanding() != 0 || sp.PendingCaptions() != 0) {
		t.Fatalf("idle speaker holds queued %d outstanding %d captions %d", sp.Queued(), sp.Outstanding(), sp.PendingCaptions())
	}
	if sp.PendingCaptions() > MaxCaptions {
		t.Fatalf("%d captions pending", sp.PendingCaptions())
	}
	for _, r := range o.Replies {
		if r.Code == wire.CtrlSpeakerCredit && (r.Value == 0 || r.Value > CreditWindow) {
			t.Fatalf("credit reply %d", r.Value)
		}
		if r.Code == wire.CtrlError && (r.Value < uint32(wire.ErrInvalidRequest) || r.Value > uint32(wire.ErrCaptionQueueOverflow)) {
			t.Fatalf("error code %d", r.Value)
		}
	}
}

func runDockScript(t *testing.T, data []byte) {
	var d Dock
	s := script{b: data}
	for s.more() {
		op := s.u8()
		id := uint16(s.u8() % 4)
		rate := fuzzRates[s.u8()%8]
		var o Outcome
		switch op % 14 {
		case 0:
			o = d.SpeakerStart(id, rate, int(s.u8()%2))
		case 1:
			o = d.Speaker.End(id, rate, int(s.u8()%2))
		case 2:
			o = d.Speaker.Abort(id, rate, int(s.u8()%2))
		case 3, 4:
			// Mostly well-formed PCM so sessions get deep.
			n := s.u16() % 9000
			seq := d.Speaker.ExpectedSequence()
			if s.u8()%8 == 0 {
				seq++
			}
			o = d.SpeakerPCM(id, rate, seq, n)
		case 5:
			o = d.Speaker.Text(id, rate, data[s.i:min(len(data), s.i+int(s.u8()%8))])
		case 6:
			o = d.Advance(time.Duration(s.u16()) * time.Millisecond)
		case 7:
			_, o = d.Speaker.ForceStop(wire.ErrorCode(s.u8() % 9))
		case 8:
			d.Reset()
		case 9:
			o = d.MicStart(id, rate, int(s.u8()%2))
		case 10:
			o = d.Mic.Stop(id, rate, int(s.u8()%2))
		case 11:
			o = d.Mic.CaptureStarted()
			d.Mic.NextFrame()
		case 12:
			_, o = d.Mic.ForceStop(wire.ErrorCode(s.u8() % 5))
		case 13:
			d.SetMediaEnabled(s.u8()%4 != 0)
		}
		checkDock(t, &d, o)
	}
}

func FuzzSpeakerGuard(f *testing.F) {
	// start, pcm, text, pcm, end, advance until done.
	f.Add([]byte{0, 1, 2, 3, 1, 2, 0x00, 0x0f, 1, 5, 1, 2, 3, 'h', 'i', '!', 4, 1, 2, 0x00, 0x0f, 1, 1, 1, 2, 0, 6, 0, 0, 0xff, 0xff})
	f.Add([]byte{0, 1, 2, 3, 1, 2, 0xff, 0x3f, 0, 2, 1, 2, 0, 2, 1, 2, 0})
	f.Add([]byte{0, 2, 0, 9, 1, 3, 8, 0, 0, 0, 2, 0})
	f.Fuzz(runDockScript)
}

func FuzzMicGuard(f *testing.F) {
	f.Add([]byte{9, 1, 1, 0, 9, 1, 1, 0, 11, 0, 0, 10, 1, 1, 0, 10, 1, 1, 0})
	f.Add([]byte{9, 2, 3, 0, 12, 0, 0, 4, 10, 2, 3, 0, 8, 0, 0, 10, 2, 3, 0})
	f.Add([]byte{0, 1, 2, 0, 9, 2, 1, 0, 13, 0, 0, 0, 9, 2, 1, 0})
	f.Fuzz(runDockScript)
}

// FuzzSpeakerSender feeds random credit, PCM, captions and replies: the
// sender never sends more PCM than it was granted, never leaves a sequence gap
// and never emits a frame or caption the firmware would reject.
func FuzzSpeakerSender(f *testing.F) {
	f.Add([]byte{2, 0x00, 0x20, 0, 0x00, 0x20, 3, 5, 1, 0, 0x00, 0x01, 6})
	f.Add([]byte{0, 1, 0, 0, 0x10, 0, 1, 1, 0, 0, 0x10, 0, 1, 1, 0, 4, 5})
	f.Add([]byte{3, 200, 2, 0xff, 0x0f, 0, 0xff, 0xff, 7, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := NewSpeakerSender(SpeakerConfig{StreamID: 9, SampleRate: 16000, Captions: true})
		if err != nil {
			t.Fatal(err)
		}
		s := script{b: data}
		now := t0
		var seq uint32
		var pcm int64
		for s.more() {
			switch s.u8() % 8 {
			case 0:
				p.OnCredit(uint16(8+s.u8()%2), uint32(s.u16()), now)
			case 1:
				p.OnCredit(9, uint32(s.u8())<<24|uint32(s.u16()), now)
			case 2:
				p.QueuePCM(make([]byte, s.u16()))
			case 3:
				n := int(s.u8()) * 8
				p.QueueCaption(string(data[s.i:min(len(data), s.i+n)]))
			case 4:
				p.Finish()
			case 5:
				now = now.Add(time.Duration(s.u16()) * time.Millisecond)
			case 6:
				p.OnDone(uint16(8 + s.u8()%2))
			case 7:
				if s.u8()%4 == 0 {
					p.Abort()
				}
			}
			for {
				a, ok := p.Next(now)
				if !ok {
					break
				}
				switch {
				case a.Type == wire.TypeSpeakerPCM:
					if a.Sequence != seq || len(a.Payload) == 0 || len(a.Payload)%2 != 0 || len(a.Payload) > p.FrameBytes() {
						t.Fatalf("frame seq %d (want %d) of %d bytes", a.Sequence, seq, len(a.Payload))
					}
					seq++
					pcm += int64(len(a.Payload))
				case a.Control == wire.CtrlSpeakerText:
					if len(a.Payload) == 0 || len(a.Payload) > MaxCaptionBytes || !utf8.Valid(a.Payload) {
						t.Fatalf("caption of %d bytes, valid %v", len(a.Payload), utf8.Valid(a.Payload))
					}
				}
				if a.StreamID != 9 {
					t.Fatalf("action on stream %d", a.StreamID)
				}
			}
			sent, granted := p.Sent()
			if sent != pcm || sent > granted || p.Credit() < 0 || p.Credit() > CreditWindow {
				t.Fatalf("sent %d (seen %d) granted %d credit %d", sent, pcm, granted, p.Credit())
			}
		}
	})
}
