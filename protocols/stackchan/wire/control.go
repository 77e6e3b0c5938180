package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Fixed values of control frames (§5, §25).
const (
	// MicSampleRate is the only microphone rate: 16 kHz, 16-bit mono.
	MicSampleRate = 16000
	// MaxCaption is the largest SPEAKER_TEXT payload in bytes.
	MaxCaption = 1024
	// HelloPayloadSize is the size of a HELLO or HELLO_ACK payload.
	HelloPayloadSize = 8
)

// HelloPayload is the payload of HELLO (host's max payload and capabilities)
// and of HELLO_ACK (negotiated max payload and the firmware's own
// capabilities, not an intersection: §23).
type HelloPayload struct {
	MaxPayload uint32
	Caps       Caps
}

// Append appends the 8-byte encoding of h to dst.
func (h HelloPayload) Append(dst []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, h.MaxPayload)
	return binary.LittleEndian.AppendUint32(dst, uint32(h.Caps))
}

// ErrBadControlPayload: a control payload of the wrong size or content for
// its code. Errors from the Parse functions and DecodeControl wrap it.
var ErrBadControlPayload = errors.New("bad control payload")

// ErrUnknownControl: a control code not in §5.
var ErrUnknownControl = errors.New("unknown control code")

// ParseHelloPayload decodes a HELLO or HELLO_ACK payload, which must be
// exactly 8 bytes. Bounds and capability checks are the caller's (see
// CheckHello and CheckHelloAck) because host and firmware differ.
func ParseHelloPayload(p []byte) (HelloPayload, error) {
	if len(p) != HelloPayloadSize {
		return HelloPayload{}, fmt.Errorf("wire: hello payload: %w: %d bytes, want 8", ErrBadControlPayload, len(p))
	}
	return HelloPayload{
		MaxPayload: binary.LittleEndian.Uint32(p),
		Caps:       Caps(binary.LittleEndian.Uint32(p[4:])),
	}, nil
}

// ParseCredit decodes a SPEAKER_CREDIT payload: the u32 number of
// additional PCM bytes the host may send.
func ParseCredit(p []byte) (uint32, error) {
	if len(p) != 4 {
		return 0, fmt.Errorf("wire: speaker credit payload: %w: %d bytes, want 4", ErrBadControlPayload, len(p))
	}
	return binary.LittleEndian.Uint32(p), nil
}

// ParseErrorCode decodes an ERROR payload. Unknown codes are returned, not
// refused: a newer firmware may add codes and the host only logs them.
func ParseErrorCode(p []byte) (ErrorCode, error) {
	if len(p) != 4 {
		return 0, fmt.Errorf("wire: error payload: %w: %d bytes, want 4", ErrBadControlPayload, len(p))
	}
	return ErrorCode(binary.LittleEndian.Uint32(p)), nil
}

// ParseStatus decodes a STATUS payload: one byte, 0–5. Whether the value is
// allowed by the capabilities is a separate question (FirmwareAcceptsStatus).
func ParseStatus(p []byte) (Status, error) {
	if len(p) != 1 {
		return 0, fmt.Errorf("wire: status payload: %w: %d bytes, want 1", ErrBadControlPayload, len(p))
	}
	if s := Status(p[0]); s > StatusError {
		return s, fmt.Errorf("wire: status payload: %w: value %d out of range 0-5", ErrBadControlPayload, p[0])
	}
	return Status(p[0]), nil
}

// ControlPayload is a decoded CONTROL frame. Only the field that belongs to
// Code is set.
type ControlPayload struct {
	Code   Control
	Hello  HelloPayload // HELLO, HELLO_ACK
	Credit uint32       // SPEAKER_CREDIT
	Error  ErrorCode    // ERROR
	Status Status       // STATUS
	Text   []byte       // SPEAKER_TEXT, aliases the frame payload
}

// DecodeControl decodes the payload of a CONTROL frame according to its
// code, checking the payload size of every code (empty where §5 says so).
// It does not check stream ids or sample rates: those rules depend on the
// session state and belong to the session layer.
func DecodeControl(f Frame) (ControlPayload, error) {
	if f.Type != TypeControl {
		return ControlPayload{}, fmt.Errorf("wire: decoding control: frame type is %s", f.Type)
	}
	c := ControlPayload{Code: Control(f.Flags)}
	var err error
	switch c.Code {
	case CtrlHello, CtrlHelloAck:
		c.Hello, err = ParseHelloPayload(f.Payload)
	case CtrlError:
		c.Error, err = ParseErrorCode(f.Payload)
	case CtrlSpeakerCredit:
		c.Credit, err = ParseCredit(f.Payload)
	case CtrlStatus:
		c.Status, err = ParseStatus(f.Payload)
	case CtrlSpeakerText:
		if len(f.Payload) == 0 || len(f.Payload) > MaxCaption {
			err = fmt.Errorf("wire: speaker text: %w: %d bytes, want 1-%d", ErrBadControlPayload, len(f.Payload), MaxCaption)
		} else if !utf8.Valid(f.Payload) {
			err = fmt.Errorf("wire: speaker text: %w: invalid UTF-8", ErrBadControlPayload)
		}
		c.Text = f.Payload
	case CtrlMicStart, CtrlMicStarted, CtrlMicStop, CtrlMicStopped,
		CtrlSpeakerStart, CtrlSpeakerEnd, CtrlSpeakerDone, CtrlSpeakerAbort:
		if len(f.Payload) != 0 {
			err = fmt.Errorf("wire: %s: %w: %d bytes, want none", c.Code, ErrBadControlPayload, len(f.Payload))
		}
	default:
		err = fmt.Errorf("wire: decoding control: %w %d", ErrUnknownControl, f.Flags)
	}
	if err != nil {
		return ControlPayload{Code: c.Code}, err
	}
	return c, nil
}

