package clientcli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// PluginID is the Claude Code plugin this repository's marketplace
// publishes (.claude-plugin/marketplace.json): plugin@marketplace, as
// Claude Code keys it in a settings file's enabledPlugins.
const PluginID = "claude-pi@claude-pi"

// userSettingsPath is ~/.claude/settings.json ("" without a home).
func userSettingsPath() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".claude", "settings.json")
}

// pluginEnabled reports whether the settings file at path enables our
// plugin. Any claude-pi plugin from any marketplace counts: its hooks
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
		if name, _, _ := strings.Cut(id, "@"); name == "claude-pi" && on == true {
			return true
		}
	}
	return false
}
