package ui

import (
	"fmt"
	"image"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/lan"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/supervisor"
)

// publisher stands in for a service the ui subscribes to (lan, dock):
// like it, it sends its state S to a subscriber at once and again on
// every set, and it records the answers the screen sends it (the messages
// keep says are answers).
type publisher[S any] struct {
	mu      sync.Mutex
	st      S
	sys     *actor.ActorSystem
	sub     *actor.PID
	keep    func(any) bool
	answers []any
}

func (f *publisher[S]) set(st S) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.st = st
	if f.sub != nil {
		f.sys.Root.Send(f.sub, st)
	}
}

func (f *publisher[S]) got() []any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]any(nil), f.answers...)
}

func (f *publisher[S]) Receive(c actor.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if m, ok := c.Message().(supervisor.Subscribe); ok {
		f.sys, f.sub = c.ActorSystem(), m.PID
		c.Send(m.PID, f.st)
		return
	}
	if f.keep(c.Message()) {
		f.answers = append(f.answers, c.Message())
	}
}

// fakeLAN is the lan service's stand-in: pairing answers and the CLI
// sources' decisions.
type fakeLAN struct {
	publisher[lan.State]
	decided []approvals.Decided
}

func newFakeLAN() *fakeLAN {
	f := &fakeLAN{}
	f.keep = func(m any) bool {
		switch m := m.(type) {
		case lan.AcceptPairing, lan.RefusePairing:
			return true
		case approvals.Decided:
			f.decided = append(f.decided, m)
		}
		return false
	}
	return f
}

func newLANRig(t testing.TB) (*rig, *fakeLAN) {
	t.Helper()
	f := newFakeLAN()
	r := newRig(t, func(c *Config) { c.LAN = "lan" },
		supervisor.Service{Name: "lan", Policy: supervisor.DefaultPolicy, New: func(*supervisor.Handle) actor.Actor { return f }})
	return r, f
}

// seen waits until the ui's view satisfies ok. The fake clock stands
// still: what the lan publishes must reach the screen without any timer.
func (r *rig) seen(t testing.TB, what string, ok func(View) bool) View {
	t.Helper()
	var v View
	r.waitFor(t, what, func() bool {
		v = r.view(t)
		return ok(v)
	})
	return v
}

