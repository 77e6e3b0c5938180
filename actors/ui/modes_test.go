package ui

import (
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/actors/ui/screens"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// The home screen names every terminal session not in the default mode,
// warns first of those whose prompts will not come, and shows "Claude is
// waiting for you" with the session that has waited longest.
func TestHomeShowsModesAndWaiting(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := &state{lan: &lan.State{Sessions: []lan.Session{
		{ID: "a", Project: "engine", State: "idle", Mode: hookbridge.ModePlan, WaitingSince: t0.Add(time.Minute), WaitingFor: "idle_prompt"},
		{ID: "b", Project: "docs", State: "running", Mode: hookbridge.ModeAcceptEdits},
		{ID: "c", Project: "scratch", State: "running", Mode: hookbridge.ModeBypassPermissions},
		{ID: "d", Project: "api", State: "idle", Mode: hookbridge.ModeDefault, WaitingSince: t0, WaitingFor: "permission_prompt"},
		{ID: "e", Project: "old", State: "running"},
		{ID: "f", Project: "quiet", State: "running", Mode: hookbridge.ModeDontAsk},
	}}}
	v := homeView(s, screens.Idle, 0)
	if v.Notice != WaitingNotice || v.NoticeWho != "api" {
		t.Errorf("notice %q · %q, want %q · api (the longest waiting)", v.Notice, v.NoticeWho, WaitingNotice)
	}
	want := []screens.SessionBadge{
		{Project: "scratch", Badge: "bypass", NoPrompts: true},
		{Project: "quiet", Badge: "don't ask", NoPrompts: true},
		{Project: "engine", Badge: "plan"},
		{Project: "docs", Badge: "accept edits"},
	}
	if len(v.Badges) != len(want) {
		t.Fatalf("badges %+v, want %+v", v.Badges, want)
	}
	for i := range want {
		if v.Badges[i] != want[i] {
			t.Errorf("badge %d = %+v, want %+v", i, v.Badges[i], want[i])
		}
	}

	// Nobody waiting, everyone in the default mode: nothing extra.
	s.lan.Sessions = []lan.Session{{ID: "a", Project: "engine", State: "running", Mode: hookbridge.ModeDefault}}
	if v := homeView(s, screens.Idle, 0); v.Notice != "" || len(v.Badges) != 0 {
		t.Errorf("quiet default session: notice %q, badges %+v", v.Notice, v.Badges)
	}
}
