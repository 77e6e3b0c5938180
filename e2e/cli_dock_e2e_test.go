package e2e

// A terminal session's prompt on the CoreS3: the CLI hook's request is
// mirrored as its own approval.request, answered from the CoreS3, and
// withdrawn there when the session moves on (issue: "a PostToolUse for the
// same session → the prompt cleared on the Pi and on the CoreS3").

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/dock/docktest"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

func TestCLIPromptOnCoreS3(t *testing.T) {
	e2e(t)
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	core := docktest.New(t, wire.FirmwareCaps)
	a := startApplianceWith(t, func(c *Config) {
		c.LAN.Listen = "127.0.0.1:0"
		c.Dock.Port, c.TTS.Engine = core.Path(), "off"
	})
	a.awaitDock(t, "the dock's handshake")
	dir := a.pairByButton(t, "laptop")

	// newRequest waits for an approval.request it has not seen before.
	seen := map[string]bool{}
	newRequest := func(what string) appevent.ApprovalRequest {
		t.Helper()
		var req appevent.ApprovalRequest
		supervisortest.Within(t, 10*time.Second, what, func() bool {
			for _, r := range docktest.Of[appevent.ApprovalRequest](core) {
				if !seen[r.RequestID] {
					req = r
					return true
				}
			}
			return false
		})
		seen[req.RequestID] = true
		return req
	}

	// Approved on the CoreS3: the hook prints the allow decision.
	h := startHook(dir, nil, hookPermissionJSON)
	req := newRequest("the CLI prompt on the CoreS3")
	if req.Title != "Bash" || req.Kind != appevent.KindCommand {
		t.Fatalf("approval.request = %+v, want a Bash command", req)
	}
	core.Send(appevent.NewApprovalResponse(req.RequestID, appevent.Approve))
	if got, want := h.Wait(t), string(hookbridge.AllowOutput()); got != want {
		t.Fatalf("hook printed %q after the CoreS3 approved, want %q", got, want)
	}
	supervisortest.Within(t, 5*time.Second, "approval.resolved for it", func() bool { return resolvedOn(core, req.RequestID) })

	// The session moves on (PostToolUse): the prompt leaves the CoreS3 and
	// the hook gives no decision.
	h = startHook(dir, nil, hookPermissionJSON)
	req = newRequest("the second CLI prompt on the CoreS3")
	var errOut bytes.Buffer
	if err := run(context.Background(), []string{"hook", "event", "--config", dir}, strings.NewReader(hookPostToolUseJSON), io.Discard, &errOut); err != nil {
		t.Fatalf("hook event: %v\n%s", err, errOut.String())
	}
	supervisortest.Within(t, 5*time.Second, "approval.resolved on the CoreS3", func() bool { return resolvedOn(core, req.RequestID) })
	if got := h.Wait(t); got != "" {
		t.Fatalf("hook printed %q after its session moved on", got)
	}
	if v := core.Violations(); len(v) > 0 {
		t.Errorf("the CoreS3 saw protocol violations: %v", v)
	}
}

func resolvedOn(core *docktest.Core, requestID string) bool {
	for _, r := range docktest.Of[appevent.ApprovalResolved](core) {
		if r.RequestID == requestID {
			return true
		}
	}
	return false
}

// TestCLIStopReplySpokenOnCoreS3: a terminal session's Stop carries
// Claude's reply (last_assistant_message); the CoreS3 (cores3-sim) says it
// as it says the desktop's assistant turns, one caption per sentence.
func TestCLIStopReplySpokenOnCoreS3(t *testing.T) {
	e2e(t)
	if _, err := exec.LookPath("espeak-ng"); err != nil && os.Getenv("CI") != "true" {
		t.Skip("espeak-ng not installed (apt-get install espeak-ng)")
	}
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	core := startCoreSim(t)
	a := startApplianceWith(t, func(c *Config) {
		c.LAN.Listen = "127.0.0.1:0"
		c.Dock.Port, c.TTS.Engine = core.bridge.HostPath(), "espeak-ng"
	})
	a.awaitDock(t, "the dock's handshake")
	dir := a.pairByButton(t, "laptop")

	from := core.mark()
	stop := `{"session_id":"9f3c2a10-7d1e-4b8a-bc55-2f6e1d0a9c77","cwd":"/home/ada/src/engine","hook_event_name":"Stop","stop_hook_active":false,` +
		`"last_assistant_message":"The **build** is green. All 42 tests pass, and nothing else changed.\n\nWant me to push it?"}`
	var errOut bytes.Buffer
	if err := run(context.Background(), []string{"hook", "event", "--config", dir}, strings.NewReader(stop), io.Discard, &errOut); err != nil || errOut.Len() > 0 {
		t.Fatalf("hook event: %v %s", err, errOut.String())
	}
	i, _ := core.await(20*time.Second, from, `caption "The build is green."`, func(l uiLine) bool {
		return l.is("ui", "caption") && l.is("text", "The build is green.")
	})
	core.await(20*time.Second, i, `caption "All 42 tests pass, and nothing else changed."`, func(l uiLine) bool {
		return l.is("ui", "caption") && l.is("text", "All 42 tests pass, and nothing else changed.")
	})
	core.await(20*time.Second, from, "audio played", func(l uiLine) bool { return l.is("audio", "played") })
	// Only the first two sentences are said, as for the desktop.
	for _, l := range core.since(from) {
		if l.is("ui", "caption") && strings.Contains(l.str("text"), "push") {
			t.Errorf("a third sentence was said: %s", l.Raw)
		}
	}
}
