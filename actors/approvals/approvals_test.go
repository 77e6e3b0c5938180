package approvals

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// ping asks a recorder to answer, proving every message sent to it before
// has been recorded.
// fakeTimer stands in for time.AfterFunc: the test fires it.
type fakeTimer struct {
	mu      sync.Mutex
	d       time.Duration
	f       func()
	stopped int
}

func (ft *fakeTimer) after(d time.Duration, f func()) func() bool {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	ft.d, ft.f = d, f
	return func() bool {
		ft.mu.Lock()
		defer ft.mu.Unlock()
		ft.stopped++
		ft.f = nil
		return true
	}
}

func (ft *fakeTimer) armed() (time.Duration, func()) {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	return ft.d, ft.f
}

type rig struct {
	t           *testing.T
	tree        *supervisor.Tree
	sys         *actor.ActorSystem
	buddy, ui   *supervisortest.Recorder
	timer       *fakeTimer
	mu          sync.Mutex
	now         time.Time
	approvalPID *actor.PID
}

func newRig(t *testing.T) *rig {
	r := &rig{t: t, buddy: &supervisortest.Recorder{}, ui: &supervisortest.Recorder{}, timer: &fakeTimer{}, now: t0}
	clock := func() time.Time { r.mu.Lock(); defer r.mu.Unlock(); return r.now }
	tree := supervisortest.Start(t,
		supervisor.Service{Name: "buddy", Policy: supervisor.DefaultPolicy, New: r.buddy.New},
		supervisor.Service{Name: "approvals", Policy: supervisor.DefaultPolicy, New: New(WithOwner("desktop", "buddy"), WithClock(clock), WithAfterFunc(r.timer.after))},
		supervisor.Service{Name: "ui", Policy: supervisor.DefaultPolicy, New: r.ui.New},
	)
	r.tree, r.sys = tree, tree.System()
	r.approvalPID = supervisor.ServicePID(r.sys, "approvals")
	r.sys.Root.Send(r.approvalPID, supervisor.Subscribe{PID: supervisor.ServicePID(r.sys, "ui")})
	if got := r.uiEvents(); len(got) != 1 || len(got[0].(Pending).Prompts) != 0 {
		t.Fatalf("on subscribe: %#v, want an empty Pending", got)
	}
	return r
}

func (r *rig) advance(d time.Duration) { r.mu.Lock(); r.now = r.now.Add(d); r.mu.Unlock() }

func (r *rig) request(pid *actor.PID, msg any) any {
	r.t.Helper()
	res, err := r.sys.Root.RequestFuture(pid, msg, 5*time.Second).Result()
	if err != nil {
		r.t.Fatalf("request %T: %v", msg, err)
	}
	return res
}

// sync waits until approvals and then both recorders have handled
// everything sent so far.
func (r *rig) sync() {
	r.request(r.approvalPID, GetPending{})
	supervisortest.Sync(r.t, r.tree, "buddy", "ui")
}

func (r *rig) uiEvents() []any  { r.sync(); return r.ui.Take() }
func (r *rig) decisions() []any { r.sync(); return r.buddy.Take() }
func (r *rig) set(m SetPrompts) { r.sys.Root.Send(r.approvalPID, m) }
func (r *rig) decide(m Decide) DecideResult {
	return r.request(r.approvalPID, m).(DecideResult)
}

func TestRacingSourcesYieldOneDecision(t *testing.T) {
	r := newRig(t)
	r.set(desk("req_1"))
	r.uiEvents()
	var wg sync.WaitGroup
	results := make([]DecideResult, 2)
	for i, by := range []string{"Claude_Pi", "CoreS3"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.sys.Root.RequestFuture(r.approvalPID, Decide{Source: "desktop", ID: "req_1", Decision: AllowOnce, By: by}, 5*time.Second).Result()
			if err == nil {
				results[i] = res.(DecideResult)
			}
		}()
	}
	wg.Wait()
	if results[0].OK == results[1].OK {
		t.Fatalf("results %+v: want exactly one OK", results)
	}
	loser := results[0]
	if loser.OK {
		loser = results[1]
	}
	if !strings.Contains(loser.Err, "already decided") {
		t.Errorf("refusal %q does not say why", loser.Err)
	}
	got := r.decisions()
	if len(got) != 1 {
		t.Fatalf("buddy got %#v, want exactly one Decided", got)
	}
	if d := got[0].(Decided); d.ID != "req_1" || d.Decision != AllowOnce {
		t.Errorf("Decided %+v", d)
	}
}

