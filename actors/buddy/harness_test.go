package buddy

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	"github.com/claude-pi/claude-pi/drivers/storage"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// fakeBLE stands in for the ble service: it answers Subscribe with a
// connected, secured link, records every line and unpair, and answers a
// Send with a receipt as the real link does: dropped while drop is set,
// as when no central is subscribed.
type fakeBLE struct {
	sent   chan []byte
	unpair chan struct{}
	drop   *atomic.Bool
}

func (f *fakeBLE) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case supervisor.Subscribe:
		c.Send(m.PID, bleactor.LinkState{Connected: true, Central: "desktop", Subscribed: true, Secured: true, MTU: 185, CanPair: true, Security: "bonded"})
	case bleactor.Send:
		if m.Receipt != nil {
			r := bleactor.Sent{Receipt: m.Receipt, OK: !f.drop.Load()}
			if !r.OK {
				r.Err = "ble: no central subscribed to TX notifications"
			}
			c.Send(supervisor.ServicePID(c.ActorSystem(), "buddy"), r)
		}
		f.sent <- append([]byte(nil), m.Line...)
	case bleactor.Unpair:
		f.unpair <- struct{}{}
	}
}

// fakeApprovals records every SetPrompts and Delivery.
type fakeApprovals struct {
	got     chan approvals.SetPrompts
	reports chan approvals.Delivery
}

func (f *fakeApprovals) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case approvals.SetPrompts:
		f.got <- m
	case approvals.Delivery:
		f.reports <- m
	}
}

type clock struct{ ns atomic.Int64 }

func (c *clock) Now() time.Time      { return time.Unix(0, c.ns.Load()) }
func (c *clock) Add(d time.Duration) { c.ns.Add(int64(d)) }
func newClock(t time.Time) *clock    { c := &clock{}; c.ns.Store(t.UnixNano()); return c }

type harness struct {
	tb      testing.TB
	tree    *supervisor.Tree
	buddy   *actor.PID
	sent    chan []byte
	unpair  chan struct{}
	prompts chan approvals.SetPrompts
	reports chan approvals.Delivery
	drop    atomic.Bool // the fake link drops lines
	clock   *clock
	data    string
	// full makes every save of a kept file fail as a full disk does.
	full atomic.Bool
}

func (h *harness) writeFile(path string, data []byte, perm os.FileMode) error {
	if h.full.Load() {
		return fmt.Errorf("storage: writing %s: %w", path, syscall.ENOSPC)
	}
	return storage.WriteFile(path, data, perm)
}

func newHarness(tb testing.TB, data string) *harness {
	tb.Helper()
	h := &harness{
		tb: tb, data: data, clock: newClock(t0),
		sent: make(chan []byte, 4096), unpair: make(chan struct{}, 4),
		prompts: make(chan approvals.SetPrompts, 4096), reports: make(chan approvals.Delivery, 64),
	}
	policy := supervisor.DefaultPolicy
	h.tree = supervisortest.Start(tb,
		supervisor.Service{Name: "ble", Policy: policy, New: func(*supervisor.Handle) actor.Actor {
			return &fakeBLE{sent: h.sent, unpair: h.unpair, drop: &h.drop}
		}},
		supervisor.Service{Name: "approvals", Policy: policy, New: func(*supervisor.Handle) actor.Actor {
			return &fakeApprovals{got: h.prompts, reports: h.reports}
		}},
		supervisor.Service{Name: "buddy", DependsOn: []string{"ble", "approvals"}, Policy: policy, New: New(Config{
			DataDir: data, Now: h.clock.Now, TickEvery: time.Hour, // tests send ticks themselves
			Sys:       func() (uint64, uint64) { return 8412, 412_000_000 },
			WriteFile: h.writeFile,
		})},
	)
	h.buddy = supervisor.ServicePID(h.tree.System(), "buddy")
	h.ready()
	return h
}

// ready waits until buddy has seen the fake link, and drains the
// start-up SetPrompts{LinkUp:false}.
func (h *harness) ready() {
	h.tb.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if st, err := h.state(); err == nil && st.Secured {
			break
		}
		if time.Now().After(deadline) {
			h.tb.Fatal("buddy never saw the link")
		}
	}
	if p := h.nextPrompts(); p.LinkUp {
		h.tb.Fatalf("first SetPrompts %+v, want LinkUp:false", p)
	}
}

func (h *harness) state() (State, error) {
	res, err := h.tree.System().Root.RequestFuture(h.buddy, GetState{}, 2*time.Second).Result()
	if err != nil {
		return State{}, err
	}
	return res.(State), nil
}

func (h *harness) mustState() State {
	h.tb.Helper()
	st, err := h.state()
	if err != nil {
		h.tb.Fatal(err)
	}
	return st
}

func (h *harness) send(msg any) { h.tree.System().Root.Send(h.buddy, msg) }

func (h *harness) line(s string) { h.send(bleactor.Line{Data: []byte(s)}) }

func (h *harness) nextLine() []byte {
	h.tb.Helper()
	select {
	case l := <-h.sent:
		return l
	case <-time.After(10 * time.Second):
		h.tb.Fatal("no line sent")
	}
	return nil
}

func (h *harness) nextReport() approvals.Delivery {
	h.tb.Helper()
	select {
	case r := <-h.reports:
		return r
	case <-time.After(10 * time.Second):
		h.tb.Fatal("no Delivery")
	}
	return approvals.Delivery{}
}

func (h *harness) nextPrompts() approvals.SetPrompts {
	h.tb.Helper()
	select {
	case p := <-h.prompts:
		return p
	case <-time.After(10 * time.Second):
		h.tb.Fatal("no SetPrompts")
	}
	return approvals.SetPrompts{}
}

// restart stops and starts the buddy service, as supervisorctl would.
func (h *harness) restart() {
	h.tb.Helper()
	if err := h.tree.StopProcess("buddy", true); err != nil {
		h.tb.Fatal(err)
	}
	if err := h.tree.StartProcess("buddy", true); err != nil {
		h.tb.Fatal(err)
	}
	h.ready()
}
