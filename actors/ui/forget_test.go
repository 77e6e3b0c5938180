package ui

import (
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// act is one press as the actor handles it: the forget flow first, then
// a short press's usual meaning; the refresh after it settles the screen.
// It reports whether the press asked the ble service to forget.
func act(s *state, r Role, hold time.Duration, now time.Time) (sent bool) {
	long := hold >= 500*time.Millisecond
	defer s.settle(now)
	if send, ok := s.forgetPress(r, long, now.Add(-hold), now); ok {
		return send
	}
	if long {
		s.wake(now) // a long press only counts as interaction
	} else {
		s.press(r, now.Add(-hold), now)
	}
	return false
}

func toLinks(t *testing.T, s *state, now time.Time) {
	t.Helper()
	act(s, RoleNext, 0, now)
	if s.screen() != ScreenInfo || s.page != linksPage {
		t.Fatalf("next from home shows %s page %d, want the Links page", s.screen(), s.page)
	}
}

func TestForgetPairingNeedsTwoDeliberateHolds(t *testing.T) {
	s := newState(t0, DefaultScreenTimeout, true)
	s.apply(bleactor.LinkState{Advertising: true, Connected: true, Secured: true, CanPair: true, Security: "bonded"}, t0)
	s.settle(t0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }

	if act(s, RoleApprove, time.Second, at(0)) || s.screen() != ScreenHome {
		t.Fatalf("a hold on home shows %s: the forget screen opens only from the Links page", s.screen())
	}
	toLinks(t, s, at(time.Second))
	act(s, RoleApprove, 0, at(2*time.Second))
	if s.screen() == ScreenForget {
		t.Fatal("a short approve on the Links page opened the forget screen")
	}
	if act(s, RoleApprove, time.Second, at(3*time.Second)) || s.screen() != ScreenForget {
		t.Fatalf("a hold on the Links page shows %s, want the question (and nothing sent)", s.screen())
	}
	if act(s, RoleApprove, 0, at(4*time.Second)) || s.screen() != ScreenForget || s.forget.step != forgetAsking {
		t.Fatalf("a short approve on the question: %s step %v, want the question still and nothing sent", s.screen(), s.forget.step)
	}
	// A hold that began before the question came up (the one that opened
	// it, held on) does not forget.
	if act(s, RoleApprove, 2*time.Second, at(4*time.Second)) {
		t.Fatal("a hold begun before the question showed forgot the pairing")
	}
	if !act(s, RoleApprove, time.Second, at(6*time.Second)) || s.forget.step != forgetSending {
		t.Fatalf("a hold begun on the question: step %v, want sending", s.forget.step)
	}
	if act(s, RoleApprove, time.Second, at(8*time.Second)) || act(s, RoleDeny, 0, at(8*time.Second)) {
		t.Fatal("a press while sending sent again")
	}
	s.forgotten(bleactor.BondsForgotten{Removed: 1}, at(9*time.Second))
	s.settle(at(9 * time.Second))
	if s.screen() != ScreenForget || s.forget.step != forgetDone || s.forget.result.Removed != 1 {
		t.Fatalf("after the answer: %s step %v %+v, want the result", s.screen(), s.forget.step, s.forget.result)
	}
	act(s, RoleDeny, 0, at(10*time.Second))
	if s.screen() != ScreenInfo || s.forget.step != forgetNone {
		t.Fatalf("a press on the result shows %s step %v, want the Links page back", s.screen(), s.forget.step)
	}
}

func TestForgetPairingDenyCancels(t *testing.T) {
	// Without next/back keys approve and deny page through info: the
	// flow works the same on two-button boards.
	for _, pageKeys := range []bool{true, false} {
		s := newState(t0, DefaultScreenTimeout, pageKeys)
		s.settle(t0)
		toLinks(t, s, t0)
		act(s, RoleApprove, time.Second, t0.Add(time.Second))
		if s.screen() != ScreenForget {
			t.Fatalf("pageKeys %v: the hold shows %s", pageKeys, s.screen())
		}
		if act(s, RoleDeny, 0, t0.Add(2*time.Second)) || s.screen() != ScreenInfo || s.page != linksPage {
			t.Fatalf("pageKeys %v: deny on the question shows %s page %d, want the Links page and nothing sent", pageKeys, s.screen(), s.page)
		}
		if act(s, RoleApprove, time.Second, t0.Add(3*time.Second)); s.forget.step != forgetAsking {
			t.Fatalf("pageKeys %v: after a cancel a hold on the Links page asks again: step %v", pageKeys, s.forget.step)
		}
	}
}

// No prompt loses its buttons to the forget flow: with one pending the
// Links page never shows, and one that arrives takes the question away
// for good.
func TestForgetPairingNeverWithAPromptPending(t *testing.T) {
	s := newState(t0, DefaultScreenTimeout, true)
	s.settle(t0)
	s.apply(approvals.PromptAppeared{Prompt: prompt("p1")}, t0)
	s.settle(t0)
	for _, r := range []Role{RoleNext, RoleBack, RoleApprove, RoleDeny} {
		act(s, r, time.Second, t0.Add(time.Second))
		if s.screen() != ScreenApproval || s.forget.step != forgetNone {
			t.Fatalf("hold %s with a prompt pending: %s step %v", r, s.screen(), s.forget.step)
		}
	}
	s.apply(approvals.PromptResolved{Prompt: prompt("p1"), How: approvals.AnsweredElsewhere}, t0.Add(2*time.Second))
	s.settle(t0.Add(2 * time.Second))

	toLinks(t, s, t0.Add(3*time.Second))
	act(s, RoleApprove, time.Second, t0.Add(4*time.Second))
	if s.screen() != ScreenForget {
		t.Fatalf("hold on Links shows %s", s.screen())
	}
	s.apply(approvals.PromptAppeared{Prompt: prompt("p2")}, t0.Add(5*time.Second))
	s.settle(t0.Add(5 * time.Second))
	if s.screen() != ScreenApproval {
		t.Fatalf("a prompt during the question shows %s, want the prompt", s.screen())
	}
	if act(s, RoleApprove, time.Second, t0.Add(7*time.Second)) {
		t.Fatal("a hold on the prompt forgot the pairing")
	}
	s.apply(approvals.PromptResolved{Prompt: prompt("p2"), How: approvals.AnsweredElsewhere}, t0.Add(8*time.Second))
	s.settle(t0.Add(8 * time.Second))
	if s.screen() == ScreenForget {
		t.Fatal("the question came back after the prompt: it must be opened afresh")
	}
}

func TestForgetPairingQuestionTimesOut(t *testing.T) {
	s := newState(t0, DefaultScreenTimeout, true)
	s.settle(t0)
	toLinks(t, s, t0)
	act(s, RoleApprove, time.Second, t0.Add(time.Second))
	s.tick(t0.Add(time.Second + DefaultScreenTimeout))
	s.settle(t0.Add(time.Second + DefaultScreenTimeout))
	if s.screen() != ScreenOff || s.forget.step != forgetNone {
		t.Fatalf("the question left alone: %s step %v, want the screen off and the question gone", s.screen(), s.forget.step)
	}
	act(s, RoleApprove, time.Second, t0.Add(time.Minute)) // wakes only
	if s.screen() != ScreenHome {
		t.Fatalf("woken, the screen shows %s, want home", s.screen())
	}
}

// fakeBLE stands in for the ble service: it answers ForgetBonds with
// what the test set and counts the requests.
type fakeBLE struct {
	mu     sync.Mutex
	answer bleactor.BondsForgotten
	asked  int
	silent bool // never answer, as a ble service restarting
}

func (f *fakeBLE) Receive(c actor.Context) {
	switch c.Message().(type) {
	case bleactor.ForgetBonds:
		f.mu.Lock()
		f.asked++
		answer, silent := f.answer, f.silent
		f.mu.Unlock()
		if !silent {
			c.Respond(answer)
		}
	case supervisortest.Ping:
		c.Respond(c.Message())
	}
}

func (f *fakeBLE) count() int { f.mu.Lock(); defer f.mu.Unlock(); return f.asked }

// The whole path through the actor: sim buttons, the ble service's
// answer, and the screen that says what to do on the computer.
func TestForgetPairingThroughButtons(t *testing.T) {
	f := &fakeBLE{answer: bleactor.BondsForgotten{Removed: 1}}
	r := newRig(t, nil, supervisor.Service{Name: "ble", Policy: supervisor.DefaultPolicy,
		New: func(*supervisor.Handle) actor.Actor { return f }})
	r.press(t, "X")
	r.seen(t, "the Links page", func(v View) bool { return v.Screen == ScreenInfo && v.Page == linksPage })
	r.clk.advance(2 * time.Second)
	r.pressHold(t, "A", time.Second)
	r.seen(t, "the question", func(v View) bool { return v.Screen == ScreenForget && v.Forget == "asking" })
	r.press(t, "A")
	if n := f.count(); n != 0 {
		t.Fatalf("a short A asked to forget (%d)", n)
	}
	r.clk.advance(2 * time.Second)
	r.pressHold(t, "A", time.Second)
	v := r.seen(t, "the result", func(v View) bool { return v.Forget == "done" })
	if f.count() != 1 || v.Screen != ScreenForget || v.Forgotten.Removed != 1 {
		t.Fatalf("asked %d times; view %s %+v, want one request and the result on screen", f.count(), v.Screen, v.Forgotten)
	}
	r.press(t, "B")
	r.seen(t, "the Links page again", func(v View) bool { return v.Screen == ScreenInfo && v.Forget == "" })
	if f.count() != 1 {
		t.Fatalf("asked %d times, want 1", f.count())
	}
}

// A ble service that never answers leaves no stuck "forgetting…": the
// screen says so once the wait is over.
func TestForgetPairingWithoutAnAnswer(t *testing.T) {
	f := &fakeBLE{silent: true}
	r := newRig(t, func(c *Config) { c.ForgetTimeout = 100 * time.Millisecond }, supervisor.Service{Name: "ble", Policy: supervisor.DefaultPolicy,
		New: func(*supervisor.Handle) actor.Actor { return f }})
	r.press(t, "X")
	r.clk.advance(2 * time.Second)
	r.pressHold(t, "A", time.Second)
	r.clk.advance(2 * time.Second)
	r.pressHold(t, "A", time.Second)
	r.waitFor(t, "the request", func() bool { return f.count() == 1 })
	v := r.seen(t, "the failure shown", func(v View) bool { return v.Forget == "done" })
	if v.Forgotten.Err == "" {
		t.Fatalf("no answer shows %+v, want an error", v.Forgotten)
	}
}
