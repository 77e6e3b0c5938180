package clientcli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
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
	if strings.Count(string(b), `"async": true`) != len(eventHookNames)-1 {
		t.Fatalf("want every event hook but Stop async:\n%s", b)
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

// TestHookInstallRefusesGoRun: `go run . hook install` would write a path
// that is deleted when go run exits.
func TestHookInstallRefusesGoRun(t *testing.T) {
	for path, want := range map[string]bool{
		"/tmp/go-build2837461/b001/exe/claude-pi":                              true,
		`C:\Users\ada\AppData\Local\Temp\go-build91823\b001\exe\claude-pi.exe`: true,
		"/home/ada/.cache/gotmp/go-build1/b001/exe/claude-pi":                  true,
		"/home/ada/go/bin/claude-pi":                                           false,
		"/usr/local/bin/claude-pi":                                             false,
		"/home/ada/src/exe/claude-pi":                                          false,
		"/tmp/go-build2837461/b001/claude-pi.test":                             false,
	} {
		if got := isGoRunBuild(path); got != want {
			t.Errorf("isGoRunBuild(%q) = %v, want %v", path, got, want)
		}
	}
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	var out, errOut bytes.Buffer
	err := hookInstall([]string{"--settings", settings, "--command", "/tmp/go-build2837461/b001/exe/claude-pi"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "go install") || !strings.Contains(err.Error(), "go run") {
		t.Fatalf("hook install from go run: %v", err)
	}
	if _, err := os.Stat(settings); !os.IsNotExist(err) {
		t.Fatalf("settings written after the refusal: %v", err)
	}
	// Removing the hooks needs no lasting binary.
	if err := hookInstall([]string{"--settings", settings, "--command", "/tmp/go-build2837461/b001/exe/claude-pi", "--uninstall"}, &out, &errOut); err != nil {
		t.Fatalf("uninstall from go run: %v", err)
	}
}

func TestHookInstallOffersTheMCPServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	var out bytes.Buffer
	if err := hookInstall([]string{"--settings", path, "--command", "/opt/claude-pi"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "claude mcp add -s user claude-pi -- /opt/claude-pi mcp") {
		t.Fatalf("install output has no claude mcp add line:\n%s", out.String())
	}
	out.Reset()
	if err := hookInstall([]string{"--settings", path, "--command", "/opt/claude-pi", "--uninstall"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "mcp add") {
		t.Fatalf("uninstall offers the MCP server:\n%s", out.String())
	}
}

func TestStopHookTimeoutCoversTheWait(t *testing.T) {
	if stopHookTimeout <= hookbridge.MaxFollowUpWindow+hookbridge.FollowUpHeard+hookConnectTimeout {
		t.Errorf("the installed Stop hook timeout %v would kill a hook waiting for a follow-up", stopHookTimeout)
	}
}
