package wire

import (
	"math/bits"
	"strconv"
)

var typeNames = [...]string{
	TypeControl:     "CONTROL",
	TypeMicPCM:      "MICROPHONE_PCM",
	TypeSpeakerPCM:  "SPEAKER_PCM",
	TypeExpression:  "EXPRESSION",
	TypeMotion:      "MOTION",
	TypeDiagnostics: "DIAGNOSTICS",
	TypeEvent:       "EVENT",
}

// String returns the spec name of t (§3.1), or "TYPE(n)" for invalid types.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "TYPE(" + strconv.Itoa(int(t)) + ")"
}

var controlNames = map[Control]string{
	CtrlHello:         "HELLO",
	CtrlHelloAck:      "HELLO_ACK",
	CtrlError:         "ERROR",
	CtrlMicStart:      "MIC_START",
	CtrlMicStarted:    "MIC_STARTED",
	CtrlMicStop:       "MIC_STOP",
	CtrlMicStopped:    "MIC_STOPPED",
	CtrlSpeakerStart:  "SPEAKER_START",
	CtrlSpeakerCredit: "SPEAKER_CREDIT",
	CtrlSpeakerEnd:    "SPEAKER_END",
	CtrlSpeakerDone:   "SPEAKER_DONE",
	CtrlSpeakerAbort:  "SPEAKER_ABORT",
	CtrlSpeakerText:   "SPEAKER_TEXT",
	CtrlStatus:        "STATUS",
}

// Known reports whether c is a control code of §5. The firmware answers
// unknown codes with ERROR 1; a host logs and ignores them.
func (c Control) Known() bool {
	_, ok := controlNames[c]
	return ok
}

// String returns the spec name of c (§5), or "CONTROL(n)" if unknown.
func (c Control) String() string {
	if s, ok := controlNames[c]; ok {
		return s
	}
	return "CONTROL(" + strconv.Itoa(int(c)) + ")"
}

var errorNames = [...]string{
	ErrInvalidRequest:          "INVALID_REQUEST",
	ErrInvalidStreamData:       "INVALID_STREAM_DATA",
	ErrTransportOverflow:       "TRANSPORT_OVERFLOW",
	ErrAudioOutput:             "AUDIO_OUTPUT",
	ErrBusy:                    "BUSY",
	ErrSpeakerSequenceMismatch: "SPEAKER_SEQUENCE_MISMATCH",
	ErrSpeakerBufferOverflow:   "SPEAKER_BUFFER_OVERFLOW",
	ErrCaptionQueueOverflow:    "CAPTION_QUEUE_OVERFLOW",
}

// String returns the spec name of e (§6), or "ERROR(n)" if unknown.
func (e ErrorCode) String() string {
	if e > 0 && int(e) < len(errorNames) {
		return errorNames[e]
	}
	return "ERROR(" + strconv.FormatUint(uint64(e), 10) + ")"
}

var statusNames = [...]string{
	StatusIdle:        "IDLE",
	StatusRecognizing: "RECOGNIZING",
	StatusSpeaking:    "SPEAKING",
	StatusListening:   "LISTENING",
	StatusConnecting:  "CONNECTING",
	StatusError:       "ERROR",
}

// String returns the spec name of s (§8), or "STATUS(n)" if out of range.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "STATUS(" + strconv.Itoa(int(s)) + ")"
}

var capNames = [...]string{
	"MICROPHONE_PCM", "SPEAKER_PCM", "SPEAKER_CREDIT", "SPEAKER_RATE_8000",
	"SPEAKER_RATE_16000", "SPEAKER_RATE_24000", "SPEAKER_TEXT", "DIAGNOSTICS",
	"STATUS_ICON", "STREAM_ID", "EVENT", "STATUS_EXTENDED",
}

// Has reports whether every bit of want is set in c.
func (c Caps) Has(want Caps) bool { return c&want == want }

// Names lists the spec names of the bits set in c, lowest bit first; bits
// the spec does not define appear as "BIT_n" so nothing is hidden.
func (c Caps) Names() []string {
	names := make([]string, 0, bits.OnesCount32(uint32(c)))
	for v := uint32(c); v != 0; v &= v - 1 {
		i := bits.TrailingZeros32(v)
		if i < len(capNames) {
			names = append(names, capNames[i])
		} else {
			names = append(names, "BIT_"+strconv.Itoa(i))
		}
	}
	return names
}

// String joins Names with "|", e.g. "MICROPHONE_PCM|SPEAKER_PCM", or "0".
func (c Caps) String() string {
	if c == 0 {
		return "0"
	}
	s := ""
	for i, n := range c.Names() {
		if i > 0 {
			s += "|"
		}
		s += n
	}
	return s
}
