package clientcli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/drivers/storage"
	"github.com/claude-pi/claude-pi/internal/mcpserver"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// eventHookNames are the events `claude-pi hook event` follows.
var eventHookNames = []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd", "Notification"}

// hookInstall is `claude-pi hook install [--project|--user] [--uninstall]`.
func hookInstall(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("hook install", "Usage: claude-pi hook install [--user|--project] [--agent claude|codex|both] [--uninstall]", stderr)
	project := fs.Bool("project", false, "install into ./.claude/settings.json (this project)")
	user := fs.Bool("user", false, "install into ~/.claude/settings.json (every project; the default)")
	uninstall := fs.Bool("uninstall", false, "remove the claude-pi hooks instead")
	settings := fs.String("settings", "", "the settings.json `FILE` to edit (overrides --user/--project)")
	exe := fs.String("command", "", "the claude-pi executable the hooks run (default: this one)")
	agent := fs.String("agent", agentClaude, "whose hooks: claude (Claude Code), codex (Codex CLI) or both")
	codexHooks := fs.String("codex-hooks", "", "Codex's hooks.json `FILE` to edit (overrides --user/--project for Codex)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if err := checkAgent(*agent); err != nil {
		return err
	}
	if *project && *user {
		return usagef("hook install: --project or --user, not both")
	}
	path := *settings
	if path == "" {
		base := "."
		if !*project {
			home, err := os.UserHomeDir()
			if err != nil {
				return fmt.Errorf("hook install: finding the home dir: %v", err)
			}
			base = home
		}
		path = filepath.Join(base, ".claude", "settings.json")
	}
	if *exe == "" {
		p, err := os.Executable()
		if err != nil {
			return fmt.Errorf("hook install: finding this executable: %v", err)
		}
		*exe = p
	}
	if !*uninstall && isGoRunBuild(*exe) {
		return fmt.Errorf("hook install: %s is the temporary build of `go run`, deleted when it exits, so the hooks would break at once; nothing changed. "+
			"Install a lasting claude-pi (README: Homebrew, a release binary, the claude-pi-client package, or `go install ./cmd/claude-pi`) and run its `claude-pi hook install` (or pass --command /path/to/claude-pi)", *exe)
	}
	if !*uninstall {
		for _, p := range []string{path, userSettingsPath()} {
			if pluginEnabled(p) {
				return fmt.Errorf("hook install: the pi-buddy plugin for Claude Code is enabled in %s and brings these hooks and the MCP server already; nothing changed, so that no prompt is asked twice. "+
					"Keep the plugin, or remove it first: claude plugin uninstall %s", p, PluginID)
			}
		}
	}
	if *agent != agentClaude {
		if err := installCodexHooks(*codexHooks, *project, shellQuote(*exe), !*uninstall, time.Now(), stdout); err != nil || *agent == agentCodex {
			return err
		}
	}
	if err := editSettings(path, shellQuote(*exe), !*uninstall, time.Now(), stdout); err != nil || *uninstall {
		return err
	}
	fmt.Fprintln(stdout, mcpserver.AddHint(shellQuote(*exe)))
	return nil
}

// isGoRunBuild recognises the executable `go run` builds and deletes:
// <tmp>/go-build<digits>/b001/exe/<name>, with either separator.
func isGoRunBuild(path string) bool {
	parts := strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '\\' })
	if len(parts) < 2 || parts[len(parts)-2] != "exe" {
		return false
	}
	return slices.ContainsFunc(parts[:len(parts)-2], func(p string) bool { return strings.HasPrefix(p, "go-build") })
}

// editSettings merges (or removes) our hooks in the settings file. It
// backs the file up before the first change and writes nothing when there
// is nothing to change, so running it twice is harmless.
func editSettings(path, exe string, install bool, now time.Time, stdout io.Writer) error {
	return mergeHooks(path, wantHooks(exe), append([]string{"PermissionRequest", hookbridge.EventPreToolUse}, eventHookNames...), install, now, stdout)
}

