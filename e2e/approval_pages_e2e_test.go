package e2e

// End to end for "what you see is what you approve" (issue 14): a real
// `claude-pi hook permission` sends a 4 KB command whose last line is
// rm -rf ~; the Pi's approval screen pages all of it (X turns pages, the
// last page is reachable, A still decides); a command with a Trojan
// Source override raises the hidden-characters warning.

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// bashHookInput is a PermissionRequest hook input for command.
func bashHookInput(t *testing.T, session, command string) string {
	t.Helper()
	in := map[string]any{"session_id": session, "cwd": "/home/ada/src/engine", "hook_event_name": "PermissionRequest",
		"tool_name": "Bash", "tool_input": map[string]any{"command": command, "description": "release"}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestApprovalPagesE2E(t *testing.T) {
	e2e(t)
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	a := startApplianceWith(t, func(c *Config) { c.LAN.Listen = "127.0.0.1:0" })
	dir := a.pairByButton(t, "laptop")

	t.Run("a 4 KB command pages to its last line; A decides on any page", func(t *testing.T) {
		var b strings.Builder
		for b.Len() < 4000 {
			b.WriteString("cp build/part.tar.gz /srv/releases/ && sha256sum part\n")
		}
		b.WriteString("rm -rf ~")
		h := startHook(dir, nil, bashHookInput(t, "44444444-dddd", b.String()))
		a.onScreen(t, "Bash", "CLI engine")
		v := a.UIView(t)
		if v.ApprovalPages < 10 || v.ApprovalPage != 0 || v.Hidden {
			t.Fatalf("a 4 KB command: page %d of %d, hidden %v; want the first of 10 or more, no warning", v.ApprovalPage, v.ApprovalPages, v.Hidden)
		}
		if d := v.Shown.Detail; !strings.HasSuffix(d, "rm -rf ~\nin /home/ada/src/engine") {
			t.Fatalf("the detail on the Pi ends %q: the last line did not arrive", d[max(0, len(d)-40):])
		}
		pages := v.ApprovalPages
		for want := 1; want < pages; want++ {
			a.Press(t, "X")
			supervisortest.Within(t, 5*time.Second, "the next page", func() bool { return a.UIView(t).ApprovalPage == want })
		}
		a.Press(t, "X") // after the last page: the first again
		supervisortest.Within(t, 5*time.Second, "back to the first page", func() bool { return a.UIView(t).ApprovalPage == 0 })
		a.Press(t, "Y") // back from the first: the last
		supervisortest.Within(t, 5*time.Second, "the last page", func() bool { return a.UIView(t).ApprovalPage == pages-1 })
		if n, v := a.UIStats(t).Decisions, a.UIView(t); n != 0 || len(v.Prompts) != 1 {
			t.Fatalf("paging decided something: %d decisions, %d prompts", n, len(v.Prompts))
		}
		a.Press(t, "A")
		if got, want := h.Wait(t), string(hookbridge.AllowOutput()); got != want {
			t.Fatalf("hook printed %q, want %q", got, want)
		}
		supervisortest.Within(t, 5*time.Second, "home after the last prompt", func() bool { v := a.UIView(t); return len(v.Prompts) == 0 && v.Screen == "home" })
	})

	t.Run("a Trojan Source override raises the warning", func(t *testing.T) {
		h := startHook(dir, nil, bashHookInput(t, "55555555-eeee", "cat access.txt \u202e; rm -rf ~ #\u202c"))
		a.onScreen(t, "Bash", "CLI engine")
		if v := a.UIView(t); !v.Hidden {
			t.Fatal("no hidden-characters warning for a command with U+202E")
		}
		a.Press(t, "B")
		if got := h.Wait(t); !strings.Contains(got, `"deny"`) {
			t.Fatalf("hook printed %q, want a deny", got)
		}
	})

	t.Run("a flag that widens the call and a field no summary shows reach the Pi (issue 23)", func(t *testing.T) {
		in, _ := json.Marshal(map[string]any{"session_id": "66666666-ffff", "cwd": "/home/ada/src/engine", "hook_event_name": "PermissionRequest",
			"tool_name": "Bash", "tool_input": map[string]any{"command": "npm test", "dangerouslyDisableSandbox": true, "timeout": 600000}})
		h := startHook(dir, nil, string(in))
		a.onScreen(t, "Bash", "CLI engine")
		if v := a.UIView(t); v.Shown.Hint != "npm test" || v.Shown.Warnings != hookbridge.WarnNoSandbox ||
			v.Shown.Detail != "{\"timeout\":600000}\nin /home/ada/src/engine" {
			t.Fatalf("on the Pi: %+v", v.Shown)
		}
		a.Press(t, "B")
		if got := h.Wait(t); !strings.Contains(got, `"deny"`) {
			t.Fatalf("hook printed %q, want a deny", got)
		}
	})
}
