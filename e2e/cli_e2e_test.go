package e2e

// End to end for the terminal bridge (issue 9) on the in-process sim
// appliance: serveWith with [lan] listen on 127.0.0.1:0, the real
// `claude-pi pair`, `claude-pi hook permission` and `claude-pi hook event`
// code paths (run(), as the binary runs them), the sim buttons pressed
// through POST /api/press, and the demo desktop on the NUS link. What the
// screen shows is read from the ui service (GetView).

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest/fakedesktop"
	"github.com/claude-pi/claude-pi/internal/cli/clitest"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// cliSession rewrites the session of hookPermissionJSON (or any hook
// input that carries it), so several terminal sessions can ask at once.
func cliSession(in, session string) string {
	return strings.ReplaceAll(in, "9f3c2a10-7d1e-4b8a-bc55-2f6e1d0a9c77", session)
}

// lanState is the "lan" field of /api/state.
// lanAddr is where the appliance's LAN bridge listens; the test fails
// when it does not.
func (a *rig) lanAddr(t testing.TB) string {
	t.Helper()
	addr, _ := a.lanState(t)["listen"].(string)
	if addr == "" {
		t.Fatal("/api/state: the lan is not listening")
	}
	return addr
}

// awaitDock waits until /api/state says the CoreS3 finished its wire and
// event handshakes; what names the moment in the failure.
func (a *rig) awaitDock(t testing.TB, what string) {
	t.Helper()
	supervisortest.Within(t, 15*time.Second, what, func() bool {
		dk, _ := a.APIState(t)["dock"].(map[string]any)
		return dk != nil && dk["ready"] == true && dk["event"] == true
	})
}

func (a *rig) lanState(t testing.TB) map[string]any {
	t.Helper()
	l, _ := a.APIState(t)["lan"].(map[string]any)
	if l == nil {
		t.Fatal("/api/state has no lan field")
	}
	return l
}

// pairByButton pairs a fresh CLI config dir with the appliance's LAN
// bridge the way a user does: `claude-pi pair` prints the code, the Pi's
// screen shows the same (read here from /api/state and checked against
// the screen), and a long press of approve accepts it.
func (a *rig) pairByButton(t testing.TB, name string) string {
	t.Helper()
	addr := a.lanAddr(t)
	dir := t.TempDir()
	var out supervisortest.SyncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), []string{"pair", "--config", dir, "--name", name, addr}, strings.NewReader("y\n"), &out, io.Discard)
	}()
	var code string
	supervisortest.Within(t, 10*time.Second, "the pairing code in /api/state", func() bool {
		p, _ := a.lanState(t)["pairing"].(map[string]any)
		code, _ = p["code"].(string)
		return code != ""
	})
	// The ui sees the lan only when internal/appliance/serve.go names it in ui.Config.LAN.
	// It subscribes, so the code is drawn as soon as the lan has it; the
	// figure is logged, not asserted (a loaded machine varies).
	seen := time.Now()
	supervisortest.Within(t, 5*time.Second, "the pairing code on the screen (is ui.Config.LAN \"lan\" in internal/appliance/serve.go?)", func() bool {
		v := a.UIView(t)
		return v.Screen == "pairing" && v.Pairing == code
	})
	t.Logf("pairing code on screen %v after /api/state showed it", time.Since(seen).Round(time.Millisecond))
	a.Hold(t, "A")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("pair: %v\n%s", err, out.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("pair did not finish after the approve button")
	}
	if !strings.Contains(out.String(), "Code: "+code+"\n") {
		t.Fatalf("the CLI printed another code than the Pi's %s:\n%s", code, out.String())
	}
	clients, _ := a.lanState(t)["clients"].([]any)
	if !slices.ContainsFunc(clients, func(c any) bool { m, _ := c.(map[string]any); return m["name"] == name }) {
		t.Fatalf("clients after pairing: %v", clients)
	}
	return dir
}

