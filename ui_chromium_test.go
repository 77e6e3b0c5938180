package main

// A headless Chromium loads the sim page of an in-process appliance while
// the demo desktop (boards/sim/desktop) holds a prompt; the page's own
// script clicks A (?autopress=A: pointer down and up on the button, the
// same handlers a user's click runs), and the permission line must reach
// the desktop over the sim NUS link.
//
// It needs Debian's chromium (apt-get install chromium) and skips without
// /usr/bin/chromium unless CI=true, where a missing browser fails.

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/boards/sim/desktop"
	"github.com/claude-pi/claude-pi/protocols/buddy"
)

const chromiumPath = "/usr/bin/chromium"

func TestSimPageApprovesInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI needs Debian's chromium at %s: %v", chromiumPath, err)
		}
		t.Skipf("no %s (apt-get install chromium)", chromiumPath)
	}
	a := startAppliance(t, t.TempDir())
	d := a.dial(t, &desktop.Options{Owner: "Felix", StatusEvery: 500 * time.Millisecond, Debounce: 20 * time.Millisecond})
	id := "req_chromium_✓"
	d.SetPrompt(id, "Bash", "rm -rf build/")
	a.awaitPrompt(t, id)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// --dump-dom prints the page once virtual time runs out: the page
	// polls /api/state every 100 ms and clicks on the first poll that
	// shows the prompt; 5 s of virtual time is ample.
	cmd := exec.CommandContext(ctx, chromiumPath, "--headless=new", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--no-first-run", "--user-data-dir="+t.TempDir(),
		"--virtual-time-budget=5000", "--dump-dom", a.webURL+"/?autopress=A")
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("chromium: %v\n%s", err, stderr)
	}
	dom := string(out)
	if !strings.Contains(dom, "autopressed A") || !strings.Contains(dom, "pressed A (short") {
		t.Fatalf("the page did not press A; its DOM:\n%s", dom)
	}
	p := oneDecision(t, d, 300*time.Millisecond)
	if want := buddy.EncodePermission(id, buddy.Once); string(p.Line)+"\n" != string(want) {
		t.Fatalf("permission line\n%s\nwant\n%s", p.Line, want)
	}
}
