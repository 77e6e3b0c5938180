package session

import (
	"strconv"
	"time"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// Sizes and rates shared by both roles (spec §11.1, §12.2, §25).
const (
	MicRate         = 16000 // microphone sample rate, Hz
	MicFrameBytes   = 640   // one 20 ms microphone frame
	MaxGapFill      = 10    // host fills at most this many missing microphone frames
	CreditWindow    = 8192  // most unused speaker credit the firmware grants
	MaxCaptionBytes = 1024  // SPEAKER_TEXT payload limit
	MaxCaptions     = 16    // captions the firmware holds before ERROR 8

	SpeakerFrameDuration = 80 * time.Millisecond // host PCM frame length
)

// Host timeouts (spec §11.4, §12.6, §25).
const (
	MicStartTimeout    = 2 * time.Second
	MicStopTimeout     = 2 * time.Second
	MicStopResend      = 500 * time.Millisecond
	InitialCreditWait  = 2 * time.Second
	CreditStallLimit   = 15 * time.Second
	SpeakerDoneTimeout = 30 * time.Second
)

// ValidSpeakerRate reports whether rate is one of the speaker rates (8, 16, 24 kHz).
func ValidSpeakerRate(rate uint32) bool {
	return rate == 8000 || rate == 16000 || rate == 24000
}

// SpeakerFrameBytes is the size of an 80 ms speaker frame at rate
// (1280, 2560, 3840 bytes at 8, 16, 24 kHz).
func SpeakerFrameBytes(rate uint32) int {
	return int(rate) * 2 * int(SpeakerFrameDuration/time.Millisecond) / 1000
}

// WithinCredit is the firmware's credit boundary rule (contract
// creditBoundaries): a PCM payload may use all outstanding credit but no more,
// and an empty payload is never acceptable.
func WithinCredit(payloadBytes, outstanding int) bool {
	return payloadBytes > 0 && payloadBytes <= outstanding
}

// Result classifies a control frame against the current session, in the words
// of the contract vectors (spec §10).
type Result uint8

const (
	// Accepted: the frame changes the session (or starts one).
	Accepted Result = iota + 1
	// Idempotent: a repeat for the current or last finished session; harmless.
	Idempotent
	// Stale: the frame names a session that is not current; dropped.
	Stale
	// Invalid: malformed for this session; usually answered with ERROR.
	Invalid
	// Busy: the other media direction (or a different session) is active.
	Busy
)

var resultNames = [...]string{"", "accepted", "idempotent", "stale", "invalid", "busy"}

// String returns the contract spelling, e.g. "accepted".
func (r Result) String() string {
	if int(r) < len(resultNames) && r != 0 {
		return resultNames[r]
	}
	return "result(" + strconv.Itoa(int(r)) + ")"
}

// Session names a media session: its stream id and sample rate.
// The zero value means "no session".
type Session struct {
	StreamID   uint16
	SampleRate uint32
}

// Reply is a control frame the firmware sends to the host. Value is the ERROR
// code or the CREDIT increment, 0 for the others (which carry no payload).
type Reply struct {
	Code       wire.Control
	StreamID   uint16
	SampleRate uint32
	Value      uint32
}

// Outcome is what the firmware does with one input: how the frame was
// classified, the control frames to send in order, and any captions that became
// visible because their PCM reached the audio output.
type Outcome struct {
	Result   Result
	Replies  []Reply
	Captions []string
}

func (o *Outcome) reply(code wire.Control, s Session, value uint32) {
	o.Replies = append(o.Replies, Reply{Code: code, StreamID: s.StreamID, SampleRate: s.SampleRate, Value: value})
}

func (o *Outcome) fail(code wire.ErrorCode, stream uint16) {
	o.Replies = append(o.Replies, Reply{Code: wire.CtrlError, StreamID: stream, Value: uint32(code)})
}