// TestLANPairingThroughButtons is issue 19's first defect: a stranger's
// pairing request arriving while a prompt is up must not take the
// approve button. The pairing waits until no prompt is pending, and then
// only a long press that began on the pairing screen accepts it.
func TestLANPairingThroughButtons(t *testing.T) {
	r, f := newLANRig(t)
	r.prompt("p1", "Bash")
	r.waitFor(t, "the approval screen", func() bool { return r.view(t).Screen == ScreenApproval })
	f.set(lan.State{Addr: "127.0.0.1:7787", Pairing: &lan.Pairing{Name: "mallory", Code: "318054", Since: t0}})
	v := r.seen(t, "the pairing request seen", func(v View) bool { return v.Pairing == "318054" })
	if v.Screen != ScreenApproval || v.Tool != "Bash" {
		t.Fatalf("a pairing request with a prompt pending shows %s (%q), want the prompt", v.Screen, v.Tool)
	}
	r.press(t, "A")
	d := r.decided(t, "A on the prompt, with a pairing request waiting")
	if d.ID != "p1" || d.Decision != approvals.AllowOnce {
		t.Fatalf("A decided %+v, want once p1", d)
	}
	if n := len(f.got()); n != 0 {
		t.Fatalf("A meant for the prompt answered the pairing: %v", f.got())
	}

	// The prompt gone, the pairing screen comes up; the user's next
	// short A (meant for a prompt, or a reflex) does nothing.
	r.send("approvals", approvals.SetPrompts{Source: "desktop", LinkUp: true})
	r.seen(t, "the pairing screen", func(v View) bool { return v.Screen == ScreenPairing })
	fb, _ := r.board.Display.Snapshot()
	if g := near(fb, image.Rect(0, 204, 120, 240), green); g < 1000 {
		t.Fatalf("%d approve-green pixels on the pairing screen, want the legend", g)
	}
	r.press(t, "A")
	if n := len(f.got()); n != 0 {
		t.Fatalf("a short A paired: %v", f.got())
	}
	// A hold that began before the screen showed does nothing either.
	r.pressHold(t, "A", time.Hour)
	if n := len(f.got()); n != 0 {
		t.Fatalf("a hold begun before the pairing screen paired: %v", f.got())
	}
	r.clk.advance(2 * time.Second)
	r.pressHold(t, "A", time.Second)
	r.waitFor(t, "AcceptPairing at the lan", func() bool { return len(f.got()) == 1 })
	if got := f.got()[0]; got != (lan.AcceptPairing{Code: "318054"}) {
		t.Fatalf("lan got %#v, want AcceptPairing 318054", got)
	}
	r.waitFor(t, "the legend gone", func() bool { return r.view(t).PairingAccepted })
	// A second hold before the lan catches up sends nothing more.
	r.clk.advance(2 * time.Second)
	r.pressHold(t, "A", time.Second)
	if n := len(f.got()); n != 1 {
		t.Fatalf("lan got %d answers, want 1", n)
	}
	f.set(lan.State{Addr: "127.0.0.1:7787", Clients: []lan.Client{{Name: "mallory", Paired: t0}}})
	r.seen(t, "the home screen back", func(v View) bool { return v.Screen == ScreenHome && v.Pairing == "" })

	// A second request, refused with B: the screen leaves at once.
	f.set(lan.State{Addr: "127.0.0.1:7787", Pairing: &lan.Pairing{Name: "eve", Code: "000111", Since: t0}})
	r.seen(t, "the second pairing", func(v View) bool { return v.Pairing == "000111" && v.Screen == ScreenPairing })
	r.press(t, "B")
	r.waitFor(t, "RefusePairing at the lan", func() bool { return len(f.got()) == 2 })
	if got := f.got()[1]; got != (lan.RefusePairing{}) {
		t.Fatalf("lan got %#v, want RefusePairing", got)
	}
	if v := r.view(t); v.Screen != ScreenHome || v.Pairing != "" {
		t.Fatalf("after B: %s pairing %q, want the home screen", v.Screen, v.Pairing)
	}
	select {
	case d := <-r.got:
		t.Fatalf("the pairing answers decided %+v", d)
	default:
	}
}

func TestLANPairingWakesTheScreen(t *testing.T) {
	r, f := newLANRig(t)
	r.clk.advance(30 * time.Second)
	r.waitFor(t, "the screen off", func() bool { return r.view(t).Screen == ScreenOff })
	f.set(lan.State{Pairing: &lan.Pairing{Name: "ada-laptop", Code: "318054"}})
	// The code shows at once: no fake time passes between the lan
	// publishing it and the pairing screen, so nothing waits for a poll.
	r.seen(t, "the pairing screen", func(v View) bool { return v.Screen == ScreenPairing && v.Pairing == "318054" })
	fb, _ := r.board.Display.Snapshot()
	if g := near(fb, image.Rect(0, 204, 120, 240), green); g < 1000 {
		t.Fatalf("%d approve-green pixels: the pairing screen was not drawn", g)
	}
	// The pairing keeps the screen on past the timeout.
	r.clk.advance(time.Minute)
	if v := r.view(t); v.Screen != ScreenPairing {
		t.Fatalf("pairing pending, the screen went %s", v.Screen)
	}
}

