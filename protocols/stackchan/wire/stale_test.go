package wire

import (
	"bytes"
	"testing"
	"time"
)

// cutFrame is the first n bytes of a frame whose header promises the
// largest payload: what a peer leaves behind when it dies mid-write.
func cutFrame(t testing.TB, n int) []byte {
	t.Helper()
	b := mustFrame(t, Frame{Type: TypeSpeakerPCM, StreamID: 1, SampleRate: 24000, Payload: make([]byte, MaxPayload)})
	return b[:n]
}

var t0 = time.Unix(1000, 0)

// TestParserDropsStalePartial is issue 32's "towards the Pi" case: after
// 40 bytes of a 4096-byte frame, a frame that arrives within StaleAfter is
// found when the cut frame goes stale, and one that arrives later at once.
func TestParserDropsStalePartial(t *testing.T) {
	hello := mustFrame(t, HelloFrame(0, HostHello))
	t.Run("frame before the deadline waits for Expire", func(t *testing.T) {
		var p Parser
		p.FeedAt(t0, cutFrame(t, 40))
		if got := drain(&p, nil); len(got) != 0 {
			t.Fatalf("%d frames from a cut frame", len(got))
		}
		if at, ok := p.Deadline(); !ok || !at.Equal(t0.Add(StaleAfter)) {
			t.Fatalf("Deadline = %v, %v; want %v", at, ok, t0.Add(StaleAfter))
		}
		p.FeedAt(t0.Add(100*time.Millisecond), hello)
		if got := drain(&p, nil); len(got) != 0 {
			t.Fatalf("HELLO found %v after the cut frame; want it held until StaleAfter", StaleAfter)
		}
		if at, ok := p.Deadline(); !ok || !at.Equal(t0.Add(StaleAfter)) {
			t.Fatalf("Deadline after more bytes = %v, %v; want the cut frame's %v", at, ok, t0.Add(StaleAfter))
		}
		p.Expire(t0.Add(StaleAfter - time.Millisecond))
		if got := drain(&p, nil); len(got) != 0 {
			t.Fatal("cut frame dropped before StaleAfter")
		}
		p.Expire(t0.Add(StaleAfter))
		got := drain(&p, nil)
		if len(got) != 1 || !framesEqual(got[0], HelloFrame(0, HostHello)) {
			t.Fatalf("after StaleAfter got %+v; want the HELLO", got)
		}
		if s := p.Stats(); s.Stale != 1 || s.SkippedBytes != 40 || p.Pending() != 0 {
			t.Fatalf("stats %+v pending %d; want 1 stale frame, its 40 bytes skipped, nothing pending", s, p.Pending())
		}
		if _, ok := p.Deadline(); ok {
			t.Fatal("Deadline still set with nothing pending")
		}
	})
	t.Run("frame after the deadline is found at once", func(t *testing.T) {
		var p Parser
		p.FeedAt(t0, cutFrame(t, 40))
		drain(&p, nil)
		p.FeedAt(t0.Add(StaleAfter), hello)
		if got := drain(&p, nil); len(got) != 1 {
			t.Fatalf("%d frames; want the HELLO at once", len(got))
		}
	})
}

// TestParserCompletesSlowFrame: staleness is judged only after the new
// bytes are appended, so a frame whose sender (or our reader) paused longer
// than StaleAfter mid-frame is still emitted when its rest arrives in one
// read.
func TestParserCompletesSlowFrame(t *testing.T) {
	whole := mustFrame(t, Frame{Type: TypeSpeakerPCM, StreamID: 1, SampleRate: 24000, Payload: bytes.Repeat([]byte{7}, MaxPayload)})
	var p Parser
	p.FeedAt(t0, whole[:40])
	drain(&p, nil)
	p.FeedAt(t0.Add(3*time.Second), whole[40:])
	if got := drain(&p, nil); len(got) != 1 || p.Stats().Stale != 0 {
		t.Fatalf("%d frames, stats %+v; want the frame, nothing stale", len(got), p.Stats())
	}
}

// TestParserTrickleNotStale: a frame fed a byte per millisecond (many more
// reads than arrivals has slots) completes; its first byte arrived 120 ms
// before its last, well inside StaleAfter.
func TestParserTrickleNotStale(t *testing.T) {
	b := mustFrame(t, Frame{Type: TypeEvent, Flags: EventStart | EventEnd, StreamID: 1, Payload: bytes.Repeat([]byte("x"), 96)})
	var p Parser
	var got []Frame
	for i := range b {
		p.FeedAt(t0.Add(time.Duration(i)*time.Millisecond), b[i:i+1])
		got = drain(&p, got)
	}
	if len(got) != 1 || p.Stats().Stale != 0 {
		t.Fatalf("%d frames, stats %+v; want 1, nothing stale", len(got), p.Stats())
	}
}