func TestRefusedDecisionsSendNothing(t *testing.T) {
	r := newRig(t)
	for _, tc := range []struct {
		name, id, want string
		setup          func()
	}{
		{"no prompt", "req_1", "no prompt pending", func() {}},
		{"unknown id", "req_2", "not pending", func() { r.set(desk("req_1")) }},
		{"stale id", "req_1", "not pending", func() { r.set(desk("req_3")) }},
	} {
		tc.setup()
		res := r.decide(Decide{Source: "desktop", ID: tc.id, Decision: AllowOnce, By: "Claude_Pi"})
		if res.OK || !strings.Contains(res.Err, tc.want) {
			t.Errorf("%s: %+v, want refusal containing %q", tc.name, res, tc.want)
		}
	}
	if res := r.decide(Decide{Source: "cli:9", ID: "x", By: "Claude_Pi"}); res.OK || !strings.Contains(res.Err, "no service answers") {
		t.Errorf("source without owner: %+v", res)
	}
	if got := r.decisions(); len(got) != 0 {
		t.Fatalf("buddy got %#v, want nothing", got)
	}
}

func TestResolutionAndLinkEvents(t *testing.T) {
	r := newRig(t)
	r.set(desk("a", "b"))
	if got := r.uiEvents(); len(got) != 3 {
		t.Fatalf("events %#v, want LinkChanged + 2 PromptAppeared", got)
	}
	if res := r.decide(Decide{Source: "desktop", ID: "a", Decision: Deny, By: "CoreS3"}); !res.OK {
		t.Fatal(res.Err)
	}
	r.set(desk())
	got := r.uiEvents()
	want := []Resolution{DeniedHere, AnsweredElsewhere}
	var hows []Resolution
	for _, m := range got {
		if pr, ok := m.(PromptResolved); ok {
			hows = append(hows, pr.How)
		}
	}
	if len(hows) != 2 || hows[0] != want[0] || hows[1] != want[1] {
		t.Fatalf("events %#v, want resolutions %v", got, want)
	}
	r.set(desk("c"))
	r.uiEvents()
	r.set(SetPrompts{Source: "desktop"})
	got = r.uiEvents()
	if len(got) != 2 || got[0] != (LinkChanged{Source: "desktop"}) || got[1].(PromptResolved).How != Gone {
		t.Fatalf("link down: %#v", got)
	}
	if p := r.request(r.approvalPID, GetPending{}).(Pending); len(p.Prompts) != 0 {
		t.Fatalf("pending after link down: %+v", p)
	}
}

func TestRearmAfterFiveSeconds(t *testing.T) {
	r := newRig(t)
	r.set(desk("a"))
	if res := r.decide(Decide{Source: "desktop", ID: "a", Decision: AllowOnce, By: "Claude_Pi"}); !res.OK {
		t.Fatal(res.Err)
	}
	r.uiEvents()
	d, fire := r.timer.armed()
	if fire == nil || d != RearmAfter {
		t.Fatalf("timer %v armed=%v, want %v", d, fire != nil, RearmAfter)
	}
	r.advance(RearmAfter)
	fire()
	got := r.uiEvents()
	if len(got) != 1 || got[0].(PromptRearmed).Prompt.ID != "a" {
		t.Fatalf("after 5 s: %#v, want PromptRearmed", got)
	}
	if res := r.decide(Decide{Source: "desktop", ID: "a", Decision: AllowOnce, By: "Claude_Pi"}); !res.OK {
		t.Fatalf("decide after re-arm: %+v", res)
	}
	if got := r.decisions(); len(got) != 2 {
		t.Fatalf("buddy got %d decisions, want 2 (one per arming)", len(got))
	}
}

