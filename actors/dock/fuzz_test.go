package dock

import (
	"bytes"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/event"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// FuzzHostFrames feeds arbitrary bytes from the "CoreS3" to a host that is
// mid-handshake or ready, with a prompt pending and speech playing: it must
// never panic, and whatever it writes must parse as valid frames.
func FuzzHostFrames(f *testing.F) {
	ackB, _ := wire.AppendFrame(nil, ack(wire.FirmwareCaps, 4096))
	f.Add(ackB)
	resp, _ := appevent.Marshal(appevent.NewApprovalResponse("approval-desktop-toolu_01ABC", appevent.Approve))
	frames, _ := event.Chunk(1, resp, 4096)
	var evB []byte
	for _, fr := range frames {
		evB, _ = wire.AppendFrame(evB, fr)
	}
	f.Add(append(append([]byte{}, ackB...), evB...))
	credit, _ := wire.AppendFrame(nil, wire.SpeakerCreditFrame(1, 0, 24000, 8192))
	f.Add(append(append([]byte{}, ackB...), credit...))
	f.Fuzz(func(t *testing.T, b []byte) {
		t0 := time.Unix(1000, 0)
		h := testHost()
		h.attach(t0)
		h.mirror.appeared(prompt, t0, true)
		var p wire.Parser
		p.Feed(b)
		now := t0
		for fr, ok := p.Next(); ok; fr, ok = p.Next() {
			now = now.Add(10 * time.Millisecond)
			h.frame(fr, now)
			for _, e := range h.takeEffects() {
				if s, ok := e.(synthOut); ok {
					h.SynthDone(s.Utt, s.Index, make([]byte, 9600), nil, now)
				}
			}
		}
		h.tick(now.Add(time.Second))
		out := h.takeTx()
		if !bytes.HasPrefix(out, wire.AppendFill(nil)) {
			t.Fatal("host did not start with the fill that idles the CoreS3's parser")
		}
		out = out[wire.FillLen:]
		var q wire.Parser
		q.Feed(out)
		for _, ok := q.Next(); ok; _, ok = q.Next() {
		}
		if s := q.Stats(); s.SkippedBytes != 0 || q.Pending() != 0 {
			t.Fatalf("host wrote bytes that do not parse: %+v", s)
		}
	})
}
