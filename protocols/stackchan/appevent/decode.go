package appevent

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Kind is where Route sends an EVENT message.
type Kind uint8

// Routes of §14.1.
const (
	Drop        Kind = iota // not for us; the error says why
	Raw                     // no schema key: a Realtime-shaped event (§18)
	Application             // a valid stackchan.event.v1 event
)

// String names the route for logs.
func (k Kind) String() string {
	switch k {
	case Drop:
		return "drop"
	case Raw:
		return "raw"
	case Application:
		return "application"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Routed is the outcome of Route.
type Routed struct {
	Kind Kind
	// Type is the "type" key when it is a string (raw and application
	// events; also set on some drops, for logs).
	Type string
	// Event is the decoded event when Kind is Application.
	Event Event
}

// Route classifies one reassembled EVENT message (§14.1): an object without
// a "schema" key is Raw, one with schema "stackchan.event.v1" that passes
// validation is Application, and everything else is Drop with a non-nil
// error saying why: not JSON, not an object, a foreign schema, or an invalid
// v1 event (which is never treated as raw).
func Route(b []byte) (Routed, error) {
	m, err := parseObject(b)
	if err != nil {
		return Routed{}, err
	}
	var r Routed
	if raw, ok := m["type"]; ok && len(raw) > 0 && raw[0] == '"' {
		_ = json.Unmarshal(raw, &r.Type) // a valid JSON string: cannot fail
	}
	if _, ok := m["schema"]; !ok {
		r.Kind = Raw
		return r, nil
	}
	e, err := decodeObject(m)
	if err != nil {
		return r, err
	}
	r.Kind, r.Event = Application, e
	return r, nil
}

// Decode parses and validates one stackchan.event.v1 event of either
// direction (as the contract's test parser does). Unknown keys are ignored;
// errors wrap the Err… reasons and a *FieldError names the bad field.
func Decode(b []byte) (Event, error) {
	m, err := parseObject(b)
	if err != nil {
		return nil, err
	}
	return decodeObject(m)
}

// DecodeInbound is Decode for a receiver that accepts only the types sent
// toward it (inbound is HostToFirmware on the firmware, FirmwareToHost on
// the host). A valid event of the other direction yields ErrWrongDirection
// together with the event, so the caller can log what it ignores.
func DecodeInbound(b []byte, inbound Direction) (Event, error) {
	e, err := Decode(b)
	if err != nil {
		return nil, err
	}
	if d, _ := e.Type().Direction(); d != inbound {
		return e, fmt.Errorf("stackchan.event.v1 %s (%s): %w", e.Type(), d, ErrWrongDirection)
	}
	return e, nil
}

type object map[string]json.RawMessage

func parseObject(b []byte) (object, error) {
	if !utf8.Valid(b) {
		return nil, ErrInvalidUTF8
	}
	var m object
	if err := json.Unmarshal(b, &m); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%w (got %s)", ErrNotObject, te.Value)
		}
		return nil, fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	if m == nil { // the literal null
		return nil, fmt.Errorf("%w (got null)", ErrNotObject)
	}
	return m, nil
}

func decodeObject(m object) (Event, error) {
	schema, ok, err := m.str("", "schema")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrNoSchema
	}
	if schema != Schema {
		return nil, fmt.Errorf("%w: %q", ErrForeignSchema, schema)
	}
	typ, ok, err := m.str("", "type")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fieldErr("", "type", "missing")
	}
	t := Type(typ)
	if _, known := t.Direction(); !known {
		return nil, fmt.Errorf("%w %q", ErrUnknownType, typ)
	}
	id, err := m.required(t, "requestId")
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, fieldErr(t, "requestId", "must be a non-empty string")
	}
	switch t {
	case TypeConversationStart:
		if err := m.fixed(t, "headTouch", "forwardSwipe"); err != nil {
			return nil, err
		}
		return ConversationStart{RequestID: id}, nil
	case TypeConversationStop:
		if err := m.fixed(t, "headTouch", "backwardSwipe"); err != nil {
			return nil, err
		}
		return ConversationStop{RequestID: id}, nil
	case TypeConversationResult:
		e := ConversationResult{RequestID: id}
		if e.Success, err = m.boolean(t, "success"); err != nil {
			return nil, err
		}
		if err := m.enum(t, "state", (*string)(&e.State)); err != nil {
			return nil, err
		}
		if e.Error, _, err = m.str(t, "error"); err != nil {
			return nil, err
		}
		return validated(e)
	case TypeApprovalRequest:
		e := ApprovalRequest{RequestID: id}
		if err := m.enum(t, "kind", (*string)(&e.Kind)); err != nil {
			return nil, err
		}
		for _, f := range [...]struct {
			key string
			dst *string
		}{{"title", &e.Title}, {"summary", &e.Summary}, {"detail", &e.Detail}} {
			if *f.dst, err = m.required(t, f.key); err != nil {
				return nil, err
			}
		}
		if e.Truncated, err = m.boolean(t, "truncated"); err != nil {
			return nil, err
		}
		return validated(e)
	case TypeApprovalPresented:
		return ApprovalPresented{RequestID: id}, nil
	case TypeApprovalResponse:
		e := ApprovalResponse{RequestID: id}
		if err := m.enum(t, "decision", (*string)(&e.Decision)); err != nil {
			return nil, err
		}
		return validated(e)
	case TypeApprovalResolved:
		e := ApprovalResolved{RequestID: id}
		if e.Message, _, err = m.str(t, "message"); err != nil {
			return nil, err
		}
		return e, nil
	case TypeApprovalSuspended:
		return ApprovalSuspended{RequestID: id}, nil
	default: // TypeTaskStatus, the last known type
		e := TaskStatus{RequestID: id}
		if err := m.enum(t, "state", (*string)(&e.State)); err != nil {
			return nil, err
		}
		return validated(e)
	}
}