// onScreen waits until the approval screen shows a prompt for tool from
// source (a prefix of the source line) and returns when it saw it.
func (a *rig) onScreen(t *testing.T, tool, source string) time.Time {
	t.Helper()
	var at time.Time
	supervisortest.Within(t, 10*time.Second, tool+" from "+source+" on the screen", func() bool {
		v := a.UIView(t)
		at = time.Now()
		return v.Screen == "approval" && v.Tool == tool && strings.HasPrefix(v.Source, source) && !v.Sent
	})
	return at
}

// pressed presses button and returns when the press was sent.
func (a *rig) pressed(t *testing.T, button string) time.Time {
	t.Helper()
	at := time.Now()
	a.Press(t, button)
	return at
}

func TestCLIE2E(t *testing.T) {
	e2e(t)
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	a := startApplianceWith(t, func(c *Config) { c.LAN.Listen = "127.0.0.1:0" })
	dir := a.pairByButton(t, "laptop")
	deny := string(hookbridge.DenyOutput(hookbridge.DenyMessage("Claude_Pi", "")))
	var toScreen, toOutput []time.Duration
	measure := func(h *clitest.Hook, seen, press time.Time) {
		toScreen = append(toScreen, seen.Sub(h.Started))
		toOutput = append(toOutput, h.Ended.Sub(press))
	}

	t.Run("A allows", func(t *testing.T) {
		h := startHook(dir, nil, hookPermissionJSON)
		seen := a.onScreen(t, "Bash", "CLI engine · 9f3c2a10")
		press := a.pressed(t, "A")
		if got, want := h.Wait(t), string(hookbridge.AllowOutput()); got != want {
			t.Fatalf("hook printed %q, want %q", got, want)
		}
		measure(h, seen, press)
		supervisortest.Within(t, 5*time.Second, "the prompt gone from the screen", func() bool { return len(a.UIView(t).Prompts) == 0 })
	})

	t.Run("B denies with the device's message", func(t *testing.T) {
		h := startHook(dir, nil, hookPermissionJSON)
		seen := a.onScreen(t, "Bash", "CLI engine")
		press := a.pressed(t, "B")
		got := h.Wait(t)
		if got != deny {
			t.Fatalf("hook printed %q, want %q", got, deny)
		}
		if strings.Contains(got, "updatedPermissions") {
			t.Fatal("a persistent permission in the output")
		}
		measure(h, seen, press)
		supervisortest.Within(t, 5*time.Second, "the prompt gone from the screen", func() bool { return len(a.UIView(t).Prompts) == 0 })
	})

	t.Run("a BLE prompt and two CLI prompts: three decisions in arrival order", func(t *testing.T) {
		d := a.Dial(t, &fakedesktop.Options{Owner: "Ada", StatusEvery: time.Second, Debounce: 20 * time.Millisecond})
		d.SetPrompt("req_ble", "Write", "docs/README.md")
		a.awaitPrompt(t, "req_ble")
		h1 := startHook(dir, nil, cliSession(hookPermissionJSON, "11111111-aaaa"))
		supervisortest.Within(t, 10*time.Second, "two prompts", func() bool { return a.UIView(t).Of == 2 })
		sub := strings.Replace(cliSession(hookPermissionJSON, "22222222-bbbb"), `"tool_name"`, `"agent_id":"agent-7","agent_type":"Explore","tool_name"`, 1)
		h2 := startHook(dir, nil, sub)
		supervisortest.Within(t, 10*time.Second, "three prompts", func() bool { return a.UIView(t).Of == 3 })

		steps := []struct {
			tool, source, sub, button string
		}{
			{"Write", "desktop", "", "A"},
			{"Bash", "CLI engine · 11111111", "", "B"},
			{"Bash", "CLI engine · 22222222", "subagent Explore", "A"},
		}
		for i, s := range steps {
			a.onScreen(t, s.tool, s.source)
			// Answered prompts leave the queue as their sources drop them,
			// so only the first step is sure to see all three.
			if v := a.UIView(t); v.Subagent != s.sub || (i == 0 && (v.Index != 1 || v.Of != 3)) {
				t.Fatalf("step %d: %d of %d, subagent %q; want subagent %q", i, v.Index, v.Of, v.Subagent, s.sub)
			}
			a.Press(t, s.button)
		}
		if p := oneDecision(t, d, 300*time.Millisecond); p.ID != "req_ble" || p.Decision != pbuddy.Once {
			t.Fatalf("desktop got %s, want once for req_ble", p.Line)
		}
		if got := h1.Wait(t); got != deny {
			t.Fatalf("first CLI hook printed %q, want the deny", got)
		}
		if got := h2.Wait(t); got != string(hookbridge.AllowOutput()) {
			t.Fatalf("second CLI hook printed %q, want the allow", got)
		}
		// The desktop drops its prompt at its next heartbeat; nothing
		// else is left, and no decision is repeated anywhere.
		d.ClearPrompt()
		supervisortest.Within(t, 5*time.Second, "every prompt gone", func() bool { return len(a.UIView(t).Prompts) == 0 })
		noDecision(t, d, 300*time.Millisecond)
		if n := a.UIStats(t).Decisions; n < 3 {
			t.Fatalf("%d decisions from the buttons", n)
		}
	})

	t.Run("PostToolUse for the session clears the prompt; the hook gives no decision", func(t *testing.T) {
		h := startHook(dir, nil, hookPermissionJSON)
		a.onScreen(t, "Bash", "CLI engine · 9f3c2a10")
		var errOut bytes.Buffer
		if err := run(context.Background(), []string{"hook", "event", "--config", dir}, strings.NewReader(hookPostToolUseJSON), io.Discard, &errOut); err != nil {
			t.Fatalf("hook event: %v\n%s", err, errOut.String())
		}
		supervisortest.Within(t, 5*time.Second, "the prompt cleared on the screen", func() bool {
			v := a.UIView(t)
			return len(v.Prompts) == 0 && v.Screen != "approval"
		})
		if got := h.Wait(t); got != "" {
			t.Fatalf("hook printed %q after the session moved on", got)
		}
		// A press now decides nothing.
		before := a.UIStats(t)
		a.Press(t, "A")
		supervisortest.Within(t, 5*time.Second, "the press handled", func() bool { return a.UIStats(t).Presses == before.Presses+1 })
		if a.UIStats(t).Decisions != before.Decisions {
			t.Fatal("a press after the clear made a decision")
		}
	})

	t.Run("latency", func(t *testing.T) {
		for i := range 10 {
			h := startHook(dir, nil, hookPermissionJSON)
			seen := a.onScreen(t, "Bash", "CLI engine")
			button := "A"
			if i%2 == 1 {
				button = "B"
			}
			press := a.pressed(t, button)
			if h.Wait(t) == "" {
				t.Fatal("no decision")
			}
			measure(h, seen, press)
			supervisortest.Within(t, 5*time.Second, "the prompt gone", func() bool { return len(a.UIView(t).Prompts) == 0 })
		}
	})
	if len(toScreen) > 0 {
		slices.Sort(toScreen)
		slices.Sort(toOutput)
		// Polling GetView every 2 ms adds up to that much to the first figure.
		t.Logf("hook start → prompt on the screen (GetView): n=%d p50 %v max %v (a fresh process-equivalent: key load, TLS handshake, lan, approvals, ui)",
			len(toScreen), toScreen[len(toScreen)/2], toScreen[len(toScreen)-1])
		t.Logf("POST /api/press → hook output: n=%d p50 %v max %v (ui, approvals, lan, long-poll answer, JSON out)",
			len(toOutput), toOutput[len(toOutput)/2], toOutput[len(toOutput)-1])
	}
}
