package realtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Event types of spec §18.
const (
	TypeSessionCreated  = "session.created"
	TypeSessionUpdate   = "session.update"
	TypeSessionUpdated  = "session.updated"
	TypeOutputItemAdded = "response.output_item.added"
	TypeArgumentsDone   = "response.function_call_arguments.done"
	TypeOutputItemDone  = "response.output_item.done"
	TypeItemCreate      = "conversation.item.create"
	TypeItemCreated     = "conversation.item.created"
	TypeResponseCreate  = "response.create"
	TypeError           = "error"
)

// Error codes the host sends in "error" events.
const (
	CodeUnknownCallID = "unknown_call_id"
	CodeEventIDReused = "event_id_reused"
	CodeInvalidEvent  = "invalid_event"
	// CodeToolRefused: a session.update was accepted without some of its
	// tools (Session.Refused), named in the message.
	CodeToolRefused = "tool_refused"
)

// Limits on what the device may send. They bound memory and what reaches
// the model; a catalog past them is refused as a whole.
const (
	MaxTools        = 16
	MaxName         = 64
	MaxDescription  = 1024
	MaxParameters   = 4096 // bytes of one tool's JSON schema
	MaxInstructions = 2048
	MaxOutput       = 4096 // bytes of one function output
	MaxEventID      = 128
)

// Errors of Decode; the returned error wraps one of them.
var (
	ErrNotRaw       = errors.New("realtime: not a raw event (a JSON object without \"schema\")")
	ErrBadEvent     = errors.New("realtime: invalid event")
	ErrUnknownType  = errors.New("realtime: event type not handled")
	ErrCatalogLimit = errors.New("realtime: catalog over the limits")
)

// mcpName is what Claude Code and MCP accept as a tool name.
var mcpName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// MCPName is the name Claude sees for the device's tool name: the same,
// with each namespace separator ('.', '/', ':') made '_', so that
// "stackchan.say" is offered as "stackchan_say" (the spec sets no name
// rule, and one Stack-chan tool module uses dotted names). Any other
// character outside [a-zA-Z0-9_-] (a space, a control, non-ASCII) makes
// the name unmappable: a lookalike or a "rm -rf" is refused rather than
// renamed into something Claude would read as another tool.
func MCPName(name string) (string, error) {
	b := []byte(name)
	for i, c := range b {
		if c == '.' || c == '/' || c == ':' {
			b[i] = '_'
		}
	}
	if !mcpName.Match(b) {
		return "", fmt.Errorf("name %.64q is not 1-%d of [a-zA-Z0-9_-] (with '.', '/' and ':' read as '_')", name, MaxName)
	}
	return string(b), nil
}

// Tool is one function tool of a catalog.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // a JSON Schema object, compacted
	// MCPName is MCPName(Name), unique in its catalog: what Claude calls
	// it. It is not on the wire; the device only ever sees Name.
	MCPName string `json:"-"`
}

// Session is the "session" object of session.update.
type Session struct {
	Instructions string
	Tools        []Tool
	// Skipped counts entries that are not function tools (type "mcp"):
	// the Pi does not connect to MCP servers for the device.
	Skipped int
	// Refused names the function tools left out of Tools, each with why:
	// a name MCPName cannot map, or one that maps onto an earlier tool's.
	// The rest of the catalog stands (issue 33: one odd name used to cost
	// the whole catalog); a catalog left with no tool at all is refused.
	Refused []string
}

// Event is one decoded raw event; which fields are set depends on Type.
type Event struct {
	Type    string
	EventID string
	Session Session // session.update
	// conversation.item.create: the function_call_output item.
	CallID, Output string
	// error
	Code, Message string
}

// Decode parses and validates one raw event sent by the device
// (session.update, conversation.item.create, response.create, error).
// Other raw types wrap ErrUnknownType and carry the type for logs.
func Decode(b []byte) (Event, error) {
	if !utf8.Valid(b) {
		return Event{}, fmt.Errorf("%w: invalid UTF-8", ErrBadEvent)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return Event{}, ErrNotRaw
	}
	if _, ok := m["schema"]; ok {
		return Event{}, ErrNotRaw
	}
	var e Event
	var err error
	if e.Type, err = str(m, "type", true); err != nil {
		return Event{}, err
	}
	if e.EventID, err = str(m, "event_id", false); err != nil {
		return e, err
	}
	if len(e.EventID) > MaxEventID {
		return e, fmt.Errorf("%w: event_id longer than %d bytes", ErrBadEvent, MaxEventID)
	}
	switch e.Type {
	case TypeSessionUpdate:
		if e.EventID == "" {
			return e, fmt.Errorf("%w: session.update needs a non-empty event_id", ErrBadEvent)
		}
		e.Session, err = decodeSession(m["session"])
	case TypeItemCreate:
		if e.EventID == "" {
			return e, fmt.Errorf("%w: conversation.item.create needs a non-empty event_id", ErrBadEvent)
		}
		e.CallID, e.Output, err = decodeOutputItem(m["item"])
	case TypeResponseCreate:
		if e.EventID == "" {
			return e, fmt.Errorf("%w: response.create needs a non-empty event_id", ErrBadEvent)
		}
	case TypeError:
		var body map[string]json.RawMessage
		if json.Unmarshal(m["error"], &body) != nil || body == nil {
			return e, fmt.Errorf("%w: error needs an \"error\" object", ErrBadEvent)
		}
		if e.Code, err = str(body, "code", false); err == nil {
			e.Message, err = str(body, "message", false)
		}
	default:
		return e, fmt.Errorf("%w: %q", ErrUnknownType, e.Type)
	}
	if err != nil {
		return e, err
	}
	return e, nil
}

