package clientcli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHookInstallCodex(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CODEX_HOME", "")
	path := filepath.Join(home, ".codex", "hooks.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	theirs := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}}`
	os.WriteFile(path, []byte(theirs), 0o644)
	var out bytes.Buffer
	install := func(args ...string) {
		t.Helper()
		out.Reset()
		if err := hookInstall(append([]string{"--command", "/usr/bin/claude-pi"}, args...), &out, io.Discard); err != nil {
			t.Fatalf("hook install %v: %v\n%s", args, err, out.String())
		}
	}
	install("--agent", "codex")
	if _, err := os.Stat(filepath.Join(home, ".claude", "settings.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("--agent codex touched Claude Code's settings: %v", err)
	}
	if !strings.Contains(out.String(), "/hooks") {
		t.Errorf("no word on trusting the hooks in Codex:\n%s", out.String())
	}
	var f struct {
		Hooks map[string][]struct {
			Hooks []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	commands := map[string][]string{}
	for ev, groups := range f.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				commands[ev] = append(commands[ev], h["command"].(string))
				if _, async := h["async"]; async {
					t.Errorf("%s hook is async: Codex waits for none of ours", ev)
				}
			}
		}
	}
	want := map[string][]string{
		"PermissionRequest": {"/usr/bin/claude-pi hook permission --cli codex"},
		"SessionStart":      {"/usr/bin/claude-pi hook event --cli codex"},
		"UserPromptSubmit":  {"/usr/bin/claude-pi hook event --cli codex"},
		"PostToolUse":       {"/usr/bin/claude-pi hook event --cli codex"},
		"Stop":              {"notify-send done", "/usr/bin/claude-pi hook event --cli codex"},
	}
	if len(commands) != len(want) {
		t.Fatalf("events %v, want %v", commands, want)
	}
	for ev, w := range want {
		if strings.Join(commands[ev], "|") != strings.Join(w, "|") {
			t.Errorf("%s: %q, want %q", ev, commands[ev], w)
		}
	}
	install("--agent", "codex")
	if !strings.Contains(out.String(), "nothing to change") {
		t.Errorf("second install changed things:\n%s", out.String())
	}
	install("--agent", "both")
	if s, _ := os.ReadFile(filepath.Join(home, ".claude", "settings.json")); !strings.Contains(string(s), "hook permission") || strings.Contains(string(s), "--cli codex") {
		t.Errorf("--agent both: Claude Code's settings:\n%s", s)
	}
	install("--agent", "codex", "--uninstall")
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "claude-pi") || !strings.Contains(string(b), "notify-send done") {
		t.Errorf("uninstall left:\n%s", b)
	}
	err := run(context.Background(), "test", []string{"hook", "install", "--agent", "gemini"}, nil, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "claude, codex or both") {
		t.Errorf("--agent gemini: %v", err)
	}
}

func TestHookInstallCodexHome(t *testing.T) {
	codexHome := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CODEX_HOME", codexHome)
	if err := run(context.Background(), "test", []string{"hook", "install", "--agent", "codex", "--command", "/usr/bin/claude-pi"}, nil, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(codexHome, "hooks.json")); err != nil || !strings.Contains(string(b), "--cli codex") {
		t.Fatalf("$CODEX_HOME/hooks.json: %v\n%s", err, b)
	}
}
