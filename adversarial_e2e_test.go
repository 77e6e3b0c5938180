package main

// Issue 19's hostile-input suite on the in-process sim appliance: each
// case an attacker found, as a regression test, with bounded counts and
// time. The surfaces that already held have their tests beside their
// code; this file holds the cases that cross services.

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/boards/sim/desktop"
	"github.com/claude-pi/claude-pi/protocols/buddy"
)

// TestHostilePairingCannotTakeTheApproveButton: with a Bash prompt on the
// screen, a stranger on the LAN asks to pair. A answers the prompt (the
// desktop gets its permission line) and pairs nobody; once the prompt is
// gone the request shows, a short A still does nothing, and B refuses it.
func TestHostilePairingCannotTakeTheApproveButton(t *testing.T) {
	a := startApplianceWith(t, func(c *Config) { c.LAN.Listen = "127.0.0.1:0" })
	addr, _ := a.lanState(t)["listen"].(string)
	d := a.dial(t, &desktop.Options{Owner: "Ada", StatusEvery: time.Second, Debounce: 20 * time.Millisecond})
	d.SetPrompt("req_bash", "Bash", "rm -rf build")
	a.awaitPrompt(t, "req_bash")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out syncBuffer
	pairDone := make(chan error, 1)
	go func() {
		pairDone <- run(ctx, []string{"pair", "--config", t.TempDir(), "--name", "mallory", addr}, strings.NewReader("y\n"), &out, io.Discard)
	}()
	poll(t, 10*time.Second, "the stranger's pairing request at the lan", func() bool {
		p, _ := a.lanState(t)["pairing"].(map[string]any)
		return p != nil
	})
	// The ui polls the lan: wait until it knows of the request too.
	poll(t, 5*time.Second, "the ui aware of the pairing request", func() bool { return a.uiView(t).Pairing != "" })
	if v := a.uiView(t); v.Screen != "approval" || v.Tool != "Bash" {
		t.Fatalf("with a prompt pending, a pairing request made the screen %q (%q), want the Bash prompt", v.Screen, v.Tool)
	}
	a.press(t, "A")
	if p := oneDecision(t, d, 300*time.Millisecond); p.ID != "req_bash" || p.Decision != buddy.Once {
		t.Fatalf("A sent %s, want once for req_bash", p.Line)
	}
	if clients, _ := a.lanState(t)["clients"].([]any); len(clients) != 0 {
		t.Fatalf("the stranger was paired: %v", clients)
	}

	d.ClearPrompt()
	poll(t, 10*time.Second, "the pairing screen once no prompt is pending", func() bool { return a.uiView(t).Screen == "pairing" })
	presses := a.uiView(t).Presses
	a.press(t, "A")
	poll(t, 5*time.Second, "the short A handled", func() bool { return a.uiView(t).Presses > presses })
	if v := a.uiView(t); v.PairingAccepted || v.Screen != "pairing" {
		t.Fatalf("a short A on the pairing screen: accepted %v, screen %q", v.PairingAccepted, v.Screen)
	}
	a.press(t, "B")
	select {
	case err := <-pairDone:
		if err == nil || !strings.Contains(err.Error(), "refused") {
			t.Fatalf("pair after B: %v, want refused\n%s", err, out.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("pair did not end after B")
	}
	if clients, _ := a.lanState(t)["clients"].([]any); len(clients) != 0 {
		t.Fatalf("the stranger was paired: %v", clients)
	}
}
