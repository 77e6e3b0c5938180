package buddy

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// Errors for lines that are not a JSON object. The device drops such lines
// silently (spec §3.2 step 4); the errors exist for logs and tools.
var (
	ErrInvalidJSON = errors.New("buddy: line is not valid JSON")
	ErrNotObject   = errors.New("buddy: line is not a JSON object")
)

// FieldError reports a field with the wrong JSON type or an impossible
// value. The line as a whole is rejected.
type FieldError struct {
	Msg   string // the message: "heartbeat", "time", `cmd "file"`, ...
	Field string // the field: "running", "prompt.id", ...
	Want  string
	Got   string // the JSON type; for a number also its value
}

// Error names the message, the field, what was wanted and what came.
func (e *FieldError) Error() string {
	return fmt.Sprintf("buddy: %s field %q: want %s, got %s", e.Msg, e.Field, e.Want, e.Got)
}

// CommandError is a command whose arguments do not decode. A device still
// owes it exactly one ack: send [CommandError.Ack].
type CommandError struct {
	Cmd   string
	Field *FieldError
}

// Error is the underlying field error's text.
func (e *CommandError) Error() string { return e.Field.Error() }

// Unwrap returns the [*FieldError].
func (e *CommandError) Unwrap() error { return e.Field }

// Reason is the short text for the failing ack's "error".
func (e *CommandError) Reason() string {
	return fmt.Sprintf("invalid %s: want %s", e.Field.Field, e.Field.Want)
}

// Ack is the one failing ack the device sends for this command.
func (e *CommandError) Ack() []byte { return AckFail(e.Cmd, 0, e.Reason()) }

// got describes a raw value for a [FieldError].
func got(v []byte) string {
	if t := jsonType(v); t != "number" {
		return t
	}
	if len(v) > 24 {
		return "number " + string(v[:24]) + "…"
	}
	return "number " + string(v)
}

// key indexes the members a decoder looks at; the rest are ignored.
type key int

const (
	kAck key = iota
	kCmd
	kEvt
	kTime
	kTotal // heartbeat; also char_begin
	kRunning
	kWaiting
	kMsg
	kEntries
	kTokens
	kTokensToday
	kPrompt
	kCompleted
	kName
	kPath
	kSize
	kD
	kIdx
	kID
	kDecision
	kRole
	kContent
	kOK
	kN
	kError
	kData
	kTool
	kHint
	numKeys
)

var keyNames = [numKeys]string{
	"ack", "cmd", "evt", "time", "total", "running", "waiting", "msg", "entries",
	"tokens", "tokens_today", "prompt", "completed", "name", "path", "size", "d",
	"idx", "id", "decision", "role", "content", "ok", "n", "error", "data",
	"tool", "hint",
}

// members holds the raw value of each known key; nil means absent. When a
// key repeats the last one wins, as in the desktop's JSON.parse.
type members [numKeys][]byte

func (m *members) collect(obj []byte) {
	_ = eachMember(obj, func(k, v []byte) error {
		for i := range keyNames {
			if keyNames[i] == string(k) {
				m[i] = v
				break
			}
		}
		return nil
	})
}

// get treats an explicit null like an absent member: lenient hosts send
// it for "nothing", and JSON.stringify never does.
func (m *members) get(k key) []byte {
	if v := m[k]; v != nil && v[0] != 'n' {
		return v
	}
	return nil
}

// Decode decodes one line (without its '\n'). It never retains line.
//
// Dispatch follows the spec's order (§3.4): "ack", then "cmd", then "evt",
// then "time"; otherwise the object is a [Heartbeat] if it has any
// heartbeat key, else a [Keepalive]. Unknown keys are ignored. A command
// with bad arguments returns a [*CommandError]; other bad fields a
// [*FieldError].
func Decode(line []byte) (Message, error) {
	if !json.Valid(line) {
		return nil, ErrInvalidJSON
	}
	if line[skipWS(line, 0)] != '{' {
		return nil, ErrNotObject
	}
	var m members
	m.collect(line)
	switch {
	case m[kAck] != nil:
		return decodeAck(&m)
	case m[kCmd] != nil:
		return decodeCommand(&m)
	case m[kEvt] != nil:
		return decodeEvent(&m)
	case m[kTime] != nil:
		return decodeTime(&m)
	}
	for k := kTotal; k <= kCompleted; k++ {
		if m[k] != nil {
			return decodeHeartbeat(&m)
		}
	}
	return Keepalive{}, nil
}

