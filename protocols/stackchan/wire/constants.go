package wire

// Frame layout (spec §2). All integers on the wire are little-endian.
const (
	Magic          = 0x5343 // "CS" on the wire: 43 53
	Version        = 2
	HeaderSize     = 20
	CRCSize        = 4
	Overhead       = HeaderSize + CRCSize
	MaxPayload     = 4096
	MaxFrame       = Overhead + MaxPayload
	MinPeerPayload = 640 // HELLO/HELLO_ACK below this are refused (§9)
)

// Type is the frame type byte (spec §3.1). Values above TypeEvent are invalid.
type Type uint8

const (
	TypeControl     Type = 0
	TypeMicPCM      Type = 1
	TypeSpeakerPCM  Type = 2
	TypeExpression  Type = 3
	TypeMotion      Type = 4
	TypeDiagnostics Type = 5
	TypeEvent       Type = 6
)

// Control is a control code, carried in the flags field of a CONTROL frame (spec §5).
type Control uint16

const (
	CtrlHello         Control = 1
	CtrlHelloAck      Control = 2
	CtrlError         Control = 3
	CtrlMicStart      Control = 16
	CtrlMicStarted    Control = 17
	CtrlMicStop       Control = 18
	CtrlMicStopped    Control = 19
	CtrlSpeakerStart  Control = 32
	CtrlSpeakerCredit Control = 33
	CtrlSpeakerEnd    Control = 34
	CtrlSpeakerDone   Control = 35
	CtrlSpeakerAbort  Control = 36
	CtrlSpeakerText   Control = 37
	CtrlStatus        Control = 48
)

// EVENT frame flags (spec §13).
const (
	EventStart uint16 = 1 << 0
	EventEnd   uint16 = 1 << 1
)

// ErrorCode is the u32 payload of an ERROR control frame (spec §6).
type ErrorCode uint32

const (
	ErrInvalidRequest          ErrorCode = 1
	ErrInvalidStreamData       ErrorCode = 2
	ErrTransportOverflow       ErrorCode = 3
	ErrAudioOutput             ErrorCode = 4
	ErrBusy                    ErrorCode = 5
	ErrSpeakerSequenceMismatch ErrorCode = 6
	ErrSpeakerBufferOverflow   ErrorCode = 7
	ErrCaptionQueueOverflow    ErrorCode = 8
)

// Caps is the capability bit set of HELLO and HELLO_ACK (spec §7).
type Caps uint32

const (
	CapMicPCM         Caps = 1 << 0
	CapSpeakerPCM     Caps = 1 << 1
	CapSpeakerCredit  Caps = 1 << 2
	CapSpeaker8k      Caps = 1 << 3
	CapSpeaker16k     Caps = 1 << 4
	CapSpeaker24k     Caps = 1 << 5
	CapSpeakerText    Caps = 1 << 6
	CapDiagnostics    Caps = 1 << 7
	CapStatusIcon     Caps = 1 << 8
	CapStreamID       Caps = 1 << 9 // mandatory in v2
	CapEvent          Caps = 1 << 10
	CapStatusExtended Caps = 1 << 11
)

// Status is the one-byte payload of a STATUS control frame (spec §8).
type Status uint8

const (
	StatusIdle        Status = 0
	StatusRecognizing Status = 1
	StatusSpeaking    Status = 2
	StatusListening   Status = 3 // needs CapStatusExtended
	StatusConnecting  Status = 4 // needs CapStatusExtended
	StatusError       Status = 5 // needs CapStatusExtended
)