// ControlFrame builds a CONTROL frame. The constructors below fill in the
// stream id, rate and payload that §5 prescribes for each code; the caller
// supplies seq from its single control counter (§3.3).
func ControlFrame(code Control, stream uint16, seq, rate uint32, payload []byte) Frame {
	return Frame{Type: TypeControl, Flags: uint16(code), StreamID: stream, Sequence: seq, SampleRate: rate, Payload: payload}
}

// HelloFrame is the host's HELLO (stream 0, rate 0).
func HelloFrame(seq uint32, h HelloPayload) Frame {
	return ControlFrame(CtrlHello, 0, seq, 0, h.Append(make([]byte, 0, HelloPayloadSize)))
}

// HelloAckFrame is the firmware's HELLO_ACK (stream 0, rate 0).
func HelloAckFrame(seq uint32, h HelloPayload) Frame {
	return ControlFrame(CtrlHelloAck, 0, seq, 0, h.Append(make([]byte, 0, HelloPayloadSize)))
}

// ErrorFrame is an ERROR on the offending stream (0 when none), rate 0.
func ErrorFrame(stream uint16, seq uint32, code ErrorCode) Frame {
	return ControlFrame(CtrlError, stream, seq, 0, binary.LittleEndian.AppendUint32(make([]byte, 0, 4), uint32(code)))
}

// MicStartFrame asks the firmware to start the microphone on a new non-zero stream.
func MicStartFrame(stream uint16, seq uint32) Frame {
	return ControlFrame(CtrlMicStart, stream, seq, MicSampleRate, nil)
}

// MicStartedFrame confirms MIC_START.
func MicStartedFrame(stream uint16, seq uint32) Frame {
	return ControlFrame(CtrlMicStarted, stream, seq, MicSampleRate, nil)
}

// MicStopFrame asks the firmware to stop the microphone stream.
func MicStopFrame(stream uint16, seq uint32) Frame {
	return ControlFrame(CtrlMicStop, stream, seq, MicSampleRate, nil)
}

// MicStoppedFrame confirms MIC_STOP.
func MicStoppedFrame(stream uint16, seq uint32) Frame {
	return ControlFrame(CtrlMicStopped, stream, seq, MicSampleRate, nil)
}

// SpeakerStartFrame opens a speaker stream at rate (8000, 16000 or 24000).
func SpeakerStartFrame(stream uint16, seq, rate uint32) Frame {
	return ControlFrame(CtrlSpeakerStart, stream, seq, rate, nil)
}

// SpeakerCreditFrame grants credit additional PCM bytes on a speaker stream.
func SpeakerCreditFrame(stream uint16, seq, rate, credit uint32) Frame {
	return ControlFrame(CtrlSpeakerCredit, stream, seq, rate, binary.LittleEndian.AppendUint32(make([]byte, 0, 4), credit))
}

// SpeakerEndFrame says no more PCM follows on the speaker stream.
func SpeakerEndFrame(stream uint16, seq, rate uint32) Frame {
	return ControlFrame(CtrlSpeakerEnd, stream, seq, rate, nil)
}

// SpeakerDoneFrame reports that the speaker stream finished playing.
func SpeakerDoneFrame(stream uint16, seq, rate uint32) Frame {
	return ControlFrame(CtrlSpeakerDone, stream, seq, rate, nil)
}

// SpeakerAbortFrame stops the speaker stream at once.
func SpeakerAbortFrame(stream uint16, seq, rate uint32) Frame {
	return ControlFrame(CtrlSpeakerAbort, stream, seq, rate, nil)
}

// SpeakerTextFrame carries a caption for the speaker stream. The text must
// be 1–1024 bytes of UTF-8; it is referenced, not copied.
func SpeakerTextFrame(stream uint16, seq, rate uint32, text []byte) (Frame, error) {
	if len(text) == 0 || len(text) > MaxCaption {
		return Frame{}, fmt.Errorf("wire: speaker text: %d bytes, want 1-%d", len(text), MaxCaption)
	}
	if !utf8.Valid(text) {
		return Frame{}, errors.New("wire: speaker text: invalid UTF-8")
	}
	return ControlFrame(CtrlSpeakerText, stream, seq, rate, text), nil
}

// StatusFrame sets the firmware's status icon (stream 0, rate 0). Gate the
// value with Negotiated.StatusToSend first.
func StatusFrame(seq uint32, s Status) Frame {
	return ControlFrame(CtrlStatus, 0, seq, 0, []byte{byte(s)})
}
