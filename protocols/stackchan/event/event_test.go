package event

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"github.com/claude-pi/claude-pi/protocols/stackchan/contracttest"
	"strings"
	"testing"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// contract reads a shared contract file (see package contracttest).
func contract(t testing.TB, name string) []byte { return contracttest.Read(t, name) }

func ev(id uint16, flags uint16, seq uint32, payload string) wire.Frame {
	return wire.Frame{Type: wire.TypeEvent, Flags: flags, StreamID: id, Sequence: seq, Payload: []byte(payload)}
}

const (
	S  = wire.EventStart
	E  = wire.EventEnd
	SE = wire.EventStart | wire.EventEnd
)

func TestContractEventSequenceMismatch(t *testing.T) {
	var doc struct {
		EventSequenceMismatch struct {
			StreamID uint16 `json:"streamId"`
			Frames   []struct {
				Flags      uint16 `json:"flags"`
				Sequence   uint32 `json:"sequence"`
				PayloadHex string `json:"payloadHex"`
			} `json:"frames"`
			ExpectedError string `json:"expectedError"`
		} `json:"eventSequenceMismatch"`
	}
	if err := json.Unmarshal(contract(t, "parser-scenarios-v2.json"), &doc); err != nil {
		t.Fatal(err)
	}
	sc := doc.EventSequenceMismatch
	if len(sc.Frames) == 0 || sc.ExpectedError == "" {
		t.Fatal("eventSequenceMismatch scenario is empty")
	}
	var r Reassembler
	var lastErr error
	for i, fr := range sc.Frames {
		p, err := hex.DecodeString(fr.PayloadHex)
		if err != nil {
			t.Fatal(err)
		}
		msg, done, err := r.Add(wire.Frame{Type: wire.TypeEvent, Flags: fr.Flags, StreamID: sc.StreamID, Sequence: fr.Sequence, Payload: p})
		if done || msg != nil {
			t.Fatalf("frame %d delivered %q; want nothing", i, msg)
		}
		if err != nil {
			lastErr = err
		}
	}
	if lastErr == nil {
		t.Fatalf("no error; want %q", sc.ExpectedError)
	}
	if ErrSequenceMismatch.Error() != sc.ExpectedError || !strings.Contains(lastErr.Error(), sc.ExpectedError) {
		t.Fatalf("error %q; want it to contain %q", lastErr, sc.ExpectedError)
	}
	var e *Error
	if !errors.As(lastErr, &e) || !errors.Is(lastErr, ErrSequenceMismatch) || e.MessageID != sc.StreamID || e.Expected != 1 || e.Sequence != 2 || e.Discarded != 1 {
		t.Fatalf("error %#v; want *Error for stream %d, seq 2 want 1, 1 byte discarded", lastErr, sc.StreamID)
	}
	if r.Pending() != 0 {
		t.Fatalf("%d messages pending after the mismatch; want the partial message discarded", r.Pending())
	}
	// A later START on the same stream works normally.
	msg, done, err := r.Add(ev(sc.StreamID, SE, 0, "{}"))
	if err != nil || !done || string(msg) != "{}" {
		t.Fatalf("Add after mismatch = %q, %v, %v; want \"{}\", true, nil", msg, done, err)
	}
}

// TestReassemblerRules walks every row of the §13.2 table.
func TestReassemblerRules(t *testing.T) {
	tests := []struct {
		name    string
		frames  []wire.Frame
		want    []string // messages delivered, in order
		errs    []error  // discard reasons, in order
		pending int
	}{
		{"single frame", []wire.Frame{ev(7, SE, 0, "x")}, []string{"x"}, nil, 0},
		{"empty message", []wire.Frame{ev(7, SE, 0, "")}, []string{""}, nil, 0},
		{"three chunks", []wire.Frame{ev(1, S, 0, "ab"), ev(1, 0, 1, "cd"), ev(1, E, 2, "e")}, []string{"abcde"}, nil, 0},
		{"empty middle chunk", []wire.Frame{ev(1, S, 0, "a"), ev(1, 0, 1, ""), ev(1, E, 2, "b")}, []string{"ab"}, nil, 0},
		{"zero stream", []wire.Frame{ev(0, SE, 0, "x")}, nil, []error{ErrZeroMessageID}, 0},
		{"start with nonzero sequence", []wire.Frame{ev(3, S, 1, "x")}, nil, []error{ErrFirstSequence}, 0},
		{"continuation without start", []wire.Frame{ev(3, 0, 1, "x"), ev(3, E, 2, "y")}, nil, []error{ErrNoStart, ErrNoStart}, 0},
		{"sequence gap", []wire.Frame{ev(3, S, 0, "a"), ev(3, 0, 2, "b"), ev(3, E, 3, "c")}, nil, []error{ErrSequenceMismatch, ErrNoStart}, 0},
		{"repeated chunk", []wire.Frame{ev(3, S, 0, "a"), ev(3, 0, 1, "b"), ev(3, E, 1, "b")}, nil, []error{ErrSequenceMismatch}, 0},
		{"new start restarts", []wire.Frame{ev(3, S, 0, "old"), ev(3, S, 0, "ne"), ev(3, E, 1, "w")}, []string{"new"}, nil, 0},
		{"interleaved messages", []wire.Frame{ev(1, S, 0, "a"), ev(2, S, 0, "x"), ev(1, E, 1, "b"), ev(2, E, 1, "y")}, []string{"ab", "xy"}, nil, 0},
		{"error on one id keeps the other", []wire.Frame{ev(1, S, 0, "a"), ev(2, S, 0, "x"), ev(2, 0, 5, "?"), ev(1, E, 1, "b")}, []string{"ab"}, []error{ErrSequenceMismatch}, 0},
		{"invalid utf-8", []wire.Frame{ev(4, S, 0, "\xff"), ev(4, E, 1, "\xfe")}, nil, []error{ErrInvalidUTF8}, 0},
		{"utf-8 split across chunks", []wire.Frame{ev(4, S, 0, "\xe3\x81"), ev(4, E, 1, "\x82")}, []string{"あ"}, nil, 0},
		{"not an event frame", []wire.Frame{{Type: wire.TypeControl, StreamID: 1, Flags: SE}}, nil, []error{ErrNotEvent}, 0},
		{"unfinished message stays pending", []wire.Frame{ev(9, S, 0, "a")}, nil, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Reassembler
			var got []string
			var errs []error
			for _, f := range tt.frames {
				msg, done, err := r.Add(f)
				if done {
					got = append(got, string(msg))
				}
				if err != nil {
					var e *Error
					if !errors.As(err, &e) {
						t.Fatalf("error %v is not an *Error", err)
					}
					errs = append(errs, e.Err)
				}
				if done && err != nil {
					t.Fatal("done together with an error")
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Fatalf("delivered %q; want %q", got, tt.want)
			}
			if len(errs) != len(tt.errs) {
				t.Fatalf("errors %v; want %v", errs, tt.errs)
			}
			for i := range errs {
				if errs[i] != tt.errs[i] {
					t.Fatalf("error %d = %v; want %v", i, errs[i], tt.errs[i])
				}
			}
			if r.Pending() != tt.pending {
				t.Fatalf("Pending() = %d; want %d", r.Pending(), tt.pending)
			}
		})
	}
}

