package clientcli

// Codex CLI's side of the hooks: `claude-pi hook install --agent codex`
// writes Codex's hooks.json, and `claude-pi hook permission|event --cli
// codex` reads Codex's hook input. Everything else (the Pi, the prompt,
// the decision, Codex's output, which has Claude Code's shape) is shared
// with Claude Code's hooks.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// Values of `hook install --agent` and of the hooks' --cli.
const (
	agentClaude = "claude"
	agentCodex  = "codex"
	agentBoth   = "both"
)

// codexHookFlag ends every command installed into Codex's hooks.json.
const codexHookFlag = " --cli " + agentCodex

// codexEventHooks are the Codex events `claude-pi hook event` follows:
// the ones that move task.status (the turn starts, a tool ran, the turn
// ends with the reply to speak). Codex has no SessionEnd or Notification.
var codexEventHooks = []string{
	hookbridge.EventSessionStart, hookbridge.EventUserPromptSubmit,
	hookbridge.EventPostToolUse, hookbridge.EventStop,
}

func checkAgent(agent string) error {
	switch agent {
	case agentClaude, agentCodex, agentBoth:
		return nil
	}
	return usagef("hook install: --agent %q: want claude, codex or both", agent)
}

// codexHooksPath is Codex's hooks.json: the project's .codex/hooks.json,
// or $CODEX_HOME/hooks.json (~/.codex by default), as Codex looks for it.
func codexHooksPath(project bool) (string, error) {
	if project {
		return filepath.Join(".codex", "hooks.json"), nil
	}
	if h := os.Getenv("CODEX_HOME"); h != "" {
		return filepath.Join(h, "hooks.json"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("hook install: finding the home dir for ~/.codex: %v", err)
	}
	return filepath.Join(home, ".codex", "hooks.json"), nil
}

// installCodexHooks merges (or removes) our hooks in Codex's hooks.json
// (path, or codexHooksPath when ""). Codex runs a user's hook only once
// it is trusted, so it then says how.
func installCodexHooks(path string, project bool, exe string, install bool, now time.Time, stdout io.Writer) error {
	if path == "" {
		var err error
		if path, err = codexHooksPath(project); err != nil {
			return err
		}
	}
	want := map[string]map[string]any{
		// Codex waits for a synchronous hook; the timeout outlasts the
		// hook's own wait so that Codex never kills it first.
		hookbridge.EventPermissionRequest: {"type": "command", "command": exe + " hook permission" + codexHookFlag, "timeout": int((defaultHookWait + 30*time.Second).Seconds())},
	}
	for _, ev := range codexEventHooks {
		// Synchronous: each costs Codex one short request to the Pi (at
		// most the 2 s connect timeout when it is unreachable), and it
		// always exits 0, so it never stops Codex.
		want[ev] = map[string]any{"type": "command", "command": exe + " hook event" + codexHookFlag, "timeout": 10}
	}
	want[hookbridge.EventStop]["timeout"] = int(stopHookTimeout.Seconds())
	events := append([]string{hookbridge.EventPermissionRequest}, codexEventHooks...)
	if err := mergeHooks(path, want, events, install, now, stdout); err != nil || !install {
		return err
	}
	fmt.Fprintf(stdout, "Codex runs these hooks only once you trust them: start codex, type /hooks and trust the claude-pi hooks. "+
		"Codex asks (and so the Pi shows) only under an approval policy that asks, e.g. approval_policy = \"on-request\" in %s.\n",
		filepath.Join(filepath.Dir(path), "config.toml"))
	return nil
}

// readHookInputFrom reads a hook's stdin as the CLI that ran it wrote it.
func readHookInputFrom(cli string, stdin io.Reader) (hookbridge.HookInput, error) {
	if cli != agentCodex {
		return readHookInput(stdin)
	}
	b, err := io.ReadAll(io.LimitReader(stdin, hookbridge.MaxHookInput+1))
	if err != nil {
		return hookbridge.HookInput{}, fmt.Errorf("reading the hook input: %v", err)
	}
	return hookbridge.DecodeCodexHookInput(b)
}

// wireCLI is the cli field the Pi gets for a hook's --cli.
func wireCLI(cli string) string {
	if cli == agentCodex {
		return hookbridge.CLICodex
	}
	return ""
}

// checkHookCLI checks a hook's --cli.
func checkHookCLI(cli string) error {
	if cli != agentClaude && cli != agentCodex {
		return fmt.Errorf("--cli %q: want claude or codex", cli)
	}
	return nil
}