func TestLongUnicodeIDReachesOwnerVerbatim(t *testing.T) {
	r := newRig(t)
	id := longID()
	r.set(SetPrompts{Source: "desktop", LinkUp: true, Prompts: []Prompt{{ID: id, Tool: "Bash"}}})
	if res := r.decide(Decide{Source: "desktop", ID: id, Decision: AllowOnce, By: "Claude_Pi"}); !res.OK {
		t.Fatal(res.Err)
	}
	got := r.decisions()
	if len(got) != 1 || got[0].(Decided).ID != id {
		t.Fatalf("got %#v", got)
	}
}

func TestSubscriberRestartStillReceives(t *testing.T) {
	r := newRig(t)
	before, _ := r.tree.Process("ui")
	if err := r.tree.SignalProcess("ui", "KILL"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if p, _ := r.tree.Process("ui"); p.State == supervisor.Running && p.Start.After(before.Start) && r.tree.ActorPID("ui") != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("ui not RUNNING again")
		}
	}
	r.set(desk("a"))
	got := r.uiEvents()
	if len(got) != 2 || got[1].(PromptAppeared).Prompt.ID != "a" {
		t.Fatalf("restarted subscriber got %#v", got)
	}
}

func TestDescriptionAndStopCancelsTimer(t *testing.T) {
	r := newRig(t)
	r.set(desk("a"))
	r.sync()
	r.advance(12 * time.Second)
	r.set(desk("a")) // any message refreshes the line
	r.sync()
	if p, _ := r.tree.Process("approvals"); p.Description != "1 pending: Bash (desktop), 12 s" {
		t.Errorf("description %q", p.Description)
	}
	if res := r.decide(Decide{Source: "desktop", ID: "a", Decision: AllowOnce, By: "Claude_Pi"}); !res.OK {
		t.Fatal(res.Err)
	}
	if err := r.tree.StopProcess("approvals", true); err != nil {
		t.Fatal(err)
	}
	if _, fire := r.timer.armed(); fire != nil {
		t.Error("re-arm timer still armed after Stopping")
	}
}

// decidedSignal plays "buddy" in the benchmark: it reports each Decided.
type decidedSignal chan struct{}

func (d decidedSignal) Receive(c actor.Context) {
	if _, ok := c.Message().(Decided); ok {
		d <- struct{}{}
	}
}

// BenchmarkActorRoundTrip is a prompt's life through the actor: SetPrompts,
// a Decide answered with DecideResult, the Decided reaching the owner, and
// the prompt resolved by the next set.
func BenchmarkActorRoundTrip(b *testing.B) {
	got := make(decidedSignal, 1)
	tree, err := supervisor.New(supervisor.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		supervisor.Service{Name: "buddy", Policy: supervisor.DefaultPolicy, New: func(*supervisor.Handle) actor.Actor { return got }},
		supervisor.Service{Name: "approvals", Policy: supervisor.DefaultPolicy, New: New(WithOwner("desktop", "buddy"))},
	)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := tree.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer tree.Shutdown(ctx)
	sys, pid := tree.System(), supervisor.ServicePID(tree.System(), "approvals")
	with, without := desk("req_0123456789abcdef"), desk()
	d := Decide{Source: "desktop", ID: "req_0123456789abcdef", Decision: AllowOnce, By: "Claude_Pi"}
	b.ReportAllocs()
	for b.Loop() {
		sys.Root.Send(pid, with)
		res, err := sys.Root.RequestFuture(pid, d, 5*time.Second).Result()
		if err != nil || !res.(DecideResult).OK {
			b.Fatal(res, err)
		}
		<-got
		sys.Root.Send(pid, without)
	}
}

