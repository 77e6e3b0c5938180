package hookbridge

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Stack-chan's tools over the LAN bridge: the docked CoreS3's catalog and
// calls, for `claude-pi mcp` on a paired computer.
const (
	// PathTools answers GET with a ToolCatalog; ?after=VERSION holds the
	// request until the catalog's version is another one (or about 20 s
	// pass), a long poll.
	PathTools = "/v1/stackchan/tools"
	// PathToolCall takes a ToolCall (POST) and answers a ToolCallResult
	// once the CoreS3 answers (at most about 30 s).
	PathToolCall = "/v1/stackchan/tools/call"
)

// MaxToolResponse bounds a catalog or result body read by the client.
const MaxToolResponse = 256 << 10

// ToolCatalog is the docked CoreS3's tool catalog.
type ToolCatalog struct {
	Version uint64 `json:"version"`
	// Docked: a CoreS3 is attached with EVENT ready.
	Docked bool `json:"docked"`
	// UpdateID names the catalog; a call passes it back.
	UpdateID string     `json:"update_id,omitempty"`
	Tools    []ToolInfo `json:"tools"`
}

// ToolInfo is one tool: its input schema is a JSON Schema object.
type ToolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// ToolCall calls tool Name of catalog UpdateID with Arguments (an object).
type ToolCall struct {
	UpdateID  string          `json:"update_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// ToolCallResult is the CoreS3's output, or an error Code (no_dock,
// no_catalog, stale_catalog, unknown_tool, bad_arguments, timeout,
// dock_gone, send_failed, busy) with a message.
type ToolCallResult struct {
	Output string `json:"output,omitempty"`
	Code   string `json:"code,omitempty"`
	Error  string `json:"error,omitempty"`
}

// DecodeToolCall parses a ToolCall strictly: known fields only, a non-empty
// name of at most MaxTool bytes, arguments absent or a JSON object.
func DecodeToolCall(b []byte) (ToolCall, error) {
	var c ToolCall
	if err := decodeStrict(b, &c); err != nil {
		return ToolCall{}, err
	}
	if c.Name == "" || len(c.Name) > MaxTool || len(c.UpdateID) > MaxSession {
		return ToolCall{}, fmt.Errorf("%w: tool call needs a name of 1-%d bytes and an update_id of at most %d", ErrRequest, MaxTool, MaxSession)
	}
	if len(c.Arguments) > 0 && string(c.Arguments) != "null" {
		var obj map[string]json.RawMessage
		if json.Unmarshal(c.Arguments, &obj) != nil {
			return ToolCall{}, fmt.Errorf("%w: tool call arguments must be a JSON object", ErrRequest)
		}
	} else {
		c.Arguments = nil
	}
	return c, nil
}

// DecodeToolCatalog parses what the Pi answers on PathTools.
func DecodeToolCatalog(b []byte) (ToolCatalog, error) {
	var c ToolCatalog
	if len(b) > MaxToolResponse || !utf8.Valid(b) {
		return ToolCatalog{}, fmt.Errorf("%w: tool catalog over %d bytes or not UTF-8", ErrRequest, MaxToolResponse)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return ToolCatalog{}, fmt.Errorf("%w: tool catalog: %v", ErrRequest, err)
	}
	for _, t := range c.Tools {
		var obj map[string]json.RawMessage
		if t.Name == "" || json.Unmarshal(t.InputSchema, &obj) != nil || obj == nil {
			return ToolCatalog{}, fmt.Errorf("%w: tool %.64q without a name or an object schema", ErrRequest, t.Name)
		}
	}
	return c, nil
}

// DecodeToolCallResult parses what the Pi answers on PathToolCall.
func DecodeToolCallResult(b []byte) (ToolCallResult, error) {
	var r ToolCallResult
	if len(b) > MaxToolResponse {
		return r, fmt.Errorf("%w: tool result over %d bytes", ErrRequest, MaxToolResponse)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return ToolCallResult{}, fmt.Errorf("%w: tool result: %v", ErrRequest, err)
	}
	if r.Code == "" && r.Error != "" {
		r.Code = "error"
	}
	return r, nil
}
