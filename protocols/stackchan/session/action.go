package session

import (
	"errors"
	"fmt"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// Action is a frame the host should send: a CONTROL frame (Type TypeControl,
// Control set) or a SPEAKER_PCM frame (Type TypeSpeakerPCM, Sequence set).
// It maps field for field onto wire.Frame, with Flags = uint16(Control); the
// writer fills in the running sequence of CONTROL frames (spec §3.3). Payload
// aliases the producer's buffer and is valid until its next method call.
type Action struct {
	Type       wire.Type
	Control    wire.Control
	StreamID   uint16
	Sequence   uint32
	SampleRate uint32
	Payload    []byte
}

// Frame converts a to a wire frame. The caller sets Sequence for CONTROL
// frames from its running control counter.
func (a Action) Frame() wire.Frame {
	f := wire.Frame{Type: a.Type, StreamID: a.StreamID, Sequence: a.Sequence, SampleRate: a.SampleRate, Payload: a.Payload}
	if a.Type == wire.TypeControl {
		f.Flags = uint16(a.Control)
	}
	return f
}

func control(code wire.Control, s Session) Action {
	return Action{Type: wire.TypeControl, Control: code, StreamID: s.StreamID, SampleRate: s.SampleRate}
}

// Host-side session failures. Each ends the session; the caller reports it.
var (
	ErrNoCredit        = errors.New("speaker: no SPEAKER_CREDIT within 2s of SPEAKER_START")
	ErrCreditStall     = errors.New("speaker: no credit progress for 15s")
	ErrDoneTimeout     = errors.New("speaker: no SPEAKER_DONE within 30s of SPEAKER_END")
	ErrMicStartTimeout = errors.New("microphone: no MIC_STARTED within 2s of MIC_START")
	ErrMicStopTimeout  = errors.New("microphone: no MIC_STOPPED within 2s of MIC_STOP")
	ErrSessionLost     = errors.New("media session lost: firmware reset (HELLO_ACK or unplug)")
	ErrSessionClosed   = errors.New("media session already finished")
)

// FirmwareError is an ERROR control frame naming the host's active stream,
// which is fatal for that stream (spec §6).
type FirmwareError struct {
	StreamID uint16
	Code     wire.ErrorCode
}

// Error names the stream and the code.
func (e *FirmwareError) Error() string {
	return fmt.Sprintf("firmware ERROR %d on stream %d", e.Code, e.StreamID)
}
