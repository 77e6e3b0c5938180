package event_test

import (
	"fmt"

	"github.com/claude-pi/claude-pi/protocols/stackchan/event"
)

func Example() {
	var ids event.IDs
	frames, err := event.Chunk(ids.Next(), []byte(`{"type":"session.created"}`), 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	var r event.Reassembler
	for _, f := range frames {
		fmt.Printf("id %d seq %d flags %d %q\n", f.StreamID, f.Sequence, f.Flags, f.Payload)
		msg, done, err := r.Add(f)
		if err != nil {
			fmt.Println("discarded:", err) // log and carry on (§13.3)
			continue
		}
		if done {
			fmt.Printf("message %s\n", msg)
		}
	}
	// Output:
	// id 1 seq 0 flags 1 "{\"type\":\"s"
	// id 1 seq 1 flags 0 "ession.cre"
	// id 1 seq 2 flags 2 "ated\"}"
	// message {"type":"session.created"}
}

func ExampleReassembler_Add_sequenceMismatch() {
	var r event.Reassembler
	frames, _ := event.Chunk(11, []byte("abc"), 1)
	r.Add(frames[0])
	_, _, err := r.Add(frames[2]) // frames[1] lost
	fmt.Println(err)
	// Output:
	// event 11: event sequence mismatch: got 2, want 1 (1 bytes discarded)
}
