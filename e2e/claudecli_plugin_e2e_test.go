package e2e

// The Claude Code plugin (issue 35 item 2) under the real CLI: the
// repository added as a marketplace from its local path, the pi-buddy
// plugin installed with `claude plugin install`, running the computer's
// claude-pi (cmd/claude-pi) from PATH as an installed one would be. A
// terminal prompt then reaches the Pi, `claude mcp list` shows the
// plugin's server connected, hook install refuses to add its hooks beside
// the plugin's, and once the plugin is uninstalled no prompt reaches the
// Pi and no claude-pi hook is left in the settings.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/internal/clientcli"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

func TestClaudeCodePlugin(t *testing.T) {
	e2e(t)
	bin := claudeBinary(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// The computer's claude-pi, alone on PATH under its installed name.
	binDir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(binDir, "claude-pi"), "./cmd/claude-pi")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/claude-pi: %v\n%s", err, out)
	}
	core := startCoreSim(t)
	a := startApplianceWith(t, func(c *Config) {
		c.LAN.Listen = "127.0.0.1:0"
		c.Dock.Port, c.TTS.Engine = core.bridge.HostPath(), "off"
	})
	config := a.pairByButton(t, "laptop")
	a.awaitDock(t, "the dock's handshake")
	r := &claudeRig{bin: bin, home: t.TempDir(), api: newFakeAPI(t), config: config, a: a, work: t.TempDir()}
	path := "PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH")
	claude := func(t *testing.T, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = r.work
		cmd.Env = claudeEnv(r.home, r.api.URL(), config, path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	settings := func() string {
		b, _ := os.ReadFile(filepath.Join(r.home, ".claude", "settings.json"))
		return string(b)
	}

	claude(t, "plugin", "validate", root)
	claude(t, "plugin", "marketplace", "add", root)
	claude(t, "plugin", "install", clientcli.PluginID)
	if !strings.Contains(settings(), `"`+clientcli.PluginID+`": true`) {
		t.Fatalf("settings.json after plugin install:\n%s", settings())
	}

	t.Run("a terminal prompt reaches the Pi", func(t *testing.T) {
		// Not "plugin-…": the fake API's tool_use ids carry the scenario's
		// name, and Claude Code refuses ids that start "toolu_plugin_" as
		// its own.
		c := r.start(t, "via-pi-buddy", "create A", plan{turns: [][]toolCall{{bash("touch A")}}, final: "Done."}, path)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("claude -p output:\n%s\nAPI requests: %v\nprompts: %+v\nresults: %+v", c.out.String(), r.api.Requests(), r.api.Prompts("via-pi-buddy"), r.api.Results("via-pi-buddy"))
			}
		})
		pv := r.shown(t, c)
		if pv.Tool != "Bash" || pv.Hint != "touch A" {
			t.Fatalf("prompt on the Pi: %+v", pv)
		}
		r.decide(t, pv, "A")
		out := c.wait(t)
		if !exists(c.file("A")) {
			t.Fatalf("approved on the Pi, but A was not created; output:\n%s", out)
		}
	})

	t.Run("claude mcp list shows the plugin's server connected", func(t *testing.T) {
		out := claude(t, "mcp", "list")
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "claude-pi") && strings.Contains(l, "Connected") {
				return
			}
		}
		t.Fatalf("claude mcp list:\n%s", out)
	})

	t.Run("hook install refuses beside the plugin", func(t *testing.T) {
		cmd := exec.Command(filepath.Join(binDir, "claude-pi"), "hook", "install", "--user")
		cmd.Env = []string{"HOME=" + r.home, path}
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "claude plugin uninstall "+clientcli.PluginID) {
			t.Fatalf("hook install with the plugin enabled: %v\n%s", err, out)
		}
		if strings.Contains(settings(), "hook permission") {
			t.Fatalf("hook install wrote hooks beside the plugin's:\n%s", settings())
		}
	})

	t.Run("uninstalled: no hook is left", func(t *testing.T) {
		claude(t, "plugin", "uninstall", clientcli.PluginID)
		if s := settings(); strings.Contains(s, "claude-pi hook") || strings.Contains(s, `"`+clientcli.PluginID+`": true`) {
			t.Fatalf("settings.json after plugin uninstall:\n%s", s)
		}
		c := r.start(t, "pi-buddy-gone", "create B", plan{turns: [][]toolCall{{bash("touch B")}}, final: "Understood."}, path)
		c.wait(t)
		if exists(c.file("B")) {
			t.Fatal("B was created with no decision")
		}
		// No prompt came to the Pi: the run ended with the screen empty.
		supervisortest.Within(t, 5*time.Second, "an empty approval screen", func() bool { return len(r.a.UIView(t).Prompts) == 0 })
		if strings.Contains(hookLines(c.debug), "hook permission --plugin") {
			t.Fatalf("the plugin's permission hook still ran after uninstall:\n%s", hookLines(c.debug))
		}
		if out := claude(t, "mcp", "list"); strings.Contains(out, "claude-pi") {
			t.Fatalf("claude mcp list after uninstall:\n%s", out)
		}
	})
}
