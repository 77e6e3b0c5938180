package clientcli

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var updatePlugin = flag.Bool("update", false, "rewrite the plugin's hooks/hooks.json")

// pluginDir is the Claude Code plugin the repository's marketplace
// publishes (.claude-plugin/marketplace.json names it).
const pluginDir = "../../plugin"

// pluginHooks is the plugin's hooks.json: hook install's hooks, run as
// the installed claude-pi with --plugin.
func pluginHooks() map[string]any {
	hooks := map[string]any{}
	for ev, h := range wantHooks("claude-pi") {
		h["command"] = h["command"].(string) + " --plugin"
		g := map[string]any{"hooks": []any{h}}
		if m := hookMatcher(ev); m != "" {
			g["matcher"] = m
		}
		hooks[ev] = []any{g}
	}
	return map[string]any{
		"description": "Claude_Pi: permission prompts and session progress on the paired Pi",
		"hooks":       hooks,
	}
}

// TestPluginHooksAreHookInstalls: the plugin installs what hook install
// does, timeouts included (go test -run TestPluginHooks -update rewrites
// hooks.json after a change to wantHooks).
func TestPluginHooksAreHookInstalls(t *testing.T) {
	path := filepath.Join(pluginDir, "hooks", "hooks.json")
	want, _ := json.MarshalIndent(pluginHooks(), "", "  ")
	if *updatePlugin {
		if err := os.WriteFile(path, append(want, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	json.Unmarshal(want, &w)
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s is not hook install's hooks with --plugin; run go test ./internal/clientcli -run TestPluginHooks -update\ngot  %s\nwant %s", path, got, want)
	}
}

// TestPluginManifests: the marketplace lists the plugin under the name
// PluginID says, and the plugin's MCP server is the installed claude-pi.
func TestPluginManifests(t *testing.T) {
	var market struct {
		Name    string
		Plugins []struct{ Name, Source string }
	}
	readJSON(t, "../../.claude-plugin/marketplace.json", &market)
	if len(market.Plugins) != 1 || market.Plugins[0].Name+"@"+market.Name != PluginID {
		t.Fatalf("marketplace.json: %+v, want the one plugin %s", market, PluginID)
	}
	if filepath.Clean(filepath.Join("../..", market.Plugins[0].Source)) != filepath.Clean(pluginDir) {
		t.Errorf("the marketplace's source %q is not %s", market.Plugins[0].Source, pluginDir)
	}
	var manifest struct{ Name string }
	readJSON(t, filepath.Join(pluginDir, ".claude-plugin", "plugin.json"), &manifest)
	if manifest.Name != PluginName {
		t.Errorf("plugin.json name %q", manifest.Name)
	}
	var mcp struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		} `json:"mcpServers"`
	}
	readJSON(t, filepath.Join(pluginDir, ".mcp.json"), &mcp)
	if s := mcp.MCPServers["claude-pi"]; s.Command != "claude-pi" || strings.Join(s.Args, " ") != "mcp" {
		t.Errorf(".mcp.json: %+v, want claude-pi mcp", mcp)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestHookInstallRefusesWhileThePluginIsEnabled and its converse: the
// hooks never run twice.
func TestHookInstallRefusesWhileThePluginIsEnabled(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte(`{"enabledPlugins":{"`+PluginID+`":true}}`), 0o644)
	err := hookInstall([]string{"--settings", path, "--command", "/opt/claude-pi"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "claude plugin uninstall "+PluginID) {
		t.Fatalf("hook install with the plugin enabled: %v", err)
	}
	if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("hook permission")) {
		t.Fatalf("hook install wrote its hooks beside the plugin's:\n%s", b)
	}
	os.WriteFile(path, []byte(`{"enabledPlugins":{"`+PluginID+`":false}}`), 0o644)
	if err := hookInstall([]string{"--settings", path, "--command", "/opt/claude-pi"}, io.Discard, io.Discard); err != nil {
		t.Fatalf("hook install with the plugin disabled: %v", err)
	}
}

func TestPluginHooksStepAsideForHookInstalls(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Chdir(t.TempDir())
	if settingsHooksInstalled() {
		t.Fatal("hooks found in empty settings")
	}
	user := filepath.Join(home, ".claude", "settings.json")
	if err := hookInstall([]string{"--settings", user, "--command", "/opt/claude-pi"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !settingsHooksInstalled() {
		t.Fatal("the plugin's hooks do not see hook install's")
	}
	// The plugin's permission hook then gives no decision and sends
	// nothing, even with a Pi "paired" (it would fail to reach it, and say so).
	var out, errOut bytes.Buffer
	HookPermissionCommand(t.Context(), []string{"--plugin", "--config", t.TempDir()}, strings.NewReader(`{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{}}`), &out, &errOut)
	if out.Len() != 0 || errOut.Len() != 0 {
		t.Fatalf("the plugin's hook acted beside hook install's: out %q err %q", out.String(), errOut.String())
	}
	if err := hookInstall([]string{"--settings", user, "--uninstall"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if settingsHooksInstalled() {
		t.Fatal("hooks still seen after hook install --uninstall")
	}
}
