package appevent

import (
	"github.com/claude-pi/claude-pi/protocols/internal/jsonstring"
	"unicode/utf8"
)

// Marshal validates e and encodes it as compact JSON with keys in upstream
// order: schema, type, requestId, then the type's fields as listed in §14.3
// (optional error/message only when non-empty). Strings are escaped like
// JavaScript's JSON.stringify (no HTML escaping), so the bytes match what
// upstream peers produce for the same event.
func Marshal(e Event) ([]byte, error) {
	return AppendMarshal(make([]byte, 0, 128), e)
}

// AppendMarshal is Marshal appending to dst. On a validation error dst is
// returned unchanged.
func AppendMarshal(dst []byte, e Event) ([]byte, error) {
	if e == nil {
		return dst, fieldErr("", "type", "nil event")
	}
	if err := e.Validate(); err != nil {
		return dst, err
	}
	dst = append(dst, `{"schema":"`+Schema+`","type":`...)
	dst = appendString(dst, string(e.Type()))
	dst = append(dst, `,"requestId":`...)
	dst = appendString(dst, e.ID())
	dst = e.appendFields(dst)
	return append(dst, '}'), nil
}

func (ConversationStart) appendFields(b []byte) []byte {
	return append(b, `,"source":"headTouch","gesture":"forwardSwipe"`...)
}

func (ConversationStop) appendFields(b []byte) []byte {
	return append(b, `,"source":"headTouch","gesture":"backwardSwipe"`...)
}

func (e ConversationResult) appendFields(b []byte) []byte {
	b = append(b, `,"success":`...)
	b = appendBool(b, e.Success)
	b = append(b, `,"state":`...)
	b = appendString(b, string(e.State))
	if e.Error != "" {
		b = append(b, `,"error":`...)
		b = appendString(b, e.Error)
	}
	return b
}

func (e ApprovalRequest) appendFields(b []byte) []byte {
	b = append(b, `,"kind":`...)
	b = appendString(b, string(e.Kind))
	b = append(b, `,"title":`...)
	b = appendString(b, e.Title)
	b = append(b, `,"summary":`...)
	b = appendString(b, e.Summary)
	b = append(b, `,"detail":`...)
	b = appendString(b, e.Detail)
	b = append(b, `,"truncated":`...)
	return appendBool(b, e.Truncated)
}

func (ApprovalPresented) appendFields(b []byte) []byte { return b }

func (e ApprovalResponse) appendFields(b []byte) []byte {
	b = append(b, `,"decision":`...)
	return appendString(b, string(e.Decision))
}

func (e ApprovalResolved) appendFields(b []byte) []byte {
	if e.Message == "" {
		return b
	}
	b = append(b, `,"message":`...)
	return appendString(b, e.Message)
}

func (ApprovalSuspended) appendFields(b []byte) []byte { return b }

func (e TaskStatus) appendFields(b []byte) []byte {
	b = append(b, `,"state":`...)
	return appendString(b, string(e.State))
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

// appendString writes s as JSON.stringify would (package jsonstring).
func appendString(dst []byte, s string) []byte { return jsonstring.Append(dst, s) }

// NewConversationStart builds the firmware's conversation.start.
func NewConversationStart(requestID string) ConversationStart {
	return ConversationStart{RequestID: requestID}
}

// NewConversationStop builds the firmware's conversation.stop.
func NewConversationStop(requestID string) ConversationStop {
	return ConversationStop{RequestID: requestID}
}

// NewConversationResult builds the host's answer to a start or stop;
// errText is sent only when non-empty.
func NewConversationResult(requestID string, success bool, state ConversationState, errText string) ConversationResult {
	return ConversationResult{RequestID: requestID, Success: success, State: state, Error: errText}
}

// NewApprovalRequest builds the host's approval.request, cutting detail to
// MaxDetail bytes on a UTF-8 boundary and setting Truncated if it did.
func NewApprovalRequest(requestID string, kind ApprovalKind, title, summary, detail string) ApprovalRequest {
	detail, cut := TruncateDetail(detail)
	return ApprovalRequest{RequestID: requestID, Kind: kind, Title: title, Summary: summary, Detail: detail, Truncated: cut}
}

// NewApprovalPresented builds the firmware's approval.presented.
func NewApprovalPresented(requestID string) ApprovalPresented {
	return ApprovalPresented{RequestID: requestID}
}

// NewApprovalResponse builds the firmware's approval.response.
func NewApprovalResponse(requestID string, d Decision) ApprovalResponse {
	return ApprovalResponse{RequestID: requestID, Decision: d}
}

// NewApprovalResolved builds the host's approval.resolved; message is sent
// only when non-empty.
func NewApprovalResolved(requestID, message string) ApprovalResolved {
	return ApprovalResolved{RequestID: requestID, Message: message}
}

// NewApprovalSuspended builds the host's approval.suspended.
func NewApprovalSuspended(requestID string) ApprovalSuspended {
	return ApprovalSuspended{RequestID: requestID}
}

// NewTaskStatus builds the host's task.status.
func NewTaskStatus(requestID string, s TaskState) TaskStatus {
	return TaskStatus{RequestID: requestID, State: s}
}

// TruncateDetail cuts s to at most MaxDetail bytes without splitting a UTF-8
// sequence, reporting whether it cut anything.
func TruncateDetail(s string) (string, bool) {
	if len(s) <= MaxDetail {
		return s, false
	}
	n := MaxDetail
	// Back up over continuation bytes to the start of the rune that would
	// straddle the limit; at most 3 steps for valid UTF-8.
	for n > 0 && n > MaxDetail-utf8.UTFMax && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