func TestReassemblerTooLarge(t *testing.T) {
	var r Reassembler
	chunk := bytes.Repeat([]byte("a"), wire.MaxPayload)
	seq := uint32(0)
	for ; seq < MaxMessage/wire.MaxPayload; seq++ {
		flags := uint16(0)
		if seq == 0 {
			flags = S
		}
		if _, _, err := r.Add(wire.Frame{Type: wire.TypeEvent, StreamID: 5, Flags: flags, Sequence: seq, Payload: chunk}); err != nil {
			t.Fatalf("chunk %d: %v", seq, err)
		}
	}
	// Exactly 64 KiB so far: one more byte is too much.
	_, done, err := r.Add(ev(5, E, seq, "a"))
	var e *Error
	if done || !errors.As(err, &e) || e.Err != ErrTooLarge || e.Discarded != MaxMessage {
		t.Fatalf("Add = %v, %v; want ErrTooLarge discarding %d bytes", done, err, MaxMessage)
	}
	if r.Pending() != 0 {
		t.Fatal("oversize partial message kept")
	}
	// Exactly 64 KiB is allowed.
	frames, err := Chunk(6, bytes.Repeat([]byte("b"), MaxMessage), wire.MaxPayload)
	if err != nil {
		t.Fatal(err)
	}
	msg := feed(t, &r, frames)
	if len(msg) != MaxMessage {
		t.Fatalf("got %d bytes; want %d", len(msg), MaxMessage)
	}
}

func TestReassemblerEvictsOldest(t *testing.T) {
	r := Reassembler{MaxPending: 2}
	for _, f := range []wire.Frame{ev(1, S, 0, "1"), ev(2, S, 0, "2"), ev(3, S, 0, "3")} {
		if _, _, err := r.Add(f); err != nil {
			t.Fatal(err)
		}
	}
	if r.Pending() != 2 || r.Stats().Evicted != 1 {
		t.Fatalf("Pending %d, Stats %+v; want 2 pending, 1 evicted", r.Pending(), r.Stats())
	}
	if _, _, err := r.Add(ev(1, E, 1, "x")); !errors.Is(err, ErrNoStart) {
		t.Fatalf("message 1 should have been evicted; got %v", err)
	}
	if msg, done, err := r.Add(ev(2, E, 1, "x")); !done || err != nil || string(msg) != "2x" {
		t.Fatalf("message 2 = %q, %v, %v", msg, done, err)
	}
	r.Reset()
	if r.Pending() != 0 {
		t.Fatal("Reset kept partial messages")
	}
	if _, _, err := r.Add(ev(3, E, 1, "x")); !errors.Is(err, ErrNoStart) {
		t.Fatalf("after Reset: %v; want ErrNoStart", err)
	}
}

func TestReassemblerCopiesPayload(t *testing.T) {
	var r Reassembler
	buf := []byte("ab")
	f := wire.Frame{Type: wire.TypeEvent, StreamID: 2, Flags: S, Payload: buf}
	if _, _, err := r.Add(f); err != nil {
		t.Fatal(err)
	}
	buf[0] = 'X' // the wire parser reuses its buffer
	msg, _, _ := r.Add(ev(2, E, 1, "c"))
	if string(msg) != "abc" {
		t.Fatalf("got %q; the reassembler must copy frame payloads", msg)
	}
	one := []byte("solo")
	msg, _, _ = r.Add(wire.Frame{Type: wire.TypeEvent, StreamID: 3, Flags: SE, Payload: one})
	one[0] = 'X'
	if string(msg) != "solo" {
		t.Fatalf("got %q; single-frame messages must be copied too", msg)
	}
}

func feed(t testing.TB, r *Reassembler, frames []wire.Frame) []byte {
	t.Helper()
	for i, f := range frames {
		msg, done, err := r.Add(f)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if done != (i == len(frames)-1) {
			t.Fatalf("frame %d of %d: done = %v", i, len(frames), done)
		}
		if done {
			return msg
		}
	}
	return nil
}
