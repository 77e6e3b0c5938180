package hookbridge

// EnvEntrypoint is the environment variable through which Claude Code
// names the surface that started it ("cli" when nothing else did). Its
// hooks inherit it.
const EnvEntrypoint = "CLAUDE_CODE_ENTRYPOINT"

// DesktopHosted reports whether a hook runs in a session that the Claude
// desktop app hosts: entrypoint is EnvEntrypoint's value. The set is the
// one Claude Code itself treats as hosted by the desktop app (its Code
// tab, the third-party-provider build, and local agent mode; 2.1.328).
// Such a session's permission prompts already reach the Pi over BLE in
// the desktop's heartbeat, and the hook input carries nothing to match
// the two by (PermissionRequest has no tool_use_id), so the hooks step
// aside there and the desktop's prompt is the one the Pi shows. A
// terminal opened inside the desktop app runs with entrypoint "cli" and
// is not hosted: its prompts are the terminal's and come by the hook.
func DesktopHosted(entrypoint string) bool {
	switch entrypoint {
	case "claude-desktop", "claude-desktop-3p", "local-agent", "local_agent":
		return true
	}
	return false
}
