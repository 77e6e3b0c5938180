package session_test

import (
	"fmt"
	"time"

	"github.com/claude-pi/claude-pi/protocols/stackchan/session"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// A host speaker session played against the fake CoreS3: START, credit, a
// caption before its PCM, END, and DONE once the dock has played the audio.
func Example() {
	var dock session.Dock
	sender, err := session.NewSpeakerSender(session.SpeakerConfig{StreamID: 1, SampleRate: 8000, Captions: true})
	if err != nil {
		panic(err)
	}
	sender.QueueCaption("Hello there.")
	sender.QueuePCM(make([]byte, 3000)) // 187.5 ms of silence
	sender.Finish()

	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	handle := func(o session.Outcome) {
		for _, c := range o.Captions {
			fmt.Printf("dock shows %q\n", c)
		}
		for _, r := range o.Replies {
			switch r.Code {
			case wire.CtrlSpeakerCredit:
				fmt.Printf("dock grants %d bytes\n", r.Value)
				sender.OnCredit(r.StreamID, r.Value, now)
			case wire.CtrlSpeakerDone:
				fmt.Println("dock sends SPEAKER_DONE")
				sender.OnDone(r.StreamID)
			}
		}
	}
	for sender.State() != session.SenderDone {
		for {
			a, ok := sender.Next(now)
			if !ok {
				break
			}
			if a.Type == wire.TypeSpeakerPCM {
				fmt.Printf("host sends PCM seq %d, %d bytes\n", a.Sequence, len(a.Payload))
				handle(dock.SpeakerPCM(a.StreamID, a.SampleRate, a.Sequence, len(a.Payload)))
				continue
			}
			fmt.Printf("host sends %v\n", a.Control)
			o, _ := dock.Control(a.Control, a.StreamID, a.SampleRate, a.Payload)
			handle(o)
		}
		now = now.Add(100 * time.Millisecond)
		handle(dock.Advance(100 * time.Millisecond))
	}
	// Output:
	// host sends SPEAKER_START
	// dock grants 8192 bytes
	// host sends SPEAKER_TEXT
	// host sends PCM seq 0, 1280 bytes
	// dock grants 1280 bytes
	// host sends PCM seq 1, 1280 bytes
	// dock grants 1280 bytes
	// host sends PCM seq 2, 440 bytes
	// dock grants 440 bytes
	// host sends SPEAKER_END
	// dock shows "Hello there."
	// dock sends SPEAKER_DONE
}
