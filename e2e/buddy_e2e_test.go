package e2e

// End-to-end tests of the Hardware Buddy in sim, in process: the real
// actor tree from serveWith, its sim NUS link and web API, and the demo
// desktop (internal/appliance/appliancetest/fakedesktop) as the Claude desktop app. Run with -race.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest/fakedesktop"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// linkDown waits until the appliance has seen the central go, so the next
// dial is not refused as a second central.
func (a *rig) linkDown(t *testing.T) {
	t.Helper()
	supervisortest.Within(t, 5*time.Second, "the link to drop", func() bool { l := a.UIView(t).Link; return l != nil && !l.Connected })
}

// awaitPrompt waits until the ui can act on prompt id (so a press decides
// it), and returns it as approvals keeps it.
func (a *rig) awaitPrompt(t testing.TB, id string) approvals.PromptView {
	t.Helper()
	var pv approvals.PromptView
	supervisortest.Within(t, 5*time.Second, "prompt on the ui", func() bool {
		v := a.UIView(t)
		front := true // no answerable prompt before it: it is the one the screen shows
		for _, p := range v.Prompts {
			if p.ID == id && !p.Decided && !p.Reconnecting {
				pv = p
				// The buttons act on the frame, which can be one behind
				// the state: wait for the frame that shows it.
				return !front || (v.Screen == ui.ScreenApproval && v.Shown.ID == id && !v.Sent && !v.Reconnecting)
			}
			if !p.Decided && !p.Reconnecting {
				front = false
			}
		}
		return false
	})
	return pv
}

// oneDecision waits for exactly one permission line and makes sure no
// second one follows within quiet.
func oneDecision(t *testing.T, d *fakedesktop.Desktop, quiet time.Duration) fakedesktop.Permission {
	t.Helper()
	var p fakedesktop.Permission
	select {
	case p = <-d.Decisions():
	case <-time.After(5 * time.Second):
		t.Fatal("no permission line within 5 s")
	}
	noDecision(t, d, quiet)
	return p
}

func noDecision(t *testing.T, d *fakedesktop.Desktop, quiet time.Duration) {
	t.Helper()
	select {
	case p := <-d.Decisions():
		t.Fatalf("unexpected permission line %s", p.Line)
	case <-time.After(quiet):
	}
}

// mixedID is 200 characters of mixed Unicode, including the characters a
// careless encoder would re-escape or cut.
func mixedID() string {
	parts := []rune("req_\"quoted\"\\slash/é☃🐸漢字\u2028<&>\t ёж𝄞")
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteRune(parts[i%len(parts)])
	}
	return b.String()
}

