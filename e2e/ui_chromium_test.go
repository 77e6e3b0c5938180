package e2e

// A headless Chromium loads the sim page of an in-process appliance while
// the demo desktop (internal/appliance/appliancetest/fakedesktop) holds a prompt; the page's own
// script clicks A (?autopress=A: pointer down and up on the button, the
// same handlers a user's click runs), and the permission line must reach
// the desktop over the sim NUS link. The page runs in a 390 px frame
// (?phone=390, a phone's width; headless Chromium's window is at least
// 500 px) and must fit it.
//
// It needs Debian's chromium (apt-get install chromium) and skips without
// /usr/bin/chromium unless CI=true, where a missing browser fails.

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest/fakedesktop"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
)

const chromiumPath = "/usr/bin/chromium"

func TestSimPageApprovesInChromium(t *testing.T) {
	e2e(t)
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI needs Debian's chromium at %s: %v", chromiumPath, err)
		}
		t.Skipf("no %s (apt-get install chromium)", chromiumPath)
	}
	a := startAppliance(t, t.TempDir())
	d := a.Dial(t, &fakedesktop.Options{Owner: "Felix", StatusEvery: 500 * time.Millisecond, Debounce: 20 * time.Millisecond})
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
		"--virtual-time-budget=5000", "--dump-dom", a.WebURL+"/?autopress=A&phone=390")
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
	// The page fits the phone's 390 px: nothing wider than the window,
	// and the screen shrinks to fit but stays square.
	m := regexp.MustCompile(`page (\d+) window (\d+) screen (\d+)x(\d+)`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the page did not measure its layout; its DOM:\n%s", dom)
	}
	page, win, sw, sh := atoi(m[1]), atoi(m[2]), atoi(m[3]), atoi(m[4])
	t.Logf("in a 390 px frame: %s", m[0])
	if win != 390 || page > win || sw > win || sw < 200 || sw != sh {
		t.Errorf("on a 390 px window: page %d px wide, window %d, screen %dx%d; want the page within the window and a square screen of 200..390 px", page, win, sw, sh)
	}
	p := oneDecision(t, d, 300*time.Millisecond)
	if want := pbuddy.EncodePermission(id, pbuddy.Once); string(p.Line)+"\n" != string(want) {
		t.Fatalf("permission line\n%s\nwant\n%s", p.Line, want)
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }
