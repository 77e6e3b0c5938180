package appevent

// Schema is the value of the "schema" key of every application event.
const Schema = "stackchan.event.v1"

// MaxDetail is the largest approval.request detail in bytes (16 KiB). Hosts
// truncate on a UTF-8 boundary and set Truncated (§16.2).
const MaxDetail = 16 << 10

// Type is the "type" of an application event.
type Type string

// The v1 types (§14.3).
const (
	TypeConversationStart  Type = "conversation.start"
	TypeConversationStop   Type = "conversation.stop"
	TypeConversationResult Type = "conversation.result"
	TypeApprovalRequest    Type = "approval.request"
	TypeApprovalPresented  Type = "approval.presented"
	TypeApprovalResponse   Type = "approval.response"
	TypeApprovalResolved   Type = "approval.resolved"
	TypeApprovalSuspended  Type = "approval.suspended"
	TypeTaskStatus         Type = "task.status"
)

// Direction says which side sends a type.
type Direction uint8

// Directions of §14.3.
const (
	HostToFirmware Direction = iota + 1
	FirmwareToHost
)

// String names the direction for logs.
func (d Direction) String() string {
	switch d {
	case HostToFirmware:
		return "host→firmware"
	case FirmwareToHost:
		return "firmware→host"
	}
	return "unknown direction"
}

// Direction returns who sends t, and false for a type v1 does not define.
func (t Type) Direction() (Direction, bool) {
	switch t {
	case TypeConversationStart, TypeConversationStop, TypeApprovalPresented, TypeApprovalResponse:
		return FirmwareToHost, true
	case TypeConversationResult, TypeApprovalRequest, TypeApprovalResolved, TypeApprovalSuspended, TypeTaskStatus:
		return HostToFirmware, true
	}
	return 0, false
}

// ConversationState is the host's conversation phase in conversation.result.
type ConversationState string

// Conversation states (§15.2).
const (
	StateStandby     ConversationState = "standby"
	StateConnecting  ConversationState = "connecting"
	StateListening   ConversationState = "listening"
	StateRecognizing ConversationState = "recognizing"
	StateSpeaking    ConversationState = "speaking"
	StateBlocked     ConversationState = "blocked" // the host cannot run a conversation
)

func (s ConversationState) valid() bool {
	switch s {
	case StateStandby, StateConnecting, StateListening, StateRecognizing, StateSpeaking, StateBlocked:
		return true
	}
	return false
}

// ApprovalKind is what an approval.request asks about.
type ApprovalKind string

// Approval kinds.
const (
	KindCommand    ApprovalKind = "command"
	KindFileChange ApprovalKind = "fileChange"
)

func (k ApprovalKind) valid() bool { return k == KindCommand || k == KindFileChange }

// Decision is the user's answer in approval.response (OK / NG).
type Decision string

// Decisions.
const (
	Approve Decision = "approve"
	Decline Decision = "decline"
)

func (d Decision) valid() bool { return d == Approve || d == Decline }

// TaskState is the background task state of task.status.
type TaskState string

// Task states (§17).
const (
	TaskIdle    TaskState = "idle"
	TaskRunning TaskState = "running"
)

func (s TaskState) valid() bool { return s == TaskIdle || s == TaskRunning }

// Event is one decoded application event: a value of one of the types in
// this package. The set is closed.
type Event interface {
	// Type is the event's "type".
	Type() Type
	// ID is the event's "requestId".
	ID() string
	// Validate reports the first field that breaks §14.3.
	Validate() error
	appendFields(b []byte) []byte
}

// ConversationStart (F→H) asks the host to start a conversation; the
// firmware sends it on a forward head swipe. Source and gesture are fixed.
type ConversationStart struct{ RequestID string }

// ConversationStop (F→H) asks the host to stop the conversation (backward swipe).
type ConversationStop struct{ RequestID string }

// ConversationResult (H→F) answers a start or stop with the same RequestID.
// An empty Error is the same as no "error" key.
type ConversationResult struct {
	RequestID string
	Success   bool
	State     ConversationState
	Error     string
}

// ApprovalRequest (H→F) asks the user to approve a command or file change.
type ApprovalRequest struct {
	RequestID string
	Kind      ApprovalKind
	Title     string
	Summary   string
	Detail    string // at most MaxDetail bytes
	Truncated bool   // Detail was cut to fit
}

// ApprovalPresented (F→H) says the request is on screen, so the host stops resending it.
type ApprovalPresented struct{ RequestID string }

// ApprovalResponse (F→H) carries the user's decision; resent every 2 s until resolved.
type ApprovalResponse struct {
	RequestID string
	Decision  Decision
}

// ApprovalResolved (H→F) removes a request from the firmware's queue. An
// empty Message is the same as no "message" key.
type ApprovalResolved struct {
	RequestID string
	Message   string
}

// ApprovalSuspended (H→F) disables the buttons while the host's upstream is down.
type ApprovalSuspended struct{ RequestID string }

// TaskStatus (H→F) reports the background task state.
type TaskStatus struct {
	RequestID string
	State     TaskState
}

// Type returns TypeConversationStart.
func (ConversationStart) Type() Type { return TypeConversationStart }

// Type returns TypeConversationStop.
func (ConversationStop) Type() Type { return TypeConversationStop }

// Type returns TypeConversationResult.
func (ConversationResult) Type() Type { return TypeConversationResult }

// Type returns TypeApprovalRequest.
func (ApprovalRequest) Type() Type { return TypeApprovalRequest }

// Type returns TypeApprovalPresented.
func (ApprovalPresented) Type() Type { return TypeApprovalPresented }

// Type returns TypeApprovalResponse.
func (ApprovalResponse) Type() Type { return TypeApprovalResponse }

// Type returns TypeApprovalResolved.
func (ApprovalResolved) Type() Type { return TypeApprovalResolved }

// Type returns TypeApprovalSuspended.
func (ApprovalSuspended) Type() Type { return TypeApprovalSuspended }

// Type returns TypeTaskStatus.
func (TaskStatus) Type() Type { return TypeTaskStatus }

// ID returns the requestId.
func (e ConversationStart) ID() string { return e.RequestID }

// ID returns the requestId.
func (e ConversationStop) ID() string { return e.RequestID }

// ID returns the requestId.
func (e ConversationResult) ID() string { return e.RequestID }

// ID returns the requestId.
func (e ApprovalRequest) ID() string { return e.RequestID }

// ID returns the requestId.
func (e ApprovalPresented) ID() string { return e.RequestID }

// ID returns the requestId.
func (e ApprovalResponse) ID() string { return e.RequestID }

// ID returns the requestId.
func (e ApprovalResolved) ID() string { return e.RequestID }

// ID returns the requestId.
func (e ApprovalSuspended) ID() string { return e.RequestID }

// ID returns the requestId.
func (e TaskStatus) ID() string { return e.RequestID }
