package clientcli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// PluginName is the Claude Code plugin this repository's marketplace
// publishes (.claude-plugin/marketplace.json), and PluginID how Claude
// Code keys it in a settings file's enabledPlugins: plugin@marketplace.
// Not "claude-pi": Claude Code reserves names that start with "claude-"
// for Anthropic's own (claude plugin validate refuses them).
const (
	PluginName = "pi-buddy"
	PluginID   = PluginName + "@pi-buddy"
)

// userSettingsPath is ~/.claude/settings.json ("" without a home).
func userSettingsPath() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".claude", "settings.json")
}

// pluginEnabled reports whether the settings file at path enables our
// plugin. Our plugin from any marketplace counts: its hooks
// would run beside ours all the same. An unreadable file is no.
func pluginEnabled(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var s struct {
		EnabledPlugins map[string]any `json:"enabledPlugins"`
	}
	if json.Unmarshal(b, &s) != nil {
		return false
	}
	for id, on := range s.EnabledPlugins {
		if name, _, _ := strings.Cut(id, "@"); name == PluginName && on == true {
			return true
		}
	}
	return false
}

// settingsHooksInstalled reports whether `claude-pi hook install` put our
// hooks in the user's settings or this project's: then the plugin's
// hooks (run with --plugin) step aside, so that each prompt reaches the
// Pi once. hook install refuses while the plugin is enabled; this covers
// the other order, the plugin added after hook install.
func settingsHooksInstalled() bool {
	for _, p := range []string{userSettingsPath(), filepath.Join(".claude", "settings.json"), filepath.Join(".claude", "settings.local.json")} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var s struct {
			Hooks map[string][]any `json:"hooks"`
		}
		if json.Unmarshal(b, &s) != nil {
			continue
		}
		for _, groups := range s.Hooks {
			if _, n := withoutOurs(groups); n > 0 {
				return true
			}
		}
	}
	return false
}
