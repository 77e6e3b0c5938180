package buddy

// Kind names a message's type; it is stable and used in logs and in the
// output of `claude-pi buddy decode`.
type Kind string

// The kinds [Decode] can return.
const (
	KindHeartbeat Kind = "heartbeat"
	KindKeepalive Kind = "keepalive"
	KindTurn      Kind = "turn"
	KindEvent     Kind = "event"
	KindTime      Kind = "time"
	KindCommand   Kind = "command"
	KindAck       Kind = "ack"
)

// Message is one decoded line. The concrete types are [Heartbeat],
// [Keepalive], [TurnEvent], [OtherEvent], [TimeSync], [Ack] and the
// [Command] types.
type Message interface {
	Kind() Kind
	// AppendJSON appends the message as one JSON object, without '\n'.
	AppendJSON(dst []byte) []byte
}

// Encode returns m as one line ending in '\n'.
func Encode(m Message) []byte {
	return append(m.AppendJSON(make([]byte, 0, 128)), '\n')
}

// Fields is a set of heartbeat fields, recording which were present.
type Fields uint16

// Heartbeat fields (spec §5.1). The desktop always sends all of them except
// prompt (only while a permission is pending) and completed (never).
const (
	FieldTotal Fields = 1 << iota
	FieldRunning
	FieldWaiting
	FieldMsg
	FieldEntries
	FieldTokens
	FieldTokensToday
	FieldCompleted
)

// Has reports whether every field in f is present.
func (s Fields) Has(f Fields) bool { return s&f == f }

// Heartbeat is the desktop's complete state (spec §5.1). It is never a delta:
// a field in Present replaces the device's value, a field absent keeps it,
// and a nil Prompt means no prompt is pending.
//
// Decoding is strict about types: a field of the wrong JSON type, a negative
// or fractional count fails the whole line with a [*FieldError], so the
// device keeps all its previous values (spec §5.1 robustness rule). Two
// spec leniencies are kept: a non-string element of entries becomes "", and
// a prompt that is null or has no non-empty id means "no prompt".
type Heartbeat struct {
	Present     Fields
	Total       uint32
	Running     uint32
	Waiting     uint32
	Msg         string
	Entries     []string // oldest first, newest last (spec §11)
	Tokens      uint64
	TokensToday uint64
	Prompt      *Prompt
	Completed   bool // never sent by the desktop; read for completeness
	// Ignored names fields that were sent with an unusable value (wrong
	// type, negative, fractional). They are not in Present, so a receiver
	// keeps their previous values, as spec §5.1 asks; log these.
	Ignored []*FieldError
}

// Prompt is a pending tool-permission request.
type Prompt struct {
	// ID is the request id exactly as sent: any length, any Unicode. Echo
	// it unchanged with [EncodePermission]; a truncated or re-escaped id
	// makes the approval fail silently.
	ID   string
	Tool string
	Hint string
}

// Keepalive is an object without any heartbeat key, such as {}: it only
// proves the link is alive and changes no state.
type Keepalive struct{}

// TurnEvent is {"evt":"turn"}: one transcript message of a session. It
// MUST NOT touch heartbeat or prompt state: the reference firmware's worst
// bug was treating it as a heartbeat without a prompt, which cleared the
// pending prompt (spec §12.1).
type TurnEvent struct {
	Role    string // "user" or "assistant"
	Content []byte // raw JSON: an array of blocks, or (UNVERIFIED) a string; nil if absent
}

// OtherEvent is an "evt" other than "turn"; devices ignore it.
type OtherEvent struct {
	Evt string
}

// TimeSync is {"time":[epoch, offset]} (spec §5.3). It is never acked, and
// the appliance must not set its system clock from it.
type TimeSync struct {
	Epoch  int64 // seconds since 1970 UTC
	Offset int32 // local offset, seconds east of UTC (PDT = -25200)
}

// Ack is an acknowledgement line as decoded (device → desktop). The desktop
// never sends one, so a device ignores it; the demo desktop reads them.
// To produce acks use [AckOK], [AckFail] and [EncodeStatus], which enforce
// the rules a device must follow.
type Ack struct {
	Cmd   string // the command acknowledged
	OK    bool
	N     int64
	Error string
	Data  []byte // raw JSON object, status acks only; nil if absent
}

// Kind implements [Message].
func (Heartbeat) Kind() Kind { return KindHeartbeat }

// Kind implements [Message].
func (Keepalive) Kind() Kind { return KindKeepalive }

// Kind implements [Message].
func (TurnEvent) Kind() Kind { return KindTurn }

// Kind implements [Message].
func (OtherEvent) Kind() Kind { return KindEvent }

// Kind implements [Message].
func (TimeSync) Kind() Kind { return KindTime }

// Kind implements [Message].
func (Ack) Kind() Kind { return KindAck }
