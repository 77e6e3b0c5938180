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
	Message string `json:"message"`
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

// Summary turns a tool call into what the Pi shows besides the tool: a
// one-line hint (the command, the path, the URL) and a detail that says
// what the call would do: the full command and its description, an
// edit's size and its old and new text, a write's size and content, a
// search's scope. Unknown tools get their compact tool_input. A detail
// over MaxDetail ends in a line saying how much is not shown.
func Summary(tool string, input json.RawMessage) (hint, detail string) {
	var m map[string]any
	if json.Unmarshal(input, &m) != nil {
		return "", clipNoted(validUTF8(string(input)), MaxDetail)
	}
	str := func(k string) string { s, _ := m[k].(string); return s }
	var lines []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			lines = append(lines, s)
		}
	}
	switch {
	case str("command") != "":
		hint = str("command")
		add(str("description"))
		if c := str("command"); strings.ContainsAny(c, "\r\n") || len(c) > MaxHint {
			// The hint shows only the first line; the rest is what the
			// user must see before allowing it.
			add("$ " + c)
		}
	case str("file_path") != "":
		hint = str("file_path")
		add(changeSize(m))
		if c := changeText(m); c != "" {
			lines = append(lines, c) // verbatim: indentation is part of it
		}
	case str("notebook_path") != "":
		hint = str("notebook_path")
		add(strings.TrimSpace(str("edit_mode") + " cell " + str("cell_id")))
	case str("url") != "":
		hint = str("url")
		add(str("prompt"))
	case str("pattern") != "":
		hint = str("pattern")
		if p := str("path"); p != "" {
			add("in " + p)
		}
		if g := str("glob"); g != "" {
			add("files " + g)
		}
	}
	detail = strings.Join(lines, "\n")
	if detail == "" && hint == "" {
		compact := new(bytes.Buffer)
		if json.Compact(compact, input) == nil {
			// Compact keeps the raw bytes of strings, and the Pi refuses a
			// detail that is not UTF-8.
			detail = validUTF8(compact.String())
		}
	}
	return clip(oneLine(hint), MaxHint), clipNoted(detail, MaxDetail)
}

// changeText is what a file tool would write: Edit's and MultiEdit's old
// and new text, Write's content.
func changeText(m map[string]any) string {
	var b strings.Builder
	edit := func(em map[string]any) {
		o, _ := em["old_string"].(string)
		n, _ := em["new_string"].(string)
		b.WriteString("--- old\n" + o + "\n+++ new\n" + n + "\n")
	}
	if _, ok := m["old_string"].(string); ok {
		edit(m)
	}
	if edits, ok := m["edits"].([]any); ok {
		for _, e := range edits {
			if em, ok := e.(map[string]any); ok {
				edit(em)
			}
		}
	}
	if c, ok := m["content"].(string); ok {
		b.WriteString("--- content\n" + c)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// clipNoted clips s to n bytes; when it cuts, the last line says how
// many bytes are not shown, so a screen never passes a part for the
// whole.
func clipNoted(s string, n int) string {
	if len(s) <= n {
		return s
	}
	note := func(k int) string { return fmt.Sprintf("\n[… %d more bytes not shown]", k) }
	cut := clip(s, n-len(note(len(s)))) // the final count has no more digits
	return cut + note(len(s)-len(cut))
}

// changeSize describes a file tool's change: Edit's replaced lines,
// MultiEdit's edits, Write's size. "" for a read.
func changeSize(m map[string]any) string {
	str := func(k string) (string, bool) { s, ok := m[k].(string); return s, ok }
	if old, ok := str("old_string"); ok {
		nw, _ := str("new_string")
		s := fmt.Sprintf("edit: -%d +%d lines", countLines(old), countLines(nw))
		if all, _ := m["replace_all"].(bool); all {
			s += ", every occurrence"
		}
		return s
	}
	if edits, ok := m["edits"].([]any); ok {
		del, ins := 0, 0
		for _, e := range edits {
			em, _ := e.(map[string]any)
			o, _ := em["old_string"].(string)
			n, _ := em["new_string"].(string)
			del, ins = del+countLines(o), ins+countLines(n)
		}
		return fmt.Sprintf("%d edits: -%d +%d lines", len(edits), del, ins)
	}
	if content, ok := str("content"); ok {
		return fmt.Sprintf("write: %d lines, %d bytes", countLines(content), len(content))
	}
	return ""
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// RequestDetail is the detail of a permission request: the tool call's
// Summary detail, then the working directory, which tells the user where
// a relative path or a command would act. A long detail is clipped so the
// directory line always fits within MaxDetail.
func RequestDetail(in HookInput) string {
	_, d := Summary(in.ToolName, in.ToolInput)
	cwd := strings.TrimSpace(in.CWD)
	if cwd == "" {
		return d
	}
	where := "in " + clip(oneLine(cwd), MaxDetail/4)
	if d == "" {
		return where
	}
	return clipNoted(d, MaxDetail-len(where)-1) + "\n" + where
}

// Activity is the "last activity" line of a session for an event, or ""
// when the event says nothing worth showing.
func Activity(in HookInput) string {
	switch in.HookEventName {
	case EventUserPromptSubmit:
		return clip(oneLine(in.Prompt), MaxActivity)
	case EventPostToolUse:
		hint, _ := Summary(in.ToolName, in.ToolInput)
		return clip(oneLine(strings.TrimSpace(in.ToolName+" "+hint)), MaxActivity)
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