func TestLANPromptsSourceAndCount(t *testing.T) {
	r, f := newLANRig(t)
	f.set(lan.State{Addr: "127.0.0.1:7787", Clients: []lan.Client{{Name: "ada-laptop", Paired: t0}},
		Sessions: []lan.Session{
			{ID: "9f3c2a10-aaaa", Client: "ada-laptop", Project: "engine", State: "waiting", Pending: 2},
			{ID: "77aa", Client: "ada-laptop", Project: "docs", State: "running"},
		}})
	r.send("ui", buddyactor.State{Connected: true, Snapshot: &pbuddy.Heartbeat{Total: 1, Running: 1}})
	r.seen(t, "CLI sessions counted with the desktop's", func(v View) bool { return v.Sessions == 3 })
	r.prompt("d1", "Bash")
	r.send("approvals", approvals.SetPrompts{Source: "cli:9f3c2a10-aaaa", LinkUp: true, Prompts: []approvals.Prompt{
		{Source: "cli:9f3c2a10-aaaa", ID: "c1", Tool: "Edit", Label: "CLI engine · 9f3c2a10"},
		{Source: "cli:9f3c2a10-aaaa", ID: "c2", Tool: "Read", Label: "CLI engine · 9f3c2a10 · subagent Explore"},
	}})
	r.waitFor(t, "three prompts", func() bool { return r.view(t).Of == 3 })
	steps := []struct {
		tool, source, sub string
		index             int
		press             string
	}{
		{"Bash", "desktop", "", 1, "A"},
		{"Edit", "CLI engine · 9f3c2a10", "", 2, "B"},
		{"Read", "CLI engine · 9f3c2a10", "subagent Explore", 3, "A"},
	}
	for _, s := range steps {
		r.waitFor(t, s.tool+" shown", func() bool { return r.view(t).Tool == s.tool })
		v := r.view(t)
		if v.Source != s.source || v.Subagent != s.sub || v.Index != s.index || v.Of != 3 {
			t.Fatalf("%s: source %q sub %q %d of %d, want %q %q %d of 3", s.tool, v.Source, v.Subagent, v.Index, v.Of, s.source, s.sub, s.index)
		}
		r.press(t, s.press)
	}
	r.waitFor(t, "three decisions", func() bool { return r.stats(t).Decisions == 3 })
	// Each went to its source's owner, once: the desktop's to buddy, the
	// terminal's to the lan.
	d := r.decided(t, "the desktop prompt d1")
	if d.ID != "d1" || d.Decision != approvals.AllowOnce {
		t.Fatalf("buddy got %+v, want once d1", d)
	}
	r.waitFor(t, "two decisions at the lan", func() bool { f.mu.Lock(); defer f.mu.Unlock(); return len(f.decided) == 2 })
	f.mu.Lock()
	got := append([]approvals.Decided(nil), f.decided...)
	f.mu.Unlock()
	if got[0].ID != "c1" || got[0].Decision != approvals.Deny || got[1].ID != "c2" || got[1].Decision != approvals.AllowOnce {
		t.Fatalf("lan got %+v, want deny c1 then once c2", got)
	}
	r.noDecision(t, "after the terminal's decisions")
}

func TestLANInfoPage(t *testing.T) {
	r, f := newLANRig(t)
	f.set(lan.State{Addr: "192.0.2.7:7787", Clients: []lan.Client{{Name: "ada-laptop", Paired: t0}, {Name: "ci-box"}},
		Sessions: []lan.Session{{ID: "s1", Client: "ada-laptop", State: "waiting", Pending: 1}}})
	r.seen(t, "the lan state", func(v View) bool { return v.Sessions == 1 })
	for range 3 {
		r.press(t, "X")
	}
	if v := r.view(t); v.Screen != ScreenInfo || v.Page != 3 {
		t.Fatalf("three presses of next: %s page %d, want info 3", v.Screen, v.Page)
	}
	r.press(t, "X")
	if v := r.view(t); v.Screen != ScreenClock || v.Page != 4 {
		t.Fatalf("after the computers: %s page %d, want the clock, page 4", v.Screen, v.Page)
	}
	r.press(t, "X")
	if v := r.view(t); v.Screen != ScreenHome {
		t.Fatalf("after the last page: %s, want home", v.Screen)
	}
}

// BenchmarkPairingCodeToScreen is the time from the lan publishing a
// pairing code to the ui's view showing it on the pairing screen (the
// frame drawn): issue 13 wants it under 100 ms. Each code comes a frame
// gap after the last frame, as a request does after a quiet spell; a
// code right behind a frame waits for the gap (DefaultFrameGap) at most.
func BenchmarkPairingCodeToScreen(b *testing.B) {
	r, f := newLANRig(b)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		frames := r.stats(b).Frames
		time.Sleep(DefaultFrameGap)
		b.StartTimer()
		code := fmt.Sprintf("%06d", i%1000000)
		f.set(lan.State{Pairing: &lan.Pairing{Name: "ada-laptop", Code: code}})
		for v := r.view(b); v.Pairing != code || v.Screen != ScreenPairing || r.stats(b).Frames == frames; v = r.view(b) {
		}
	}
}
