package clientcli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHookInstallAsksQuestionsThroughPreToolUse: AskUserQuestion never
// reaches PermissionRequest, so install adds a PreToolUse hook matching
// it alone (a hook on every tool's PreToolUse would send each call to
// the Pi before its permission is even known).
func TestHookInstallAsksQuestionsThroughPreToolUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := editSettings(path, "/usr/bin/claude-pi", true, time.Now(), io.Discard); err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct{ Command string }
		}
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	pre := s.Hooks["PreToolUse"]
	if len(pre) != 1 || pre[0].Matcher != "AskUserQuestion" || len(pre[0].Hooks) != 1 || pre[0].Hooks[0].Command != "/usr/bin/claude-pi hook permission" {
		t.Fatalf("PreToolUse hooks: %+v\n%s", pre, b)
	}
	if err := editSettings(path, "/usr/bin/claude-pi", false, time.Now(), io.Discard); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "PreToolUse") {
		t.Fatalf("uninstall left:\n%s", b)
	}
}