func TestBuddyE2EApprovals(t *testing.T) {
	e2e(t)
	a := startAppliance(t, t.TempDir())
	d := a.Dial(t, &fakedesktop.Options{Owner: "Felix", StatusEvery: 200 * time.Millisecond, Debounce: 20 * time.Millisecond})

	t.Run("A approves a 200-character Unicode id byte for byte", func(t *testing.T) {
		id := mixedID()
		if n := len([]rune(id)); n != 200 {
			t.Fatalf("id has %d characters", n)
		}
		d.SetPrompt(id, "Bash", "go test ./...")
		a.awaitPrompt(t, id)
		st := a.APIState(t)
		if p, _ := st["prompt"].(map[string]any); p == nil || p["id"] != id || p["source"] != "desktop" {
			t.Errorf("/api/state prompt = %v, want the desktop prompt", st["prompt"])
		}
		a.Press(t, "A")
		p := oneDecision(t, d, 300*time.Millisecond)
		want := pbuddy.EncodePermission(id, pbuddy.Once)
		if string(p.Line)+"\n" != string(want) || p.ID != id {
			t.Fatalf("permission line\n%s\nwant\n%s", p.Line, want)
		}
	})

	t.Run("B denies the second prompt", func(t *testing.T) {
		d.SetPrompt("req_second", "Write", "docs/README.md")
		a.awaitPrompt(t, "req_second")
		a.Press(t, "B")
		if p := oneDecision(t, d, 300*time.Millisecond); p.ID != "req_second" || p.Decision != pbuddy.Deny {
			t.Fatalf("got %s, want deny for req_second", p.Line)
		}
	})

	t.Run("a press with no prompt sends nothing", func(t *testing.T) {
		supervisortest.Within(t, 5*time.Second, "no prompt pending", func() bool { return len(a.UIView(t).Prompts) == 0 })
		before := a.UIStats(t)
		a.Press(t, "A")
		a.Press(t, "B")
		supervisortest.Within(t, 5*time.Second, "presses handled", func() bool { return a.UIStats(t).Presses == before.Presses+2 })
		if n := a.UIStats(t).Decisions; n != before.Decisions {
			t.Errorf("presses with no prompt made %d decisions", n-before.Decisions)
		}
		noDecision(t, d, 300*time.Millisecond)
	})

	t.Run("turn events between heartbeats never clear the prompt", func(t *testing.T) {
		d.SetPrompt("req_turns", "Edit", "auth/cache.go")
		first := a.awaitPrompt(t, "req_turns")
		for i := range 20 {
			if err := d.SendTurn("assistant", []map[string]string{{"type": "text", "text": fmt.Sprint("step ", i)}}); err != nil {
				t.Fatal(err)
			}
			if err := d.Heartbeat(); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.SendTurn("user", "a plain string"); err != nil {
			t.Fatal(err)
		}
		after := a.awaitPrompt(t, "req_turns")
		if !after.Arrived.Equal(first.Arrived) {
			t.Fatalf("the prompt was re-created (arrived %v, then %v): a turn event cleared it", first.Arrived, after.Arrived)
		}
		a.Press(t, "A")
		if p := oneDecision(t, d, 200*time.Millisecond); p.ID != "req_turns" {
			t.Fatalf("got %s", p.Line)
		}
	})

	t.Run("a 70 KiB line is dropped and the next line works", func(t *testing.T) {
		long := `{"evt":"turn","role":"assistant","content":"` + strings.Repeat("x", 70<<10) + `"}` + "\n"
		if err := d.SendRaw([]byte(long)); err != nil {
			t.Fatal(err)
		}
		d.SetPrompt("req_after_long", "Bash", "ls")
		a.awaitPrompt(t, "req_after_long")
		a.Press(t, "A")
		if p := oneDecision(t, d, 200*time.Millisecond); p.ID != "req_after_long" {
			t.Fatalf("got %s", p.Line)
		}
	})

	t.Run("a button and a CoreS3 tap racing make one decision", func(t *testing.T) {
		sys := a.Tree.System()
		for i := range 10 {
			id := fmt.Sprint("req_race_", i)
			d.SetPrompt(id, "Bash", "make")
			a.awaitPrompt(t, id)
			go sys.Root.Send(supervisor.ServicePID(sys, "approvals"),
				approvals.Decide{Source: "desktop", ID: id, Decision: approvals.Deny, By: "CoreS3"})
			a.Press(t, "A")
			if p := oneDecision(t, d, 300*time.Millisecond); p.ID != id {
				t.Fatalf("got %s, want one decision for %s", p.Line, id)
			}
		}
	})

	if c := d.Counters(); c.StatusOK == 0 || c.StatusFailed != 0 {
		t.Errorf("status polls: %d ok, %d failed strict validation; want all ok", c.StatusOK, c.StatusFailed)
	}
}

// The desktop's link drops with a prompt on the screen and comes back the
// way the real desktop comes back (spec §2.3): owner/time at once, the first
// heartbeat only when its keepalive falls due. Until that heartbeat lists
// the prompt again the screen says "reconnecting…" and A sends nothing, on
// either connection; then A answers it once.
func TestBuddyE2EReconnectingPrompt(t *testing.T) {
	e2e(t)
	a := startAppliance(t, t.TempDir())
	d := a.Dial(t, &fakedesktop.Options{StatusEvery: -1})
	d.SetPrompt("req_lost", "Bash", "rm -rf build")
	first := a.awaitPrompt(t, "req_lost")
	resume := d.Resume()
	d.Close()
	a.linkDown(t)
	supervisortest.Within(t, 5*time.Second, "reconnecting… on the screen", func() bool {
		v := a.UIView(t)
		return v.Screen == ui.ScreenApproval && v.Tool == "Bash" && v.Reconnecting
	})
	if p, _ := a.APIState(t)["prompt"].(map[string]any); p == nil || p["id"] != "req_lost" || p["reconnecting"] != true {
		t.Errorf("/api/state prompt = %v, want req_lost reconnecting", p)
	}
	pressNothing := func(when string) {
		t.Helper()
		before := a.UIStats(t)
		a.Press(t, "A")
		supervisortest.Within(t, 5*time.Second, "press handled", func() bool { return a.UIStats(t).Presses == before.Presses+1 })
		if n, v := a.UIStats(t).Decisions, a.UIView(t); n != before.Decisions || !v.Reconnecting {
			t.Fatalf("%s: A made %d decisions, reconnecting %v; want none, still reconnecting", when, n-before.Decisions, v.Reconnecting)
		}
	}
	pressNothing("link down")

	// The desktop reconnects (the sim link serves the next central). Its
	// keepalive is an hour here, so that the test says when the first
	// heartbeat goes.
	var d2 *fakedesktop.Desktop
	supervisortest.Within(t, 5*time.Second, "reconnect", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var err error
		d2, err = fakedesktop.DialOptions(ctx, a.NUS, &fakedesktop.Options{StatusEvery: -1, Keepalive: time.Hour, Resume: resume})
		return err == nil
	})
	defer d2.Close()
	supervisortest.Within(t, 5*time.Second, "the link up again", func() bool { l := a.UIView(t).Link; return l != nil && l.Connected })
	pressNothing("reconnected, before the first heartbeat")
	noDecision(t, d2, 300*time.Millisecond)

	if err := d2.Heartbeat(); err != nil {
		t.Fatal(err)
	}
	back := a.awaitPrompt(t, "req_lost")
	if !back.Arrived.Equal(first.Arrived) {
		t.Errorf("restored prompt arrived %v, want its first arrival %v", back.Arrived, first.Arrived)
	}
	a.Press(t, "A")
	if p := oneDecision(t, d2, 300*time.Millisecond); p.ID != "req_lost" || p.Decision != pbuddy.Once {
		t.Fatalf("after the confirming heartbeat got %s", p.Line)
	}
	select {
	case p := <-d.Decisions():
		t.Fatalf("the dropped connection got %s", p.Line)
	default:
	}
}

// A heartbeat after the reconnect that no longer lists the prompt (it was
// answered on the desktop meanwhile) resolves it: the screen goes home.
func TestBuddyE2EReconnectPromptAnsweredMeanwhile(t *testing.T) {
	e2e(t)
	a := startAppliance(t, t.TempDir())
	d := a.Dial(t, &fakedesktop.Options{StatusEvery: -1})
	d.SetPrompt("req_elsewhere", "Edit", "main.go")
	a.awaitPrompt(t, "req_elsewhere")
	resume := d.Resume()
	d.Close()
	a.linkDown(t)
	supervisortest.Within(t, 5*time.Second, "reconnecting… on the screen", func() bool { return a.UIView(t).Reconnecting })
	resume.Prompt = nil // answered on the desktop while the link was down
	d2 := a.Dial(t, &fakedesktop.Options{StatusEvery: -1, Keepalive: time.Hour, Resume: resume})
	if err := d2.Heartbeat(); err != nil {
		t.Fatal(err)
	}
	supervisortest.Within(t, 5*time.Second, "the prompt resolved", func() bool { return len(a.UIView(t).Prompts) == 0 })
	noDecision(t, d2, 200*time.Millisecond)
}