// validated runs the type's own enum and limit checks, so decoding and
// encoding share one definition of "valid".
func validated(e Event) (Event, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return e, nil
}

// str reads an optional string field; null or any other JSON type is an
// error, as in the upstream validators (typeof x === "string").
func (m object) str(t Type, key string) (string, bool, error) {
	raw, ok := m[key]
	if !ok {
		return "", false, nil
	}
	if len(raw) == 0 || raw[0] != '"' {
		return "", true, fieldErr(t, key, "must be a string, got %s", clip(raw))
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", true, fieldErr(t, key, "%v", err)
	}
	return s, true, nil
}

func (m object) required(t Type, key string) (string, error) {
	s, ok, err := m.str(t, key)
	if err == nil && !ok {
		err = fieldErr(t, key, "missing")
	}
	return s, err
}

// enum reads a required string; the caller's Validate checks the value.
func (m object) enum(t Type, key string, dst *string) error {
	s, err := m.required(t, key)
	*dst = s
	return err
}

func (m object) boolean(t Type, key string) (bool, error) {
	raw, ok := m[key]
	switch {
	case !ok:
		return false, fieldErr(t, key, "missing")
	case string(raw) == "true":
		return true, nil
	case string(raw) == "false":
		return false, nil
	}
	return false, fieldErr(t, key, "must be a boolean, got %s", clip(raw))
}

// fixed checks the constant source and gesture of conversation.start/stop.
func (m object) fixed(t Type, source, gesture string) error {
	for _, f := range [...][2]string{{"source", source}, {"gesture", gesture}} {
		s, err := m.required(t, f[0])
		if err != nil {
			return err
		}
		if s != f[1] {
			return fieldErr(t, f[0], "must be %q, got %q", f[1], s)
		}
	}
	return nil
}

// clip keeps error messages short when a peer sends a large value.
func clip(raw []byte) string {
	const max = 40
	if len(raw) > max {
		n := max
		for n > 0 && !utf8.RuneStart(raw[n]) {
			n--
		}
		return string(raw[:n]) + "…"
	}
	return string(raw)
}
