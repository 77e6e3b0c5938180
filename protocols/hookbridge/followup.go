package hookbridge

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// PathFollowUp is where a terminal session's Stop hook waits for a spoken
// follow-up: the user swiped Stack-chan's head after Claude's reply was
// said, and spoke the session's next message.
const PathFollowUp = "/v1/follow-up"

// MaxFollowUpWindow is the longest window a Pi may hold a Stop hook for
// before anyone swiped ([voice] follow_up_seconds). The Pi ends the wait
// at its own window; the hook gives up at this one, so a Pi that says
// nothing cannot hold the terminal longer.
const MaxFollowUpWindow = 30 * time.Second

// FollowUpHeard bounds the wait once the user swiped: the sentence is
// recorded ([voice] listen_seconds), recognised (the STT timeout) and
// shown on the CoreS3 before it is sent. Both ends use it: the Pi holds
// the Stop hook that long, and the hook waits that long, so it is wire.
const FollowUpHeard = 2 * time.Minute

// MaxFollowUp bounds a follow-up's text: a sentence or two recognised
// from a few seconds of speech.
const MaxFollowUp = 1024

// FollowUpRequest is the hook's request: the session whose Stop it is.
type FollowUpRequest struct {
	Session string `json:"session"`
}

// States of a FollowUp line.
const (
	// FollowUpNone: nothing will come (not offered, nobody swiped within
	// the window, cancelled on the CoreS3, nothing heard). The hook lets
	// Claude stop.
	FollowUpNone = "none"
	// FollowUpListening: the user swiped; the sentence is being heard,
	// recognised and shown. The hook keeps waiting, past the window.
	FollowUpListening = "listening"
	// FollowUpText: Text is the user's next message.
	FollowUpText = "text"
)

// FollowUp is one line of the Pi's answer to a FollowUpRequest: a stream
// of newline-terminated JSON objects, zero or more FollowUpListening, then
// one FollowUpNone or FollowUpText.
type FollowUp struct {
	State string `json:"state"`
	Text  string `json:"text,omitempty"`
}

// DecodeFollowUpRequest parses and checks a FollowUpRequest body.
func DecodeFollowUpRequest(b []byte) (FollowUpRequest, error) {
	var r FollowUpRequest
	if err := decodeStrict(b, &r); err != nil {
		return FollowUpRequest{}, err
	}
	if err := check(field{"session", r.Session, MaxSession, true}); err != nil {
		return FollowUpRequest{}, err
	}
	return r, nil
}

// DecodeFollowUp parses one answer line (the hook's side). The text goes
// to Claude as the user's message, so it is cut to MaxFollowUp printable
// runes whatever the Pi sent, and a text line with no text is refused.
func DecodeFollowUp(b []byte) (FollowUp, error) {
	var f FollowUp
	if err := decodeStrict(b, &f); err != nil {
		return FollowUp{}, err
	}
	switch f.State {
	case FollowUpNone, FollowUpListening:
		f.Text = ""
	case FollowUpText:
		f.Text = strings.TrimSpace(Printable(f.Text, MaxFollowUp))
		if f.Text == "" {
			return FollowUp{}, fmt.Errorf("%w: a follow-up with no text", ErrRequest)
		}
	default:
		return FollowUp{}, fmt.Errorf("%w: follow-up state %q", ErrRequest, f.State)
	}
	return f, nil
}

// stopOutput is the Stop hook output that keeps Claude going: Claude Code
// takes reason as the next instruction ("Stop hook feedback").
type stopOutput struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// FollowUpOutput is the Stop hook output that sends text to Claude as the
// session's next message.
func FollowUpOutput(text string) []byte {
	b, _ := json.Marshal(stopOutput{Decision: "block", Reason: text}) // strings only
	return append(b, '\n')
}
