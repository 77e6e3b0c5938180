package lan

import (
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// Each session shows the mode its last hook reported, from events and
// from prompts alike; an event without a mode (an older hook) keeps it.
func TestStateSessionMode(t *testing.T) {
	now := time.Unix(1000, 0)
	s := newState([]Client{{Name: "laptop", Fingerprint: "fp1"}})
	mode := func() string { return s.view().Sessions[0].Mode }
	s.event("fp1", hookbridge.Event{Session: "s1", Event: hookbridge.EventSessionStart, Mode: hookbridge.ModeDefault}, now)
	if got := mode(); got != hookbridge.ModeDefault {
		t.Fatalf("mode after SessionStart = %q", got)
	}
	s.event("fp1", hookbridge.Event{Session: "s1", Event: hookbridge.EventUserPromptSubmit, Mode: hookbridge.ModePlan}, now)
	if got := mode(); got != hookbridge.ModePlan {
		t.Fatalf("mode after shift-tab to plan = %q", got)
	}
	s.event("fp1", hookbridge.Event{Session: "s1", Event: hookbridge.EventPostToolUse}, now)
	if got := mode(); got != hookbridge.ModePlan {
		t.Fatalf("an event without a mode changed it to %q", got)
	}
	s.permission("fp1", hookbridge.PermissionRequest{ID: "r1", Session: "s1", Tool: "Bash", Mode: hookbridge.ModeAcceptEdits}, now)
	if got := mode(); got != hookbridge.ModeAcceptEdits {
		t.Fatalf("mode after a prompt in acceptEdits = %q", got)
	}
}

// A waiting episode starts at the first Notification that means Claude
// waits, keeps its start through repeats, and ends with the next event
// of the session; other notification types start none.
func TestStateWaitingEpisode(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := newState([]Client{{Name: "laptop", Fingerprint: "fp1"}})
	notify := func(typ string, at time.Time) {
		t.Helper()
		if _, err := s.event("fp1", hookbridge.Event{Session: "s1", Event: hookbridge.EventNotification, Notification: typ}, at); err != nil {
			t.Fatal(err)
		}
	}
	since := func() (time.Time, string) { se := s.view().Sessions[0]; return se.WaitingSince, se.WaitingFor }

	s.event("fp1", hookbridge.Event{Session: "s1", Event: hookbridge.EventStop}, t0)
	notify("auth_success", t0)
	if at, _ := since(); !at.IsZero() {
		t.Fatal("auth_success started a waiting episode")
	}
	notify(hookbridge.NotifyIdlePrompt, t0.Add(time.Minute))
	notify(hookbridge.NotifyIdlePrompt, t0.Add(2*time.Minute))
	if at, why := since(); !at.Equal(t0.Add(time.Minute)) || why != hookbridge.NotifyIdlePrompt {
		t.Fatalf("waiting since %v for %q, want the first idle_prompt's time", at, why)
	}
	s.event("fp1", hookbridge.Event{Session: "s1", Event: hookbridge.EventUserPromptSubmit}, t0.Add(3*time.Minute))
	if at, _ := since(); !at.IsZero() {
		t.Fatal("UserPromptSubmit did not end the episode")
	}

	// A permission dialog's notification ends when its prompt is
	// decided on the Pi, before any event of the session arrives.
	t1 := t0.Add(4 * time.Minute)
	s.permission("fp1", hookbridge.PermissionRequest{ID: "r1", Session: "s1", Tool: "Bash"}, t1)
	notify(hookbridge.NotifyPermissionPrompt, t1)
	if at, _ := since(); !at.Equal(t1) {
		t.Fatalf("permission_prompt: waiting since %v", at)
	}
	// A subagent's tool call finishing does not answer the main agent's
	// dialog.
	s.event("fp1", hookbridge.Event{Session: "s1", Event: hookbridge.EventPostToolUse, Agent: "sub", Call: "other"}, t1)
	if at, _ := since(); !at.Equal(t1) {
		t.Fatal("a subagent's PostToolUse ended the wait for a pending dialog")
	}
	if _, ok := s.remove(key{"s1", "r1"}); !ok {
		t.Fatal("prompt r1 not there")
	}
	if at, _ := since(); !at.IsZero() {
		t.Fatal("the decided prompt left the session waiting")
	}
}