func TestHoldRefusesThenGoneWhenTheTimerFires(t *testing.T) {
	r := newRig(t)
	r.set(desk("a"))
	r.uiEvents()
	r.set(SetPrompts{Source: "desktop", Hold: 15 * time.Second})
	got := r.uiEvents()
	if len(got) != 2 || got[0] != (LinkChanged{Source: "desktop"}) || got[1].(PromptReconnecting).Prompt.ID != "a" {
		t.Fatalf("drop with a hold: %#v, want LinkChanged and PromptReconnecting", got)
	}
	res := r.decide(Decide{Source: "desktop", ID: "a", Decision: AllowOnce, By: "Claude_Pi"})
	if res.OK || !strings.Contains(res.Err, "waiting for its source to reconnect") {
		t.Fatalf("decide while held: %+v, want a refusal that says why", res)
	}
	if got := r.decisions(); len(got) != 0 {
		t.Fatalf("buddy got %#v while the link was down", got)
	}
	d, fire := r.timer.armed()
	if fire == nil || d != 15*time.Second {
		t.Fatalf("timer %v armed=%v, want the 15 s hold", d, fire != nil)
	}
	r.advance(15 * time.Second)
	fire()
	got = r.uiEvents()
	if len(got) != 1 || got[0].(PromptResolved).How != Gone {
		t.Fatalf("after the hold: %#v, want PromptResolved Gone", got)
	}
	if p := r.request(r.approvalPID, GetPending{}).(Pending); len(p.Prompts) != 0 {
		t.Fatalf("pending after the hold: %+v", p)
	}
}

// The busy marker (WithBusy) follows whether any prompt waits: on with the
// first, off when the last goes, and off when the service stops with one
// still waiting, since its prompts go with it.
func TestBusyFollowsWaitingPrompts(t *testing.T) {
	var mu sync.Mutex
	var told []bool
	busy := func(on bool) { mu.Lock(); told = append(told, on); mu.Unlock() }
	got := func() []bool { mu.Lock(); defer mu.Unlock(); return append([]bool(nil), told...) }
	tree := supervisortest.Start(t,
		supervisor.Service{Name: "buddy", Policy: supervisor.DefaultPolicy, New: (&supervisortest.Recorder{}).New},
		supervisor.Service{Name: "approvals", Policy: supervisor.DefaultPolicy, New: New(WithOwner("desktop", "buddy"), WithBusy(busy))},
	)
	pid := supervisor.ServicePID(tree.System(), "approvals")
	send := func(m SetPrompts) {
		tree.System().Root.Send(pid, m)
		supervisortest.Ask[Pending](t, tree, "approvals", GetPending{})
	}
	send(desk("a"))
	send(desk("a", "b"))
	if g := got(); len(g) != 1 || !g[0] {
		t.Fatalf("after two prompts: told %v, want [true]", g)
	}
	send(SetPrompts{Source: "desktop", LinkUp: true})
	if g := got(); len(g) != 2 || g[1] {
		t.Fatalf("after the last went: told %v, want [true false]", g)
	}
	send(desk("c"))
	if err := tree.StopProcess("approvals", true); err != nil {
		t.Fatal(err)
	}
	if g := got(); len(g) != 4 || !g[2] || g[3] {
		t.Fatalf("stopped with one waiting: told %v, want [true false true false]", g)
	}
}

// TestRestartAsksOwnersToResend: a fresh approvals knows no prompt, so a
// restarted one asks each owner for its sets once; the first incarnation
// asks nobody (the owners start after it and send their own).
func TestRestartAsksOwnersToResend(t *testing.T) {
	r := newRig(t)
	if got := Of[Resend](r.decisions()); len(got) != 0 {
		t.Fatalf("first start sent %d Resend, want none", len(got))
	}
	before, _ := r.tree.Process("approvals")
	if err := r.tree.SignalProcess("approvals", "KILL"); err != nil {
		t.Fatal(err)
	}
	supervisortest.WaitFor(t, "approvals restarted", func() bool {
		p, _ := r.tree.Process("approvals")
		return p.State == supervisor.Running && p.Start.After(before.Start)
	})
	supervisortest.WaitFor(t, "a Resend at buddy", func() bool { return len(supervisortest.Of[Resend](r.buddy)) > 0 })
	if got := Of[Resend](r.decisions()); len(got) != 1 {
		t.Errorf("restart sent %d Resend to buddy, want 1", len(got))
	}
}

// Of keeps the messages of type T.
func Of[T any](msgs []any) []T {
	var out []T
	for _, m := range msgs {
		if v, ok := m.(T); ok {
			out = append(out, v)
		}
	}
	return out
}