func str(m map[string]json.RawMessage, key string, required bool) (string, error) {
	raw, ok := m[key]
	if !ok {
		if required {
			return "", fmt.Errorf("%w: %q missing", ErrBadEvent, key)
		}
		return "", nil
	}
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", fmt.Errorf("%w: %q must be a string", ErrBadEvent, key)
	}
	if required && s == "" {
		return "", fmt.Errorf("%w: %q is empty", ErrBadEvent, key)
	}
	return s, nil
}

func decodeSession(raw json.RawMessage) (Session, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return Session{}, fmt.Errorf("%w: session.update needs a \"session\" object", ErrBadEvent)
	}
	var s Session
	var err error
	if s.Instructions, err = str(m, "instructions", false); err != nil {
		return Session{}, err
	}
	if len(s.Instructions) > MaxInstructions {
		return Session{}, fmt.Errorf("%w: instructions longer than %d bytes", ErrCatalogLimit, MaxInstructions)
	}
	var tools []map[string]json.RawMessage
	if t, ok := m["tools"]; ok && json.Unmarshal(t, &tools) != nil {
		return Session{}, fmt.Errorf("%w: \"tools\" must be an array of objects", ErrBadEvent)
	}
	seen, mapped := map[string]bool{}, map[string]string{}
	for i, t := range tools {
		kind, err := str(t, "type", true)
		if err != nil {
			return Session{}, fmt.Errorf("tool %d: %w", i, err)
		}
		if kind != "function" {
			s.Skipped++
			continue
		}
		var tool Tool
		if tool.Name, err = str(t, "name", true); err != nil {
			return Session{}, fmt.Errorf("tool %d: %w", i, err)
		}
		if seen[tool.Name] {
			return Session{}, fmt.Errorf("%w: tool name %.64q twice", ErrBadEvent, tool.Name)
		}
		seen[tool.Name] = true
		if tool.MCPName, err = MCPName(tool.Name); err != nil {
			s.Refused = append(s.Refused, fmt.Sprintf("tool %d: %v", i, err))
			continue
		}
		if first, ok := mapped[tool.MCPName]; ok {
			s.Refused = append(s.Refused, fmt.Sprintf("tool %d: name %q would be %q, as %q already is", i, tool.Name, tool.MCPName, first))
			continue
		}
		mapped[tool.MCPName] = tool.Name
		if tool.Description, err = str(t, "description", false); err != nil {
			return Session{}, fmt.Errorf("tool %s: %w", tool.Name, err)
		}
		if len(tool.Description) > MaxDescription {
			return Session{}, fmt.Errorf("%w: tool %s: description longer than %d bytes", ErrCatalogLimit, tool.Name, MaxDescription)
		}
		params := t["parameters"]
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object"}`)
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(params, &obj) != nil || obj == nil {
			return Session{}, fmt.Errorf("%w: tool %s: parameters must be a JSON Schema object", ErrBadEvent, tool.Name)
		}
		var buf bytes.Buffer
		_ = json.Compact(&buf, params) // valid JSON: cannot fail
		if buf.Len() > MaxParameters {
			return Session{}, fmt.Errorf("%w: tool %s: parameters longer than %d bytes", ErrCatalogLimit, tool.Name, MaxParameters)
		}
		tool.Parameters = buf.Bytes()
		s.Tools = append(s.Tools, tool)
		if len(s.Tools) > MaxTools {
			return Session{}, fmt.Errorf("%w: more than %d function tools", ErrCatalogLimit, MaxTools)
		}
	}
	if len(s.Tools) == 0 && len(s.Refused) > 0 {
		return Session{}, fmt.Errorf("%w: no tool left: %s", ErrBadEvent, strings.Join(s.Refused, "; "))
	}
	return s, nil
}