// TestParserStaleAfterTrickle: a cut frame followed by small frames every
// 100 ms (a heartbeat) is given up on by the first read at or after
// StaleAfter, although more reads than arrivals' slots came in between.
func TestParserStaleAfterTrickle(t *testing.T) {
	beat := mustFrame(t, StatusFrame(0, StatusIdle))
	var p Parser
	p.FeedAt(t0, cutFrame(t, 40))
	var got []Frame
	for i := 1; i <= 30; i++ {
		p.FeedAt(t0.Add(time.Duration(i)*20*time.Millisecond), beat)
		got = drain(&p, got)
		if i*20 >= int(StaleAfter/time.Millisecond) {
			if len(got) != i {
				t.Fatalf("at %d ms: %d heartbeats found; want all %d once the cut frame is stale", i*20, len(got), i)
			}
		} else if len(got) != 0 {
			t.Fatalf("at %d ms: %d heartbeats found inside the cut frame's wait", i*20, len(got))
		}
	}
}

// TestParserUntimedNeverStale: Feed (a capture, a file) keeps §4 exactly.
func TestParserUntimedNeverStale(t *testing.T) {
	var p Parser
	p.Feed(cutFrame(t, 40))
	p.Feed(mustFrame(t, HelloFrame(0, HostHello)))
	p.Expire(t0.Add(time.Hour))
	if got := drain(&p, nil); len(got) != 0 || p.Stats().Stale != 0 {
		t.Fatalf("%d frames, stats %+v; an untimed partial frame must wait", len(got), p.Stats())
	}
	if _, ok := p.Deadline(); ok {
		t.Fatal("Deadline set for untimed bytes")
	}
}

// TestParserClockBackwards: a time before the latest one counts as the
// latest, so a stepped clock cannot make a partial frame wait longer.
func TestParserClockBackwards(t *testing.T) {
	var p Parser
	p.FeedAt(t0, cutFrame(t, 40))
	p.Expire(t0.Add(StaleAfter))
	p.FeedAt(t0.Add(-time.Hour), mustFrame(t, HelloFrame(0, HostHello)))
	if got := drain(&p, nil); len(got) != 1 {
		t.Fatalf("%d frames; want the HELLO", len(got))
	}
}

// TestParserResetForgetsTimes: after Reset the old clock and stamps are gone.
func TestParserResetForgetsTimes(t *testing.T) {
	var p Parser
	p.FeedAt(t0.Add(time.Hour), cutFrame(t, 40))
	drain(&p, nil)
	p.Reset()
	p.FeedAt(t0, cutFrame(t, 40))
	drain(&p, nil)
	if at, ok := p.Deadline(); !ok || !at.Equal(t0.Add(StaleAfter)) {
		t.Fatalf("Deadline = %v, %v after Reset; want %v", at, ok, t0.Add(StaleAfter))
	}
}

// TestFillIdlesParser is issue 32's "towards the CoreS3" case, for a peer
// without the timeout: whatever partial frame the receiver holds, the fill
// completes it and HELLO right behind it is found, with no time passing.
func TestFillIdlesParser(t *testing.T) {
	hello := mustFrame(t, HelloFrame(0, HostHello))
	inner := mustFrame(t, Frame{Type: TypeEvent, StreamID: 2, Payload: make([]byte, MaxPayload)})
	for _, tt := range []struct {
		name string
		held []byte
	}{
		{"nothing", nil},
		{"magic only", []byte("CS")},
		{"half a header", cutFrame(t, 11)},
		{"40 of 4120", cutFrame(t, 40)},
		{"all but the CRC's last byte", cutFrame(t, MaxFrame-1)},
		// A header inside the cut frame's payload, promising as much again.
		{"nested cut frames", cat(cutFrame(t, 60), inner[:MaxFrame-100])},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var p Parser
			p.Feed(tt.held)
			drain(&p, nil)
			p.Feed(AppendFill(nil))
			p.Feed(hello)
			got := drain(&p, nil)
			if len(got) == 0 || !framesEqual(got[len(got)-1], HelloFrame(0, HostHello)) || p.Pending() != 0 {
				t.Fatalf("frames %d, pending %d; want HELLO last and nothing pending", len(got), p.Pending())
			}
		})
	}
}

func TestAppendFill(t *testing.T) {
	b := AppendFill([]byte{1})
	if len(b) != 1+FillLen || FillLen != MaxFrame || bytes.IndexByte(b[1:], 0x43) >= 0 {
		t.Fatalf("fill of %d bytes; want %d zero bytes after dst", len(b)-1, MaxFrame)
	}
}
