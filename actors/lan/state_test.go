package lan

import (
	"errors"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

func TestStatePromptsAndEvents(t *testing.T) {
	now := time.Unix(1000, 0)
	s := newState([]Client{{Name: "laptop", Fingerprint: "fp1"}})
	req := func(id, agent string) hookbridge.PermissionRequest {
		return hookbridge.PermissionRequest{ID: id, Session: "s1", Project: "engine", Tool: "Bash", Agent: agent}
	}
	if _, err := s.permission("stranger", req("r0", ""), now); !errors.Is(err, errUnpaired) {
		t.Fatalf("stranger: %v", err)
	}
	if len(s.sessions) != 0 {
		t.Fatal("a stranger made a session")
	}
	if _, err := s.permission("fp1", req("r1", ""), now); err != nil {
		t.Fatal(err)
	}
	ch, err := s.permission("fp1", req("r2", "sub"), now)
	if err != nil || len(ch.dropped) != 0 {
		t.Fatalf("subagent prompt: %v, dropped %v", err, ch.dropped)
	}
	if _, err := s.permission("fp1", req("r2", "sub"), now); !errors.Is(err, errDup) {
		t.Fatalf("duplicate: %v", err)
	}
	if ps := s.prompts("s1"); len(ps) != 2 || ps[0].ID != "r1" || ps[1].Source != "cli:s1" {
		t.Fatalf("prompts %+v", ps)
	}
	// The main agent asking again means its first dialog was answered.
	ch, _ = s.permission("fp1", req("r3", ""), now)
	if len(ch.dropped) != 1 || ch.dropped[0] != (key{"s1", "r1"}) {
		t.Fatalf("superseded: %v", ch.dropped)
	}
	// PostToolUse of the subagent clears only the subagent's prompt.
	ch, _ = s.event("fp1", hookbridge.Event{Session: "s1", Event: hookbridge.EventPostToolUse, Agent: "sub"}, now)
	if len(ch.dropped) != 1 || ch.dropped[0].id != "r2" || len(s.prompts("s1")) != 1 {
		t.Fatalf("PostToolUse: %v, left %d", ch.dropped, len(s.prompts("s1")))
	}
	if v := s.view(); v.Pending != 1 || v.Sessions[0].State != "waiting" {
		t.Fatalf("view %+v", v)
	}
	// Notification changes nothing; Stop clears and idles.
	if ch, _ := s.event("fp1", hookbridge.Event{Session: "s1", Event: hookbridge.EventNotification, Activity: "needs you"}, now); len(ch.dropped) != 0 {
		t.Fatal("Notification dropped a prompt")
	}
	s.event("fp1", hookbridge.Event{Session: "s1", Event: hookbridge.EventStop}, now)
	if v := s.view(); v.Pending != 0 || v.Sessions[0].State != "idle" || v.Sessions[0].Activity != "needs you" {
		t.Fatalf("after Stop %+v", v.Sessions)
	}
	// Another client cannot touch s1.
	s.clients = append(s.clients, Client{Name: "other", Fingerprint: "fp2"})
	if _, err := s.event("fp2", hookbridge.Event{Session: "s1", Event: hookbridge.EventStop}, now); err == nil {
		t.Fatal("another client's event accepted")
	}
	s.event("fp1", hookbridge.Event{Session: "s1", Event: hookbridge.EventSessionEnd}, now)
	if len(s.sessions) != 0 {
		t.Fatal("SessionEnd kept the session")
	}
}

func TestStateLimitsAndRevoke(t *testing.T) {
	now := time.Unix(1000, 0)
	s := newState([]Client{{Name: "laptop", Fingerprint: "fp1"}})
	for i := range maxPendingPerClient {
		r := hookbridge.PermissionRequest{ID: "r", Session: string(rune('a' + i)), Tool: "Bash"}
		if _, err := s.permission("fp1", r, now); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.permission("fp1", hookbridge.PermissionRequest{ID: "x", Session: "z", Tool: "Bash"}, now); !errors.Is(err, errBusy) {
		t.Fatalf("over the limit: %v", err)
	}
	ch, err := s.revoke("laptop")
	if err != nil || len(ch.dropped) != maxPendingPerClient || len(s.sessions) != 0 || len(s.clients) != 0 {
		t.Fatalf("revoke: %v, dropped %d", err, len(ch.dropped))
	}
	if _, err := s.revoke("laptop"); err == nil {
		t.Fatal("revoked twice")
	}
}

func TestStateReload(t *testing.T) {
	now := time.Unix(1000, 0)
	laptop, desk := Client{Name: "laptop", Fingerprint: "fp1"}, Client{Name: "desk", Fingerprint: "fp2"}
	s := newState([]Client{laptop, desk})
	s.permission("fp1", hookbridge.PermissionRequest{ID: "r1", Session: "s1", Tool: "Bash"}, now)
	s.permission("fp2", hookbridge.PermissionRequest{ID: "r2", Session: "s2", Tool: "Bash"}, now)
	// The file lost laptop and gained a hand-added client.
	added := Client{Name: "new", Fingerprint: "fp3"}
	ch, gone := s.reload([]Client{desk, added})
	if len(gone) != 1 || gone[0] != "laptop" {
		t.Fatalf("gone %v", gone)
	}
	if len(ch.dropped) != 1 || ch.dropped[0] != (key{"s1", "r1"}) || len(ch.sessions) != 1 || ch.sessions[0] != "s1" {
		t.Fatalf("changes %+v", ch)
	}
	if _, ok := s.client("fp1"); ok {
		t.Fatal("laptop still paired")
	}
	if _, ok := s.client("fp3"); !ok {
		t.Fatal("the added client is not paired")
	}
	if _, err := s.permission("fp1", hookbridge.PermissionRequest{ID: "r3", Session: "s1", Tool: "Bash"}, now); !errors.Is(err, errUnpaired) {
		t.Fatalf("revoked client's request: %v", err)
	}
	if v := s.view(); v.Pending != 1 || len(v.Sessions) != 1 || v.Sessions[0].ID != "s2" {
		t.Fatalf("desk's prompt lost: %+v", v)
	}
	// The same list again changes nothing.
	if ch, gone := s.reload([]Client{desk, added}); len(gone)+len(ch.dropped)+len(ch.sessions) != 0 {
		t.Fatalf("idempotent reload changed %v %+v", gone, ch)
	}
}

func TestLimiter(t *testing.T) {
	l := newLimiter(1, 3)
	now := time.Unix(0, 0)
	got := 0
	for range 10 {
		if l.allow("h", now) {
			got++
		}
	}
	if got != 3 || !l.allow("other", now) || !l.allow("h", now.Add(time.Second)) {
		t.Fatalf("burst %d", got)
	}
}

// TestStatePostToolUseClearsOnlyItsCall: the PostToolUse of call N may
// reach the Pi after the PermissionRequest of call N+1 of the same
// session; it must clear only a prompt of its own call.
func TestStatePostToolUseClearsOnlyItsCall(t *testing.T) {
	now := time.Unix(1000, 0)
	s := newState([]Client{{Name: "laptop", Fingerprint: "fp1"}})
	callA := hookbridge.CallKey("Bash", []byte(`{"command":"touch A"}`))
	callB := hookbridge.CallKey("Bash", []byte(`{"command":"touch B"}`))
	post := func(call, agent string) changes {
		ch, err := s.event("fp1", hookbridge.Event{Session: "s1", Event: hookbridge.EventPostToolUse, Agent: agent, Call: call}, now)
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
	s.permission("fp1", hookbridge.PermissionRequest{ID: "rB", Session: "s1", Tool: "Bash", Call: callB}, now)
	if ch := post(callA, ""); len(ch.dropped) != 0 || s.view().Pending != 1 {
		t.Fatalf("the PostToolUse of touch A dropped %v", ch.dropped)
	}
	// The same call from a subagent is another call.
	if ch := post(callB, "sub"); len(ch.dropped) != 0 {
		t.Fatalf("a subagent's PostToolUse dropped %v", ch.dropped)
	}
	if v := s.view(); v.Sessions[0].State != "waiting" {
		t.Fatalf("state %q with a prompt pending", v.Sessions[0].State)
	}
	// Its own PostToolUse: answered in the terminal, so it goes.
	if ch := post(callB, ""); len(ch.dropped) != 1 || ch.dropped[0] != (key{"s1", "rB"}) {
		t.Fatalf("the PostToolUse of touch B dropped %v", ch.dropped)
	}
	// The turn's end clears every call.
	for _, ev := range []string{hookbridge.EventUserPromptSubmit, hookbridge.EventStop, hookbridge.EventSessionEnd} {
		s.permission("fp1", hookbridge.PermissionRequest{ID: "r1", Session: "s1", Tool: "Bash", Call: callA}, now)
		s.permission("fp1", hookbridge.PermissionRequest{ID: "r2", Session: "s1", Tool: "Bash", Agent: "sub", Call: callB}, now)
		ch, _ := s.event("fp1", hookbridge.Event{Session: "s1", Event: ev}, now)
		if len(ch.dropped) != 2 || s.view().Pending != 0 {
			t.Fatalf("%s dropped %v", ev, ch.dropped)
		}
	}
}

// TestStateTurnEndKeepsLaterSpawnedPrompts: an async UserPromptSubmit or
// SessionStart that reaches the Pi after the PermissionRequest its turn
// made (seen with the real CLI under load: the prompt was answered "moved
// on" and the call refused) ends only the prompts whose hooks were spawned
// before it.
func TestStateTurnEndKeepsLaterSpawnedPrompts(t *testing.T) {
	now := time.Unix(1000, 0)
	for _, tc := range []struct {
		event                string
		prompt, eventStarted int64
		dropped              bool
	}{
		{hookbridge.EventUserPromptSubmit, 200, 100, false}, // the race: the turn's own prompt
		{hookbridge.EventSessionStart, 200, 100, false},
		{hookbridge.EventStop, 200, 200, false},            // a tie is kept
		{hookbridge.EventUserPromptSubmit, 100, 200, true}, // a stale prompt of the turn before
		{hookbridge.EventStop, 100, 200, true},
		{hookbridge.EventSessionStart, 100, 200, true},
		{hookbridge.EventSessionEnd, 200, 100, true},     // the session is over
		{hookbridge.EventUserPromptSubmit, 0, 100, true}, // no stamps: arrival order, as before
		{hookbridge.EventUserPromptSubmit, 200, 0, true},
	} {
		s := newState([]Client{{Name: "laptop", Fingerprint: "fp1"}})
		if _, err := s.permission("fp1", hookbridge.PermissionRequest{ID: "r1", Session: "s1", Tool: "Bash", Started: tc.prompt}, now); err != nil {
			t.Fatal(err)
		}
		ch, err := s.event("fp1", hookbridge.Event{Session: "s1", Event: tc.event, Started: tc.eventStarted}, now)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(ch.dropped) == 1; got != tc.dropped {
			t.Errorf("%s spawned at %d, prompt at %d: dropped %v, want %v", tc.event, tc.eventStarted, tc.prompt, ch.dropped, tc.dropped)
		}
		if v := s.view(); !tc.dropped && (v.Pending != 1 || v.Sessions[0].State != "waiting") {
			t.Errorf("%s kept the prompt but the view says %+v", tc.event, v)
		}
	}
}

// TestStatePromptKeepsWarnings: a request's warnings and truncated flag
// reach the prompt the screens draw.
func TestStatePromptKeepsWarnings(t *testing.T) {
	s := newState([]Client{{Name: "laptop", Fingerprint: "fp1"}})
	r := hookbridge.PermissionRequest{ID: "r1", Session: "s1", Tool: "Bash", Hint: "npm test", Detail: `{"timeout":1}`,
		Warnings: hookbridge.WarnNoSandbox + "\n" + hookbridge.WarnBackground, Truncated: true}
	if _, err := s.permission("fp1", r, time.Unix(1000, 0)); err != nil {
		t.Fatal(err)
	}
	ps := s.prompts("s1")
	if len(ps) != 1 || ps[0].Warnings != r.Warnings || !ps[0].Truncated || ps[0].Detail != r.Detail || ps[0].Hint != r.Hint {
		t.Fatalf("prompts %+v", ps)
	}
}

// A Codex session's prompts and home line name Codex, and a later event
// that does not say which CLI sent it (an older hook) keeps the name.
func TestStateCodexSessionIsNamedCodex(t *testing.T) {
	now := time.Unix(1000, 0)
	s := newState([]Client{{Name: "laptop", Fingerprint: "fp1"}})
	if _, err := s.event("fp1", hookbridge.Event{Session: "cx", Event: hookbridge.EventUserPromptSubmit, Project: "engine", CLI: hookbridge.CLICodex, Activity: "make a file"}, now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.permission("fp1", hookbridge.PermissionRequest{ID: "r1", Session: "cx", Project: "engine", Tool: "Bash", CLI: hookbridge.CLICodex}, now); err != nil {
		t.Fatal(err)
	}
	if ps := s.prompts("cx"); len(ps) != 1 || ps[0].Label != "Codex engine · cx" {
		t.Fatalf("prompts %+v", ps)
	}
	s.event("fp1", hookbridge.Event{Session: "cx", Event: hookbridge.EventPostToolUse, Call: "another call"}, now)
	if v := s.view(); v.Sessions[0].CLIName() != "Codex" || v.Sessions[0].State != "waiting" {
		t.Fatalf("view %+v", v.Sessions)
	}
	if _, err := s.permission("fp1", hookbridge.PermissionRequest{ID: "r2", Session: "cc", Project: "engine", Tool: "Bash"}, now); err != nil {
		t.Fatal(err)
	}
	if ps := s.prompts("cc"); ps[0].Label != "CLI engine · cc" {
		t.Fatalf("Claude Code prompt labelled %q", ps[0].Label)
	}
}