func decodeOutputItem(raw json.RawMessage) (callID, output string, err error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return "", "", fmt.Errorf("%w: conversation.item.create needs an \"item\" object", ErrBadEvent)
	}
	kind, err := str(m, "type", true)
	if err != nil {
		return "", "", err
	}
	if kind != "function_call_output" {
		return "", "", fmt.Errorf("%w: item type %.32q, want function_call_output", ErrBadEvent, kind)
	}
	if callID, err = str(m, "call_id", true); err != nil {
		return "", "", err
	}
	if len(callID) > MaxEventID {
		return "", "", fmt.Errorf("%w: call_id longer than %d bytes", ErrBadEvent, MaxEventID)
	}
	if _, ok := m["output"]; !ok {
		return "", "", fmt.Errorf("%w: function_call_output needs \"output\"", ErrBadEvent)
	}
	if output, err = str(m, "output", false); err != nil {
		return "", "", err
	}
	if len(output) > MaxOutput {
		return "", "", fmt.Errorf("%w: output longer than %d bytes", ErrCatalogLimit, MaxOutput)
	}
	return callID, output, nil
}

// canonical is the session object in one spelling (keys sorted, no
// spaces), to tell an identical repeated session.update from a changed one.
func (s Session) canonical() string {
	b, _ := json.Marshal(s.wire())
	return string(b)
}

type wireTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type wireSession struct {
	Instructions string     `json:"instructions"`
	Tools        []wireTool `json:"tools"`
}

func (s Session) wire() wireSession {
	w := wireSession{Instructions: s.Instructions, Tools: []wireTool{}}
	for _, t := range s.Tools {
		w.Tools = append(w.Tools, wireTool{"function", t.Name, t.Description, t.Parameters})
	}
	return w
}

// Encoders of what the host sends. Field order follows the spec's examples.

// SessionCreated is the host's opening event; the host offers no tools of
// its own.
func SessionCreated(eventID string) []byte {
	return marshal(struct {
		Type    string      `json:"type"`
		EventID string      `json:"event_id"`
		Session wireSession `json:"session"`
	}{TypeSessionCreated, eventID, wireSession{Tools: []wireTool{}}})
}

// SessionUpdated acknowledges the session.update with event id updateID.
func SessionUpdated(updateID string, s Session) []byte {
	return marshal(struct {
		Type    string      `json:"type"`
		EventID string      `json:"event_id"`
		Session wireSession `json:"session"`
	}{TypeSessionUpdated, updateID, s.wire()})
}

// ItemCreated acknowledges a function output.
func ItemCreated(eventID, callID, output string) []byte {
	return marshal(struct {
		Type    string     `json:"type"`
		EventID string     `json:"event_id"`
		Item    outputItem `json:"item"`
	}{TypeItemCreated, eventID, outputItem{"function_call_output", callID, output}})
}

type outputItem struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

// ErrorEvent is the "error" event; eventID may be empty.
func ErrorEvent(eventID, code, message string) []byte {
	return marshal(struct {
		Type    string `json:"type"`
		EventID string `json:"event_id,omitempty"`
		Error   struct {
			Type    string `json:"type"`
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{Type: TypeError, EventID: eventID, Error: struct {
		Type    string `json:"type"`
		Code    string `json:"code"`
		Message string `json:"message"`
	}{"invalid_request_error", code, message}})
}

// FunctionCall is one call as the three events of §18.4, each tagged with
// the generation's update id.
type FunctionCall struct {
	UpdateID   string
	ResponseID string
	ItemID     string
	CallID     string
	Name       string
	Arguments  string // a JSON object as a string
}

type callItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Status    string `json:"status,omitempty"`
}

type itemEvent struct {
	Type        string   `json:"type"`
	EventID     string   `json:"event_id"`
	ResponseID  string   `json:"response_id"`
	OutputIndex int      `json:"output_index"`
	Item        callItem `json:"item"`
	UpdateID    string   `json:"stackchan_session_update_id"`
}

// Events returns the call's three events with event ids ids[0..2].
func (c FunctionCall) Events(ids [3]string) [3][]byte {
	added := itemEvent{TypeOutputItemAdded, ids[0], c.ResponseID, 0,
		callItem{"function_call", c.ItemID, c.CallID, c.Name, "", "in_progress"}, c.UpdateID}
	done := added
	done.Type, done.EventID = TypeOutputItemDone, ids[2]
	done.Item.Arguments, done.Item.Status = c.Arguments, "completed"
	args := marshal(struct {
		Type        string `json:"type"`
		EventID     string `json:"event_id"`
		ResponseID  string `json:"response_id"`
		ItemID      string `json:"item_id"`
		OutputIndex int    `json:"output_index"`
		CallID      string `json:"call_id"`
		Name        string `json:"name"`
		Arguments   string `json:"arguments"`
		UpdateID    string `json:"stackchan_session_update_id"`
	}{TypeArgumentsDone, ids[1], c.ResponseID, c.ItemID, 0, c.CallID, c.Name, c.Arguments, c.UpdateID})
	return [3][]byte{marshal(added), args, marshal(done)}
}

func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("realtime: BUG: " + err.Error()) // only fixed struct types reach here
	}
	return b
}
