package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestEditSettingsIdempotentWithBackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	orig := `{"model":"opus","hooks":{"PostToolUse":[{"matcher":"Write","hooks":[{"type":"command","command":"prettier"}]}]}}`
	os.WriteFile(path, []byte(orig), 0o644)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var out bytes.Buffer
	if err := editSettings(path, "/usr/bin/claude-pi", true, now, &out); err != nil {
		t.Fatal(err)
	}
	bak, err := os.ReadFile(path + ".claude-pi-20260102-030405.bak")
	if err != nil || string(bak) != orig {
		t.Fatalf("backup: %q, %v", bak, err)
	}
	b, _ := os.ReadFile(path)
	for _, want := range []string{`"model": "opus"`, `"prettier"`, `"/usr/bin/claude-pi hook permission"`, `"async": true`, `"SessionEnd"`, `"Notification"`} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("settings lack %s:\n%s", want, b)
		}
	}
	if strings.Count(string(b), "hook event") != len(eventHookNames) {
		t.Fatalf("want one event hook per event:\n%s", b)
	}
	out.Reset()
	if err := editSettings(path, "/usr/bin/claude-pi", true, now.Add(time.Hour), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "nothing to change") {
		t.Fatalf("second install changed things: %s", out.String())
	}
	if b2, _ := os.ReadFile(path); !bytes.Equal(b, b2) {
		t.Fatal("second install rewrote the file")
	}
	if err := editSettings(path, "/usr/bin/claude-pi", false, now.Add(2*time.Hour), &out); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if strings.Contains(string(b), "claude-pi") || !strings.Contains(string(b), "prettier") {
		t.Fatalf("uninstall left:\n%s", b)
	}
	os.WriteFile(path, []byte("{"), 0o644)
	if err := editSettings(path, "x", true, now, &out); err == nil {
		t.Fatal("broken settings.json overwritten")
	}
}
