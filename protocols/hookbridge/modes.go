package hookbridge

// Permission modes as Claude Code writes them in a hook input's
// permission_mode (and as the hook forwards them in Event.Mode and
// PermissionRequest.Mode).
const (
	ModeDefault           = "default"
	ModePlan              = "plan"
	ModeAcceptEdits       = "acceptEdits"
	ModeBypassPermissions = "bypassPermissions"
	ModeDontAsk           = "dontAsk"
)

// ModeSkipsPrompts reports whether a session in mode asks for no
// permission at all: bypassPermissions runs every tool, dontAsk refuses
// whatever is not already allowed. Either way no PermissionRequest comes,
// so the Pi has nothing to answer for that session and says so.
func ModeSkipsPrompts(mode string) bool {
	return mode == ModeBypassPermissions || mode == ModeDontAsk
}

// ModeBadge is the short name of a mode for the screen, or "" for the
// default mode and for nothing known. An unknown mode from a newer Claude
// Code is shown as it is, cut to what fits a badge.
func ModeBadge(mode string) string {
	switch mode {
	case "", ModeDefault:
		return ""
	case ModePlan:
		return "plan"
	case ModeAcceptEdits:
		return "accept edits"
	case ModeBypassPermissions:
		return "bypass"
	case ModeDontAsk:
		return "don't ask"
	}
	return Printable(mode, 16)
}

// Notification types (notification_type) after which Claude is waiting
// for the user: a permission dialog is open (its own, or a worker's), the
// prompt has sat idle, an MCP server asks for input (elicitation, in a
// dialog or at a URL), or an agent needs input. The others Claude Code
// 2.1.328 sends (auth_success, agent_completed, push_notification, ...)
// and types this list does not know say nothing about waiting.
const (
	NotifyPermissionPrompt       = "permission_prompt"
	NotifyWorkerPermissionPrompt = "worker_permission_prompt"
	NotifyIdlePrompt             = "idle_prompt"
	NotifyElicitation            = "elicitation_dialog"
	NotifyElicitationURL         = "elicitation_url_dialog"
	NotifyAgentNeedsInput        = "agent_needs_input"
)

// WaitsForUser reports whether a Notification of type t means Claude
// waits for the user.
func WaitsForUser(t string) bool {
	switch t {
	case NotifyPermissionPrompt, NotifyWorkerPermissionPrompt, NotifyIdlePrompt,
		NotifyElicitation, NotifyElicitationURL, NotifyAgentNeedsInput:
		return true
	}
	return false
}
