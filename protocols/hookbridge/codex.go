package hookbridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Codex CLI (openai/codex, 0.122 and later) runs command hooks configured
// in ~/.codex/hooks.json (or a project's .codex/hooks.json) with the same
// file shape as Claude Code's settings: {"hooks": {Event: [{"matcher",
// "hooks": [{"type": "command", "command", "timeout"}]}]}}. Its stdin
// JSON is close to Claude Code's and its PermissionRequest output is the
// same hookSpecificOutput.decision, so one prompt model serves both; what
// differs is decoded here, and the prompt says it came from Codex.

// CLICodex is the CLI field of a PermissionRequest or Event sent by a
// hook that Codex ran; "" is Claude Code.
const CLICodex = "codex"

// CLIName is how the Pi names the CLI a session runs in: "Codex" for
// CLICodex, "CLI" for Claude Code (the name the screen always used).
func CLIName(cli string) string {
	if cli == CLICodex {
		return "Codex"
	}
	return "CLI"
}

// Tool names Codex puts in a PermissionRequest's tool_name: its shell
// (exec_command and friends) as "Bash", with tool_input {command,
// description}, where description is the model's justification; a file
// edit; a network host outside the sandbox's allowance; and the
// request_permissions tool, by which the model asks for wider sandbox
// permissions. An MCP tool is mcp__server__tool, as in Claude Code.
const (
	CodexToolShell              = "Bash"
	CodexToolPatch              = "apply_patch"
	CodexToolNetwork            = "NetworkAccess"
	CodexToolRequestPermissions = "request_permissions"
)

// codexHookInput is the JSON Codex writes to a command hook's stdin
// (codex-rs/hooks schema/generated/*.command.input.schema.json). Only
// the fields the bridge uses are decoded; Codex's schemas forbid unknown
// fields on its side, but a newer Codex may add some, so they are
// ignored here.
type codexHookInput struct {
	SessionID      string `json:"session_id"`
	TurnID         string `json:"turn_id"`
	CWD            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Model          string `json:"model"`
	PermissionMode string `json:"permission_mode"`

	// PermissionRequest, PreToolUse and PostToolUse. tool_use_id is the
	// model's call id; a PermissionRequest has none.
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	ToolUseID string          `json:"tool_use_id"`

	// Set when a subagent made the request.
	AgentID   string `json:"agent_id"`
	AgentType string `json:"agent_type"`

	// UserPromptSubmit.
	Prompt string `json:"prompt"`
	// SessionStart: "startup", "resume", "clear".
	Source string `json:"source"`
	// Stop: the reply that ended the turn.
	LastAssistantMessage string `json:"last_assistant_message"`
}

// Codex's hook events the bridge follows. PreToolUse and the compaction
// events exist too; they say nothing the Pi shows.
var codexEvents = map[string]bool{
	EventPermissionRequest: true,
	EventSessionStart:      true,
	EventUserPromptSubmit:  true,
	EventPostToolUse:       true,
	EventStop:              true,
}

// DecodeCodexHookInput parses and checks the stdin of a hook that Codex
// ran and maps it onto the HookInput Claude Code's hooks decode to, so
// that DescribeRequest, Activity and Reply treat both alike. A
// PermissionRequest must name its tool; every event must carry a session
// id; an event the bridge does not follow is refused, naming it.
func DecodeCodexHookInput(b []byte) (HookInput, error) {
	var c codexHookInput
	if len(b) > MaxHookInput {
		return HookInput{}, fmt.Errorf("%w: %d bytes, more than %d", ErrHookInput, len(b), MaxHookInput)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return HookInput{}, fmt.Errorf("%w: not a JSON object", ErrHookInput)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return HookInput{}, fmt.Errorf("%w: %v", ErrHookInput, err)
	}
	switch {
	case c.SessionID == "":
		return HookInput{}, fmt.Errorf("%w: no session_id", ErrHookInput)
	case c.HookEventName == "":
		return HookInput{}, fmt.Errorf("%w: no hook_event_name", ErrHookInput)
	case !codexEvents[c.HookEventName]:
		return HookInput{}, fmt.Errorf("%w: Codex event %s is not one claude-pi follows", ErrHookInput, strconv.Quote(clip(c.HookEventName, MaxTool)))
	case c.HookEventName == EventPermissionRequest && c.ToolName == "":
		return HookInput{}, fmt.Errorf("%w: PermissionRequest without tool_name", ErrHookInput)
	}
	return HookInput{
		SessionID:            c.SessionID,
		CWD:                  c.CWD,
		PermissionMode:       c.PermissionMode,
		HookEventName:        c.HookEventName,
		ToolName:             c.ToolName,
		ToolInput:            c.ToolInput,
		AgentID:              c.AgentID,
		AgentType:            c.AgentType,
		Prompt:               c.Prompt,
		Source:               c.Source,
		LastAssistantMessage: c.LastAssistantMessage,
	}, nil
}

// Codex's PermissionRequest output has Claude Code's shape
// (permission-request.command.output.schema.json: hookSpecificOutput
// {hookEventName, decision {behavior: allow|deny, message}}), so
// AllowOutput and DenyOutput answer Codex too. Codex fails closed on
// updatedInput and interrupt, which permissionOutput cannot carry. No
// output at all leaves the request to Codex's own approval.

// applyPatch summarises Codex's file edit: the files it adds, updates or
// deletes on the hint, then the whole patch.
func applyPatch(f *fields) {
	patch, ok := f.take("command")
	if !ok {
		patch, ok = f.take("patch")
	}
	if !ok {
		return
	}
	var files []string
	for _, l := range strings.Split(patch, "\n") {
		for _, op := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if p, found := strings.CutPrefix(strings.TrimSpace(l), op); found {
				files = append(files, strings.TrimSpace(p))
			}
		}
	}
	switch len(files) {
	case 0:
		f.hint = clip("patch", MaxHint)
	case 1:
		f.hint = clip(oneLine(validUTF8("patch: "+files[0])), MaxHint)
	default:
		f.hint = clip(oneLine(validUTF8(fmt.Sprintf("patch: %d files: %s", len(files), strings.Join(files, ", ")))), MaxHint)
	}
	f.line("description", "")
	f.lines = append(f.lines, validUTF8(patch))
}

// networkAccess summarises Codex asking to reach a host the sandbox does
// not allow.
func networkAccess(f *fields) {
	whole := f.hintOf("command", "network: ")
	f.line("description", "")
	f.add(whole)
}

// requestPermissions summarises the model asking for wider sandbox
// permissions: its reason first; the permissions themselves are the
// rest of the input, shown whole as JSON.
func requestPermissions(f *fields) {
	f.hint = "asks for wider permissions"
	f.line("reason", "")
	f.line("justification", "")
	f.warn = append(f.warn, WarnWiderPermissions)
}

// WarnWiderPermissions flags a request_permissions call: approving it
// widens the sandbox, not just one call.
const WarnWiderPermissions = "widens the sandbox"