func decodeHeartbeat(m *members) (Message, error) {
	var h Heartbeat
	// Spec §5.1 [OURS]: a bad field keeps its previous value instead of
	// losing the whole heartbeat (and with it the prompt). The field is left
	// out of Present and named in Ignored so the caller can log it.
	ignore := func(field, want string, v []byte) {
		h.Ignored = append(h.Ignored, &FieldError{Msg: "heartbeat", Field: field, Want: want, Got: got(v)})
	}
	counts := [...]struct {
		k   key
		f   Fields
		dst *uint32
	}{{kTotal, FieldTotal, &h.Total}, {kRunning, FieldRunning, &h.Running}, {kWaiting, FieldWaiting, &h.Waiting}}
	for _, c := range counts {
		if v := m.get(c.k); v != nil {
			n, ok := parseInt(v, 0, math.MaxUint32)
			if !ok {
				ignore(keyNames[c.k], "non-negative integer", v)
				continue
			}
			*c.dst = uint32(n)
			h.Present |= c.f
		}
	}
	tokens := [...]struct {
		k   key
		f   Fields
		dst *uint64
	}{{kTokens, FieldTokens, &h.Tokens}, {kTokensToday, FieldTokensToday, &h.TokensToday}}
	for _, c := range tokens {
		if v := m.get(c.k); v != nil {
			n, ok := parseInt(v, 0, math.MaxInt64)
			if !ok {
				ignore(keyNames[c.k], "non-negative integer", v)
				continue
			}
			*c.dst = uint64(n)
			h.Present |= c.f
		}
	}
	if v := m.get(kMsg); v != nil {
		if v[0] == '"' {
			h.Msg = unquote(v)
			h.Present |= FieldMsg
		} else {
			ignore("msg", "string", v)
		}
	}
	if v := m.get(kEntries); v != nil {
		if v[0] != '[' {
			ignore("entries", "array of strings", v)
		} else {
			h.Entries = make([]string, 0, 8)
			_ = eachElement(v, func(_ int, e []byte) error {
				s := "" // spec §5.1: a non-string entry becomes ""
				if e[0] == '"' {
					s = unquote(e)
				}
				h.Entries = append(h.Entries, s)
				return nil
			})
			h.Present |= FieldEntries
		}
	}
	if v := m.get(kCompleted); v != nil {
		if v[0] == 't' || v[0] == 'f' {
			h.Completed = v[0] == 't'
			h.Present |= FieldCompleted
		} else {
			ignore("completed", "boolean", v)
		}
	}
	if v := m.get(kPrompt); v != nil && v[0] != 'n' { // null: no prompt
		if v[0] != '{' {
			ignore("prompt", "object", v) // spec §5.1: treated as no prompt
			return h, nil
		}
		var p members
		p.collect(v)
		var strs [3]string
		for i, k := range [...]key{kID, kTool, kHint} {
			raw := p.get(k)
			if raw == nil {
				continue
			}
			if raw[0] != '"' {
				if raw[0] != 'n' { // null is absent
					ignore("prompt."+keyNames[k], "string", raw)
				}
				continue // a bad id: no prompt; a bad tool/hint: ""
			}
			strs[i] = unquote(raw)
		}
		if strs[0] != "" { // spec §5.1: no usable id, no prompt
			h.Prompt = &Prompt{ID: strs[0], Tool: strs[1], Hint: strs[2]}
		}
	}
	return h, nil
}
