package appevent

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Reasons an event is refused. Decoding and validation errors wrap one of
// them; test with errors.Is. None of them calls for an answer to the peer:
// the receiver logs and ignores the event (§14.3).
var (
	// ErrInvalidUTF8: the message bytes are not UTF-8 (§13.2).
	ErrInvalidUTF8 = errors.New("event is not valid UTF-8")
	// ErrNotJSON: the message does not parse as JSON.
	ErrNotJSON = errors.New("event is not JSON")
	// ErrNotObject: valid JSON, but not an object.
	ErrNotObject = errors.New("event is not a JSON object")
	// ErrNoSchema: Decode got a raw event (Route calls it Raw instead).
	ErrNoSchema = errors.New("event has no schema (raw event)")
	// ErrForeignSchema: a schema other than stackchan.event.v1; dropped.
	ErrForeignSchema = errors.New("event schema is not " + Schema)
	// ErrUnknownType: a v1 event with a type v1 does not define.
	ErrUnknownType = errors.New("unknown application event type")
	// ErrInvalidField: wrapped by every *FieldError.
	ErrInvalidField = errors.New("invalid application event field")
	// ErrWrongDirection: a valid event of the other direction (DecodeInbound).
	ErrWrongDirection = errors.New("application event sent in the wrong direction")
)

// FieldError names the field of an application event that failed
// validation. It wraps ErrInvalidField.
type FieldError struct {
	Type   Type   // the event type, empty if the type itself is bad
	Field  string // JSON key, e.g. "requestId"
	Reason string // e.g. "missing", "must be a string"
}

// Error names the schema, the event type and the field.
func (e *FieldError) Error() string {
	if e.Type == "" {
		return fmt.Sprintf("stackchan.event.v1: field %q: %s", e.Field, e.Reason)
	}
	return fmt.Sprintf("stackchan.event.v1 %s: field %q: %s", e.Type, e.Field, e.Reason)
}

// Unwrap returns ErrInvalidField.
func (e *FieldError) Unwrap() error { return ErrInvalidField }

func fieldErr(t Type, field, format string, args ...any) error {
	return &FieldError{Type: t, Field: field, Reason: fmt.Sprintf(format, args...)}
}

func checkID(t Type, id string) error {
	if id == "" {
		return fieldErr(t, "requestId", "must be a non-empty string")
	}
	return checkText(t, "requestId", id)
}

// checkText refuses strings that could not survive an encode/decode round
// trip; decoded strings always pass.
func checkText(t Type, field, s string) error {
	if !utf8.ValidString(s) {
		return fieldErr(t, field, "is not valid UTF-8")
	}
	return nil
}

// Validate checks the requestId.
func (e ConversationStart) Validate() error { return checkID(e.Type(), e.RequestID) }

// Validate checks the requestId.
func (e ConversationStop) Validate() error { return checkID(e.Type(), e.RequestID) }

// Validate checks the requestId and state.
func (e ConversationResult) Validate() error {
	if err := checkID(e.Type(), e.RequestID); err != nil {
		return err
	}
	if !e.State.valid() {
		return fieldErr(e.Type(), "state", "%q is not one of standby, connecting, listening, recognizing, speaking, blocked", e.State)
	}
	return checkText(e.Type(), "error", e.Error)
}

// Validate checks the requestId, kind, text and the detail limit.
func (e ApprovalRequest) Validate() error {
	t := e.Type()
	if err := checkID(t, e.RequestID); err != nil {
		return err
	}
	if !e.Kind.valid() {
		return fieldErr(t, "kind", "%q is not one of command, fileChange", e.Kind)
	}
	if len(e.Detail) > MaxDetail {
		return fieldErr(t, "detail", "%d bytes exceed %d", len(e.Detail), MaxDetail)
	}
	for _, f := range [...]struct{ name, v string }{{"title", e.Title}, {"summary", e.Summary}, {"detail", e.Detail}} {
		if err := checkText(t, f.name, f.v); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks the requestId.
func (e ApprovalPresented) Validate() error { return checkID(e.Type(), e.RequestID) }

// Validate checks the requestId and decision.
func (e ApprovalResponse) Validate() error {
	if err := checkID(e.Type(), e.RequestID); err != nil {
		return err
	}
	if !e.Decision.valid() {
		return fieldErr(e.Type(), "decision", "%q is not one of approve, decline", e.Decision)
	}
	return nil
}

// Validate checks the requestId and message.
func (e ApprovalResolved) Validate() error {
	if err := checkID(e.Type(), e.RequestID); err != nil {
		return err
	}
	return checkText(e.Type(), "message", e.Message)
}

// Validate checks the requestId.
func (e ApprovalSuspended) Validate() error { return checkID(e.Type(), e.RequestID) }

// Validate checks the requestId and state.
func (e TaskStatus) Validate() error {
	if err := checkID(e.Type(), e.RequestID); err != nil {
		return err
	}
	if !e.State.valid() {
		return fieldErr(e.Type(), "state", "%q is not one of idle, running", e.State)
	}
	return nil
}