// mergeHooks merges (or removes) the hooks want, one per event, in the
// hooks file at path: Claude Code's settings.json or Codex's hooks.json,
// which share the {"hooks": {Event: [matcher groups]}} shape.
func mergeHooks(path string, want map[string]map[string]any, events []string, install bool, now time.Time, stdout io.Writer) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("hook install: reading %s: %v", path, err)
	}
	root := map[string]any{}
	if len(strings.TrimSpace(string(old))) > 0 {
		if err := json.Unmarshal(old, &root); err != nil {
			return fmt.Errorf("hook install: %s is not JSON (%v); fix it first, nothing changed", path, err)
		}
	}
	hooks, _ := root["hooks"].(map[string]any)
	if hooks == nil {
		if _, present := root["hooks"]; present {
			return fmt.Errorf("hook install: %s: \"hooks\" is not an object; nothing changed", path)
		}
		hooks = map[string]any{}
	}
	var changed []string
	for _, ev := range events {
		already := hasExact(hooks[ev], want[ev])
		groups, _ := hooks[ev].([]any)
		groups, removed := withoutOurs(groups)
		if install {
			if removed == 1 && already {
				continue // already installed, exactly
			}
			g := map[string]any{"hooks": []any{want[ev]}}
			if m := hookMatcher(ev); m != "" {
				g["matcher"] = m
			}
			groups = append(groups, g)
			changed = append(changed, fmt.Sprintf("%s: %s", ev, want[ev]["command"]))
		} else if removed > 0 {
			changed = append(changed, fmt.Sprintf("%s: removed %d claude-pi hook(s)", ev, removed))
		}
		if len(groups) == 0 {
			delete(hooks, ev)
		} else {
			hooks[ev] = groups
		}
	}
	if len(changed) == 0 {
		fmt.Fprintf(stdout, "%s: nothing to change\n", path)
		return nil
	}
	if len(hooks) == 0 {
		delete(root, "hooks")
	} else {
		root["hooks"] = hooks
	}
	out, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("hook install: %v", err)
	}
	if old != nil {
		bak := path + ".claude-pi-" + now.Format("20060102-150405") + ".bak"
		if err := storage.WriteFile(bak, old, 0o600); err != nil {
			return fmt.Errorf("hook install: backing up: %v", err)
		}
		fmt.Fprintf(stdout, "backed up %s to %s\n", path, bak)
	}
	if err := storage.WriteFile(path, append(out, '\n'), 0o644); err != nil {
		return err
	}
	for _, c := range changed {
		fmt.Fprintf(stdout, "%s: %s\n", path, c)
	}
	return nil
}

// hookMatcher is the matcher of ev's group: PreToolUse runs for
// AskUserQuestion only; every other event's hook runs for all.
func hookMatcher(ev string) string {
	if ev == hookbridge.EventPreToolUse {
		return hookbridge.ToolAskUserQuestion
	}
	return ""
}

// wantHooks is each event's hook running exe: what hook install writes,
// and what the plugin's hooks/hooks.json holds (with exe "claude-pi" and
// --plugin, which a test checks).
func wantHooks(exe string) map[string]map[string]any {
	want := map[string]map[string]any{
		"PermissionRequest": {"type": "command", "command": exe + " hook permission", "timeout": int((defaultHookWait + 30*time.Second).Seconds())},
	}
	for _, ev := range eventHookNames {
		want[ev] = map[string]any{"type": "command", "command": exe + " hook event", "async": true, "timeout": 10}
	}
	// Stop carries Claude's reply for the CoreS3 to say. `claude -p`
	// cancels async hooks (SIGTERM) as soon as its turn ends, a few ms
	// after starting Stop's, before the reply can reach the Pi; a
	// synchronous Stop hook is waited for. It costs the end of each turn
	// one short request (at most the 2 s connect timeout when the Pi is
	// unreachable), and it always exits 0 with nothing on stdout, so it
	// never keeps Claude from stopping.
	delete(want[hookbridge.EventStop], "async")
	// With [voice] follow_up the Stop hook may wait for a spoken
	// follow-up (hook_followup.go): its timeout covers that wait.
	want[hookbridge.EventStop]["timeout"] = int(stopHookTimeout.Seconds())
	// AskUserQuestion never reaches PermissionRequest: its answers come
	// from a PreToolUse hook (hook permission answers that event too),
	// matched to that tool alone (hookMatcher).
	want[hookbridge.EventPreToolUse] = maps.Clone(want["PermissionRequest"])
	return want
}

// isOurs recognises a hook this command installed, whatever path the
// executable had then.
func isOurs(h any) bool {
	m, _ := h.(map[string]any)
	cmd, _ := m["command"].(string)
	cmd = strings.TrimSuffix(cmd, codexHookFlag)
	return strings.Contains(cmd, "claude-pi") && (strings.HasSuffix(cmd, " hook permission") || strings.HasSuffix(cmd, " hook event"))
}

// withoutOurs drops our hooks from the matcher groups, and groups left
// empty; it counts what it dropped.
func withoutOurs(groups []any) ([]any, int) {
	var out []any
	n := 0
	for _, g := range groups {
		gm, ok := g.(map[string]any)
		if !ok {
			out = append(out, g)
			continue
		}
		hs, _ := gm["hooks"].([]any)
		kept := slices.DeleteFunc(slices.Clone(hs), isOurs)
		n += len(hs) - len(kept)
		if len(kept) == 0 && len(hs) > 0 {
			continue
		}
		cp := make(map[string]any, len(gm))
		for k, v := range gm {
			cp[k] = v
		}
		cp["hooks"] = kept
		out = append(out, cp)
	}
	return out, n
}

// hasExact reports whether the groups hold a hook equal to want (compared
// as JSON, so numbers decoded as float64 match).
func hasExact(groups any, want map[string]any) bool {
	w, _ := json.Marshal(want)
	gs, _ := groups.([]any)
	for _, g := range gs {
		gm, _ := g.(map[string]any)
		hs, _ := gm["hooks"].([]any)
		for _, h := range hs {
			b, _ := json.Marshal(h)
			if string(b) == string(w) {
				return true
			}
		}
	}
	return false
}

// shellQuote quotes a path for the hook's shell command when it needs it.
func shellQuote(p string) string {
	if !strings.ContainsAny(p, " \t'\"$`\\") {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}
