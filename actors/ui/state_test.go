package ui

import (
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/buddy/stats"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/drivers/audio"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
)

var t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

func prompt(id string) approvals.Prompt {
	return approvals.Prompt{Source: "desktop", ID: id, Tool: "Bash", Hint: "ls", Arrived: t0}
}

// step is one event or press, and what must come of it.
type step struct {
	at     time.Duration // since t0
	msg    any           // an event, or a Role for a press
	decide string        // "" no decision, else "once <id>" / "deny <id>"
	screen Screen
	chime  bool // a prompt chime was asked for
	// unseen: no frame follows this step (the actor's redraw is still
	// queued); held: how long a press's button was down.
	unseen bool
	held   time.Duration
}

func TestState(t *testing.T) {
	tests := []struct {
		name     string
		pageKeys bool
		steps    []step
	}{
		{"press with no prompt sends nothing", true, []step{
			{msg: RoleApprove, screen: ScreenHome},
			{msg: RoleDeny, screen: ScreenHome},
		}},
		{"approve decides the oldest prompt once", true, []step{
			{msg: approvals.PromptAppeared{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{msg: approvals.PromptAppeared{Prompt: prompt("p2")}, screen: ScreenApproval, chime: true},
			{msg: RoleApprove, decide: "once p1", screen: ScreenApproval},
			{msg: RoleDeny, decide: "deny p2", screen: ScreenApproval},
			{msg: RoleApprove, screen: ScreenApproval}, // both sent: nothing left
			{msg: approvals.PromptResolved{Prompt: prompt("p1"), How: approvals.ApprovedHere}, screen: ScreenApproval},
			{msg: approvals.PromptResolved{Prompt: prompt("p2"), How: approvals.DeniedHere}, screen: ScreenHome},
		}},
		{"rearmed prompt gets its buttons back", true, []step{
			{msg: approvals.PromptAppeared{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{msg: RoleApprove, decide: "once p1", screen: ScreenApproval},
			{msg: approvals.PromptDecided{Prompt: prompt("p1"), Decision: approvals.AllowOnce, By: By}, screen: ScreenApproval},
			{msg: RoleApprove, screen: ScreenApproval},
			{msg: approvals.PromptRearmed{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{msg: RoleDeny, decide: "deny p1", screen: ScreenApproval},
		}},
		{"a reconnecting prompt: buttons do nothing until restored", true, []step{
			{msg: approvals.PromptAppeared{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{at: time.Second, msg: approvals.PromptReconnecting{Prompt: prompt("p1"), Until: t0.Add(16 * time.Second)}, screen: ScreenApproval},
			{at: 2 * time.Second, msg: RoleApprove, screen: ScreenApproval},
			{at: 3 * time.Second, msg: RoleDeny, screen: ScreenApproval},
			{at: 10 * time.Second, msg: approvals.PromptRestored{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{at: 11 * time.Second, msg: RoleApprove, decide: "once p1", screen: ScreenApproval},
		}},
		{"a reconnecting prompt gives way to an answerable one, then goes", true, []step{
			{msg: approvals.PromptAppeared{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{msg: approvals.PromptReconnecting{Prompt: prompt("p1"), Until: t0.Add(15 * time.Second)}, screen: ScreenApproval},
			{msg: approvals.PromptAppeared{Prompt: approvals.Prompt{Source: "desktop", ID: "p2", Tool: "Edit"}}, screen: ScreenApproval, chime: true},
			{msg: RoleDeny, decide: "deny p2", screen: ScreenApproval},
			{msg: RoleApprove, screen: ScreenApproval}, // p2 sent, p1 reconnecting: nothing to answer
			{at: 15 * time.Second, msg: approvals.PromptResolved{Prompt: prompt("p1"), How: approvals.Gone}, screen: ScreenApproval},
		}},
		{"decided before the drop: sent, reconnecting, re-armed once confirmed", true, []step{
			{msg: approvals.PromptAppeared{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{msg: RoleApprove, decide: "once p1", screen: ScreenApproval},
			{msg: approvals.PromptDecided{Prompt: prompt("p1"), Decision: approvals.AllowOnce, By: By}, screen: ScreenApproval},
			{msg: approvals.PromptReconnecting{Prompt: prompt("p1"), Until: t0.Add(15 * time.Second)}, screen: ScreenApproval},
			{msg: RoleApprove, screen: ScreenApproval},
			{msg: approvals.PromptRestored{Prompt: prompt("p1")}, screen: ScreenApproval},
			{msg: RoleApprove, screen: ScreenApproval}, // still "sent…" until approvals re-arms it
			{msg: approvals.PromptRearmed{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{msg: RoleDeny, decide: "deny p1", screen: ScreenApproval},
		}},
		{"passkey overrides the prompt and hides it from the buttons", true, []step{
			{msg: approvals.PromptAppeared{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{msg: bleactor.LinkState{Passkey: "123456"}, screen: ScreenPasskey},
			{msg: RoleApprove, screen: ScreenPasskey},
			{msg: bleactor.LinkState{Connected: true}, screen: ScreenApproval},
			{msg: RoleApprove, decide: "once p1", screen: ScreenApproval},
		}},
		{"timeout, and the waking press does nothing else", true, []step{
			{at: 29 * time.Second, msg: time.Duration(0), screen: ScreenHome},
			{at: 30 * time.Second, msg: time.Duration(0), screen: ScreenOff},
			{at: 31 * time.Second, msg: RoleNext, screen: ScreenHome},
			{at: 32 * time.Second, msg: RoleNext, screen: ScreenInfo},
		}},
		{"no timeout while a prompt waits; a prompt wakes the screen", true, []step{
			{at: 30 * time.Second, msg: time.Duration(0), screen: ScreenOff},
			{at: 31 * time.Second, msg: approvals.PromptAppeared{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{at: 120 * time.Second, msg: time.Duration(0), screen: ScreenApproval},
			{at: 121 * time.Second, msg: approvals.PromptResolved{Prompt: prompt("p1"), How: approvals.AnsweredElsewhere}, screen: ScreenHome},
			{at: 150 * time.Second, msg: time.Duration(0), screen: ScreenHome}, // 30 s count from the prompt's end
			{at: 151 * time.Second, msg: time.Duration(0), screen: ScreenOff},
		}},
		{"pages with next and back", true, []step{
			{msg: RoleNext, screen: ScreenInfo},
			{msg: RoleNext, screen: ScreenStats},
			{msg: RoleNext, screen: ScreenClock},
			{msg: RoleNext, screen: ScreenHome},
			{msg: RoleBack, screen: ScreenClock},    // the clock is one press from home
			{msg: RoleApprove, screen: ScreenClock}, // approve is not next here
			{msg: RoleBack, screen: ScreenStats},
			{msg: RoleBack, screen: ScreenInfo},
			{msg: RoleBack, screen: ScreenHome},
		}},
		{"next and back on a prompt page it, and nothing else", true, []step{
			{msg: RoleNext, screen: ScreenInfo},
			{msg: approvals.PromptAppeared{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{msg: RoleNext, screen: ScreenApproval},
			{msg: RoleNext, screen: ScreenApproval},
			{msg: RoleBack, screen: ScreenApproval},
			{msg: RoleDeny, decide: "deny p1", screen: ScreenApproval},
			// After the last prompt: home, not the info page opened before.
			{msg: approvals.PromptResolved{Prompt: prompt("p1"), How: approvals.DeniedHere}, screen: ScreenHome},
		}},
		// The buttons act on what the panel shows: the state can be a
		// frame ahead of it while a burst of events is folded.
		{"approve never decides a prompt the panel has not shown", true, []step{
			{msg: approvals.PromptAppeared{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true, unseen: true},
			{msg: RoleApprove, screen: ScreenApproval}, // home was up: nothing, and now p1 is drawn
			{msg: approvals.PromptResolved{Prompt: prompt("p1"), How: approvals.AnsweredElsewhere}, screen: ScreenHome, unseen: true},
			{msg: approvals.PromptAppeared{Prompt: prompt("p2")}, screen: ScreenApproval, chime: true, unseen: true},
			{msg: RoleApprove, screen: ScreenApproval}, // p1 was up, and is gone
			{msg: RoleApprove, decide: "once p2", screen: ScreenApproval},
		}},
		{"without page keys, approve on an undrawn prompt neither decides nor pages", false, []step{
			{msg: approvals.PromptAppeared{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true, unseen: true},
			{msg: RoleApprove, screen: ScreenApproval},
			{msg: RoleDeny, decide: "deny p1", screen: ScreenApproval},
		}},
		{"an older prompt not drawn yet: approve decides the one on the screen", true, []step{
			{msg: approvals.PromptAppeared{Prompt: prompt("p2")}, screen: ScreenApproval, chime: true},
			{msg: approvals.Pending{Prompts: []approvals.PromptView{{Prompt: prompt("p1")}, {Prompt: prompt("p2")}}},
				screen: ScreenApproval, chime: true, unseen: true},
			{msg: RoleApprove, decide: "once p2", screen: ScreenApproval},
			{msg: RoleDeny, decide: "deny p1", screen: ScreenApproval},
		}},
		{"a prompt whose text changed since the frame is not decided", true, []step{
			{msg: approvals.PromptAppeared{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{msg: approvals.Pending{Prompts: []approvals.PromptView{{Prompt: approvals.Prompt{Source: "desktop", ID: "p1", Tool: "Bash", Hint: "rm -rf ~"}}}},
				screen: ScreenApproval, unseen: true},
			{msg: RoleApprove, screen: ScreenApproval},
			{msg: RoleApprove, decide: "once p1", screen: ScreenApproval},
		}},
		{"a press that went down before the prompt was drawn does not decide it", true, []step{
			{at: time.Second, msg: approvals.PromptAppeared{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{at: 1100 * time.Millisecond, msg: RoleApprove, held: 200 * time.Millisecond, screen: ScreenApproval},
			{at: 2 * time.Second, msg: RoleApprove, held: 100 * time.Millisecond, decide: "once p1", screen: ScreenApproval},
		}},
		{"the buttons coming back after sent… count from their own frame", true, []step{
			{msg: approvals.PromptAppeared{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{msg: RoleApprove, decide: "once p1", screen: ScreenApproval},
			{msg: approvals.PromptDecided{Prompt: prompt("p1"), Decision: approvals.AllowOnce, By: By}, screen: ScreenApproval},
			{at: 5 * time.Second, msg: approvals.PromptRearmed{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{at: 5100 * time.Millisecond, msg: RoleDeny, held: 500 * time.Millisecond, screen: ScreenApproval},
			{at: 6 * time.Second, msg: RoleDeny, decide: "deny p1", screen: ScreenApproval},
		}},
		{"without page keys approve pages while no prompt shows", false, []step{
			{msg: RoleApprove, screen: ScreenInfo},
			{msg: approvals.PromptAppeared{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{msg: RoleApprove, decide: "once p1", screen: ScreenApproval},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newState(t0, 30*time.Second, tt.pageKeys)
			for i, st := range tt.steps {
				now := t0.Add(st.at)
				var got string
				var chimed bool
				switch m := st.msg.(type) {
				case Role:
					if d, ok := s.press(m, now.Add(-st.held), now); ok {
						got = d.Decision.String() + " " + d.ID
						if d.By != By || d.Source != "desktop" {
							t.Fatalf("step %d: decision %+v", i, d)
						}
					}
				case time.Duration:
					s.tick(now)
				default:
					for _, f := range s.apply(m, now) {
						if c, ok := f.(chime); ok && c.c == audio.ChimePrompt {
							chimed = true
						}
					}
				}
				if !st.unseen {
					s.settle(now) // the frame after the step
				}
				want := st.screen
				if got != st.decide || s.screen() != want || chimed != st.chime {
					t.Fatalf("step %d (%T %v): decided %q screen %s chime %v, want %q %s %v",
						i, st.msg, st.msg, got, s.screen(), chimed, st.decide, want, st.chime)
				}
			}
		})
	}
}

// TestState_approvalPageFollowsItsPrompt: paging moves only the shown
// prompt's page; the next prompt starts on its first page.
func TestState_approvalPageFollowsItsPrompt(t *testing.T) {
	s := newState(t0, 30*time.Second, true)
	s.apply(approvals.PromptAppeared{Prompt: prompt("p1")}, t0)
	s.apply(approvals.PromptAppeared{Prompt: prompt("p2")}, t0)
	s.settle(t0)
	s.press(RoleNext, t0, t0)
	s.press(RoleNext, t0, t0)
	if s.approvalPage != 2 || s.page != 0 {
		t.Fatalf("after two nexts: approval page %d, info page %d; want 2, 0", s.approvalPage, s.page)
	}
	s.press(RoleApprove, t0, t0) // p2 shows now
	s.settle(t0)
	if s.approvalPage != 0 {
		t.Fatalf("the next prompt opened on page %d", s.approvalPage)
	}
	s.press(RoleBack, t0, t0)
	if s.approvalPage != -1 {
		t.Fatalf("back from the first page: %d, want -1 (the last page)", s.approvalPage)
	}
}

func TestState_refusedBringsButtonsBack(t *testing.T) {
	s := newState(t0, 30*time.Second, true)
	s.apply(approvals.PromptAppeared{Prompt: prompt("p1")}, t0)
	s.settle(t0)
	d, ok := s.press(RoleApprove, t0, t0)
	if !ok {
		t.Fatal("no decision")
	}
	if _, ok := s.press(RoleApprove, t0, t0); ok {
		t.Fatal("second press decided while the first is out")
	}
	s.refused(d)
	s.settle(t0)
	if d2, ok := s.press(RoleDeny, t0, t0); !ok || d2.Decision != approvals.Deny {
		t.Fatalf("after a refusal the press gave %+v %v, want deny", d2, ok)
	}
}

func TestState_persona(t *testing.T) {
	s := newState(t0, 30*time.Second, true)
	if p := s.persona(t0); p != stats.Sleep {
		t.Fatalf("no desktop: %v, want sleep", p)
	}
	s.apply(buddyactor.State{Connected: true, Stats: buddyactor.StatsView{Report: stats.Report{Lvl: 1}}}, t0)
	if p := s.persona(t0); p != stats.Idle {
		t.Fatalf("connected: %v, want idle", p)
	}
	s.apply(buddyactor.State{Connected: true, Stats: buddyactor.StatsView{Report: stats.Report{Lvl: 2}}}, t0)
	if p := s.persona(t0.Add(time.Second)); p != stats.Celebrate {
		t.Fatalf("level-up: %v, want celebrate", p)
	}
	s.apply(approvals.PromptAppeared{Prompt: prompt("p1")}, t0.Add(4*time.Second))
	if p := s.persona(t0.Add(4 * time.Second)); p != stats.Attention {
		t.Fatalf("prompt: %v, want attention", p)
	}
	s.apply(approvals.PromptResolved{Prompt: prompt("p1"), How: approvals.ApprovedHere}, t0.Add(4*time.Second))
	if p := s.persona(t0.Add(5 * time.Second)); p != stats.Heart {
		t.Fatalf("quick approval: %v, want heart", p)
	}
	if p := s.persona(t0.Add(7 * time.Second)); p != stats.Idle {
		t.Fatalf("after the heart: %v, want idle", p)
	}
}

// hold is a long press of a role in TestState_lanPairing's steps, held
// for a second up to the step's time.
type hold Role

func TestState_lanPairing(t *testing.T) {
	pairing := func(code string, accepted bool) lan.State {
		return lan.State{Pairing: &lan.Pairing{Name: "ada-laptop", Code: code, Accepted: accepted}}
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"a pending prompt keeps the buttons; the pairing waits behind it", []step{
			{msg: approvals.PromptAppeared{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{msg: pairing("318054", false), screen: ScreenApproval},
			{at: 2 * time.Second, msg: hold(RoleApprove), screen: ScreenApproval},
			{at: 3 * time.Second, msg: RoleApprove, decide: "once p1", screen: ScreenApproval},
			{at: 4 * time.Second, msg: approvals.PromptResolved{Prompt: prompt("p1"), How: approvals.ApprovedHere}, screen: ScreenPairing},
			// The user's second press meant for the prompt: nothing.
			{at: 4 * time.Second, msg: RoleApprove, screen: ScreenPairing},
			// A hold that began before the screen showed: nothing.
			{at: 4500 * time.Millisecond, msg: hold(RoleApprove), screen: ScreenPairing},
			{at: 6 * time.Second, msg: hold(RoleApprove), decide: "accept 318054", screen: ScreenPairing},
		}},
		{"a prompt arriving takes the screen back from the pairing", []step{
			{msg: pairing("318054", false), screen: ScreenPairing, chime: true},
			{at: time.Second, msg: approvals.PromptAppeared{Prompt: prompt("p1")}, screen: ScreenApproval, chime: true},
			{at: 3 * time.Second, msg: hold(RoleApprove), screen: ScreenApproval},
			{at: 3 * time.Second, msg: RoleApprove, decide: "once p1", screen: ScreenApproval},
		}},
		{"a long approve accepts the code on the screen once", []step{
			{msg: pairing("318054", false), screen: ScreenPairing, chime: true},
			{at: 2 * time.Second, msg: RoleApprove, screen: ScreenPairing},
			{at: 2 * time.Second, msg: hold(RoleApprove), decide: "accept 318054", screen: ScreenPairing},
			{at: 3 * time.Second, msg: hold(RoleApprove), screen: ScreenPairing}, // already sent
			{at: 3 * time.Second, msg: pairing("318054", true), screen: ScreenPairing},
			{at: 5 * time.Second, msg: hold(RoleApprove), screen: ScreenPairing},
			{at: 5 * time.Second, msg: lan.State{}, screen: ScreenHome},
		}},
		{"deny cancels once accepted too (issue 23 item 4)", []step{
			{msg: pairing("318054", false), screen: ScreenPairing, chime: true},
			{at: 2 * time.Second, msg: hold(RoleApprove), decide: "accept 318054", screen: ScreenPairing},
			{at: 3 * time.Second, msg: pairing("318054", true), screen: ScreenPairing},
			{at: 4 * time.Second, msg: RoleDeny, decide: "refuse", screen: ScreenHome},
		}},
		{"deny refuses and hides the code at once", []step{
			{msg: pairing("318054", false), screen: ScreenPairing, chime: true},
			{msg: RoleDeny, decide: "refuse", screen: ScreenHome},
			{msg: pairing("318054", false), screen: ScreenHome}, // the lan not caught up yet
			{msg: pairing("777777", false), screen: ScreenPairing, chime: true},
		}},
		{"a new code is a new request: hold again", []step{
			{msg: pairing("111111", false), screen: ScreenPairing, chime: true},
			{at: 2 * time.Second, msg: hold(RoleApprove), decide: "accept 111111", screen: ScreenPairing},
			{at: 2 * time.Second, msg: pairing("222222", false), screen: ScreenPairing, chime: true},
			{at: 4 * time.Second, msg: hold(RoleApprove), decide: "accept 222222", screen: ScreenPairing},
		}},
		{"the bluetooth passkey wins; the pairing keeps the screen on", []step{
			{msg: pairing("318054", false), screen: ScreenPairing, chime: true},
			{msg: bleactor.LinkState{Passkey: "123456"}, screen: ScreenPasskey},
			{at: 2 * time.Second, msg: hold(RoleApprove), screen: ScreenPasskey},
			{msg: bleactor.LinkState{}, screen: ScreenPairing},
			{at: 10 * time.Minute, msg: time.Duration(0), screen: ScreenPairing},
		}},
		{"a pairing wakes the screen", []step{
			{at: 30 * time.Second, msg: time.Duration(0), screen: ScreenOff},
			{at: 31 * time.Second, msg: pairing("318054", false), screen: ScreenPairing, chime: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newState(t0, 30*time.Second, true)
			s.lanOn = true
			for i, st := range tt.steps {
				now := t0.Add(st.at)
				var got string
				var chimed bool
				press := func(r Role, long bool) {
					if out, ok := s.pairPress(r, long, now.Add(-time.Second), now); ok {
						switch o := out.(type) {
						case lan.AcceptPairing:
							got = "accept " + o.Code
						case lan.RefusePairing:
							got = "refuse"
						}
					} else if long {
						return // the actor counts other long presses as interaction only
					} else if d, ok := s.press(r, now, now); ok {
						got = d.Decision.String() + " " + d.ID
					}
				}
				switch m := st.msg.(type) {
				case Role:
					press(m, false)
				case hold:
					press(Role(m), true)
				case time.Duration:
					s.tick(now)
				default:
					for _, f := range s.apply(m, now) {
						if c, ok := f.(chime); ok && c.c == audio.ChimePrompt {
							chimed = true
						}
					}
				}
				s.settle(now)
				if got != st.decide || s.screen() != st.screen || chimed != st.chime {
					t.Fatalf("step %d (%T %v): sent %q screen %s chime %v, want %q %s %v",
						i, st.msg, st.msg, got, s.screen(), chimed, st.decide, st.screen, st.chime)
				}
			}
		})
	}
}

func TestSourceOf(t *testing.T) {
	tests := []struct {
		p        approvals.Prompt
		src, sub string
	}{
		{approvals.Prompt{Source: "desktop"}, "desktop", ""},
		{approvals.Prompt{Source: "desktop", Label: "desktop"}, "desktop", ""},
		{approvals.Prompt{Source: "cli:9f3c2a10-1111", Label: "CLI engine · 9f3c2a10"}, "CLI engine · 9f3c2a10", ""},
		{approvals.Prompt{Source: "cli:9f3c2a10-1111", Label: "CLI engine · 9f3c2a10 · subagent Explore"}, "CLI engine · 9f3c2a10", "subagent Explore"},
		{approvals.Prompt{Source: "cli:9f3c2a10-1111"}, "CLI · 9f3c2a10", ""},
		{approvals.Prompt{Source: "voice"}, "voice", ""},
	}
	for _, tt := range tests {
		if src, sub := sourceOf(tt.p); src != tt.src || sub != tt.sub {
			t.Errorf("sourceOf(%+v) = %q, %q, want %q, %q", tt.p, src, sub, tt.src, tt.sub)
		}
	}
}

func TestHomeCountsCLISessions(t *testing.T) {
	s := newState(t0, 30*time.Second, true)
	s.apply(buddyactor.State{Connected: true, Snapshot: &pbuddy.Heartbeat{Total: 2, Running: 1, Waiting: 1}}, t0)
	s.apply(lan.State{Sessions: []lan.Session{
		{ID: "a", Project: "engine", State: "running", Activity: "go test ./..."},
		{ID: "b", State: "waiting"}, {ID: "c", State: "idle"},
	}}, t0)
	v := homeView(s, "", 0)
	if v.Total != 5 || v.Running != 2 || v.Waiting != 2 {
		t.Fatalf("home counts %d ►%d ?%d, want 5 ►2 ?2", v.Total, v.Running, v.Waiting)
	}
	// Without the desktop, the terminals keep the character awake and
	// the newest session's activity replaces "waiting for the desktop".
	s = newState(t0, 30*time.Second, true)
	s.apply(lan.State{Sessions: []lan.Session{{ID: "a", Project: "engine", State: "running", Activity: "go test ./..."}}}, t0)
	if v := homeView(s, "", 0); v.Msg != "CLI engine: running go test ./..." || v.Total != 1 {
		t.Fatalf("home without the desktop: %q total %d", v.Msg, v.Total)
	}
	if p := s.persona(t0.Add(time.Minute)); p == stats.Sleep {
		t.Fatal("a running terminal session left the character asleep")
	}
}
