// Package hookbridge is the pure part of the bridge between Claude Code's
// permission hook on a developer's computer and the Claude_Pi appliance:
// the Claude Code hook input and output formats, the JSON the hook and
// the Pi exchange over the LAN, and the pairing code both ends show.
//
// Nothing here does I/O; every decoder has a size limit and a fuzz target.
package hookbridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Hook event names as Claude Code writes them in hook_event_name.
const (
	EventPermissionRequest = "PermissionRequest"
	EventSessionStart      = "SessionStart"
	EventUserPromptSubmit  = "UserPromptSubmit"
	EventPostToolUse       = "PostToolUse"
	EventStop              = "Stop"
	EventSessionEnd        = "SessionEnd"
	EventNotification      = "Notification"
)

// MaxHookInput bounds what the hook reads from stdin. A Write tool call
// carries the whole file in tool_input, so this is generous; anything
// larger is not a hook input we can trust to be complete.
const MaxHookInput = 8 << 20

// HookInput is the JSON Claude Code writes to a command hook's stdin. Only
// the fields the bridge uses are decoded; unknown fields are ignored so a
// newer Claude Code keeps working.
type HookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	PermissionMode string `json:"permission_mode"`
	HookEventName  string `json:"hook_event_name"`

	// PermissionRequest and PostToolUse.
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	// PermissionSuggestions are the "always allow" options the terminal
	// dialog offers. The bridge never applies them (one decision for one
	// request); they are decoded only so their presence is visible.
	PermissionSuggestions json.RawMessage `json:"permission_suggestions"`

	// Set when a subagent made the request.
	AgentID   string `json:"agent_id"`
	AgentType string `json:"agent_type"`

	// UserPromptSubmit.
	Prompt string `json:"prompt"`
	// Notification.
	Message          string `json:"message"`
	NotificationType string `json:"notification_type"`
	// SessionStart ("startup", "resume", ...) and SessionEnd.
	Source string `json:"source"`
	Reason string `json:"reason"`
	// Stop: Claude's reply that ended the turn, the terminal's only
	// source of spoken replies.
	LastAssistantMessage string `json:"last_assistant_message"`
}

// ErrHookInput marks input that is not a usable hook input.
var ErrHookInput = errors.New("hookbridge: bad hook input")

// DecodeHookInput parses and checks a hook's stdin. A PermissionRequest
// must name its tool; every event must carry a session id.
func DecodeHookInput(b []byte) (HookInput, error) {
	var in HookInput
	if len(b) > MaxHookInput {
		return in, fmt.Errorf("%w: %d bytes, more than %d", ErrHookInput, len(b), MaxHookInput)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return in, fmt.Errorf("%w: not a JSON object", ErrHookInput)
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return HookInput{}, fmt.Errorf("%w: %v", ErrHookInput, err)
	}
	switch {
	case in.SessionID == "":
		return HookInput{}, fmt.Errorf("%w: no session_id", ErrHookInput)
	case in.HookEventName == "":
		return HookInput{}, fmt.Errorf("%w: no hook_event_name", ErrHookInput)
	case in.HookEventName == EventPermissionRequest && in.ToolName == "":
		return HookInput{}, fmt.Errorf("%w: PermissionRequest without tool_name", ErrHookInput)
	}
	return in, nil
}

// ProjectName is the last element of a working directory, for the screen:
// "/home/ada/src/engine" → "engine". Windows paths work too.
func ProjectName(cwd string) string {
	cwd = strings.TrimRight(cwd, `/\`)
	if i := strings.LastIndexAny(cwd, `/\`); i >= 0 {
		cwd = cwd[i+1:]
	}
	if cwd == "" || strings.HasSuffix(cwd, ":") {
		return "?"
	}
	return clip(cwd, MaxProject)
}

// Activity is the "last activity" line of a session for an event, or ""
// when the event says nothing worth showing.
func Activity(in HookInput) string {
	switch in.HookEventName {
	case EventUserPromptSubmit:
		return clip(oneLine(in.Prompt), MaxActivity)
	case EventPostToolUse:
		hint, _ := Summary(in.ToolName, in.ToolInput)
		if _, _, mcp := mcpTool(in.ToolName); mcp {
			return clip(hint, MaxActivity) // it names the server and the tool
		}
		return clip(oneLine(validUTF8(strings.TrimSpace(in.ToolName+" "+hint))), MaxActivity)
	case EventNotification:
		return clip(oneLine(in.Message), MaxActivity)
	case EventSessionStart:
		return clip("session "+in.Source, MaxActivity)
	case EventStop:
		return "done"
	case EventSessionEnd:
		return "ended"
	}
	return ""
}

// Reply is Claude's reply of a Stop event for the Pi to speak, clipped to
// MaxReply (only its first sentences are spoken), or "" for any other
// event.
func Reply(in HookInput) string {
	if in.HookEventName != EventStop {
		return ""
	}
	return clip(validUTF8(strings.TrimSpace(in.LastAssistantMessage)), MaxReply)
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

// clip shortens s to at most n bytes without splitting a UTF-8 sequence.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !startsRune(s[i]) {
		i--
	}
	return s[:i]
}

func validUTF8(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

func startsRune(b byte) bool { return b&0xC0 != 0x80 }
