package cli

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// The event hook carries the session's permission_mode and a
// Notification's notification_type to the Pi: the session shows its mode
// and waits from the first notification that means Claude waits, until
// the session moves on.
func TestHookEventModeAndWaiting(t *testing.T) {
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	p := startPi(t)
	dir := pairCLI(t, p, "laptop")
	event := func(json string) {
		t.Helper()
		if err := run(context.Background(), []string{"hook", "event", "--config", dir}, strings.NewReader(json), io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	const head = `{"session_id":"5e55-10n","cwd":"/home/ada/src/engine",`
	event(head + `"hook_event_name":"Notification","permission_mode":"bypassPermissions","message":"Claude is waiting for your input","notification_type":"idle_prompt"}`)
	se := p.state(t).Sessions[0]
	if se.Mode != hookbridge.ModeBypassPermissions || se.WaitingSince.IsZero() || se.WaitingFor != hookbridge.NotifyIdlePrompt {
		t.Fatalf("after idle_prompt in bypassPermissions: %+v", se)
	}
	event(head + `"hook_event_name":"UserPromptSubmit","permission_mode":"plan","prompt":"carry on"}`)
	se = p.state(t).Sessions[0]
	if se.Mode != hookbridge.ModePlan || !se.WaitingSince.IsZero() {
		t.Fatalf("after UserPromptSubmit in plan: %+v", se)
	}
}

// In every session the desktop app hosts, the permission and event hooks
// step aside: the prompt reaches the Pi once, in the desktop's BLE
// heartbeat, and the session is not listed twice.
func TestHookStepsAsideInDesktopHostedSessions(t *testing.T) {
	p := startPi(t)
	dir := pairCLI(t, p, "laptop")
	for _, ep := range []string{"claude-desktop", "claude-desktop-3p", "local-agent"} {
		t.Run(ep, func(t *testing.T) {
			t.Setenv(hookbridge.EnvEntrypoint, ep)
			if got := startHook(dir, nil, hookPermissionJSON).Wait(t); got != "" {
				t.Fatalf("permission hook printed %q", got)
			}
			if err := run(context.Background(), []string{"hook", "event", "--config", dir}, strings.NewReader(hookPostToolUseJSON), io.Discard, io.Discard); err != nil {
				t.Fatal(err)
			}
			if st := p.state(t); st.Pending != 0 || len(st.Sessions) != 0 || len(p.pending(t)) != 0 {
				t.Fatalf("a %s session reached the Pi through the hooks: %d pending, sessions %+v", ep, st.Pending, st.Sessions)
			}
		})
	}
}
