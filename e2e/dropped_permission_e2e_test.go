package e2e

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/buddy/stats"
	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/boards/sim"
	"github.com/claude-pi/claude-pi/drivers/ble/bletest"
	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// approvalsEvents records what approvals publishes, for a test that
// subscribes to it from outside the tree.
type approvalsEvents struct {
	mu   sync.Mutex
	msgs []any
}

func (r *approvalsEvents) Receive(c actor.Context) {
	switch c.Message().(type) {
	case approvals.PromptResolved, approvals.PromptRearmed, approvals.PromptDecided:
		r.mu.Lock()
		r.msgs = append(r.msgs, c.Message())
		r.mu.Unlock()
	}
}

func (r *approvalsEvents) all() []any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]any(nil), r.msgs...)
}

func (r *approvalsEvents) resolved() []approvals.PromptResolved {
	var out []approvals.PromptResolved
	for _, m := range r.all() {
		if p, ok := m.(approvals.PromptResolved); ok {
			out = append(out, p)
		}
	}
	return out
}

// The central turns its TX notifications off (a real central can; a
// bonded one BlueZ does not resubscribe is the same to the Pi) just as A
// is pressed, so the permission line is dropped ("TX line dropped: no
// central subscribed"); the user then answers on the desktop. The Pi must
// not claim the answer: the prompt is answerable again at once, the
// resolution is AnsweredElsewhere, no heart, no approval in the stats.
//
// The whole tree is the appliance's (appliance.ServeWith, the sim board's
// screen and buttons); only the radio is bletest's fake central, the one
// link whose subscription a test can turn off.
func TestDroppedPermissionLineIsNotClaimedE2E(t *testing.T) {
	e2e(t)
	central := bletest.NewFake(true)
	a := appliancetest.StartOptions(t, func(c *Config) {
		off := "off"
		c.HTTP, c.LogLevel = &off, "debug"
	}, appliance.Options{Link: central})
	tree, logs := a.Tree, a.Logs
	sys := tree.System()
	events := &approvalsEvents{}
	rec := sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return events }))
	defer sys.Root.Stop(rec)
	sys.Root.Send(supervisor.ServicePID(sys, approvals.ServiceName), supervisor.Subscribe{PID: rec})
	view := func() ui.View { return supervisortest.Ask[ui.View](t, tree, ui.ServiceName, ui.GetView{}) }

	supervisortest.Within(t, 10*time.Second, "the fake central to connect", func() bool { return central.Connect("desk") == nil })
	for _, err := range []error{central.ExchangeMTU(185), central.Subscribe(true), central.Secure(),
		central.Write([]byte(`{"total":1,"running":1,"waiting":1,"msg":"approve: Bash","entries":[],"tokens":1,"tokens_today":1,` +
			`"prompt":{"id":"req_drop","tool":"Bash","hint":"rm -rf build"}}` + "\n"))} {
		if err != nil {
			t.Fatal(err)
		}
	}
	supervisortest.Within(t, 10*time.Second, "the prompt answerable on the screen", func() bool {
		v := view()
		return len(v.Prompts) == 1 && v.Prompts[0].ID == "req_drop" && !v.Prompts[0].Decided && v.Link != nil && v.Link.Subscribed &&
			v.Screen == ui.ScreenApproval && v.Shown.ID == "req_drop" && !v.Sent // drawn: A acts on the frame
	})

	if err := central.Subscribe(false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.Board.Buttons.Press(sim.ButtonA, 0); err != nil {
		t.Fatal(err)
	}
	// The decision was taken, then re-armed by buddy's report: the
	// buttons are back, and the screen does not say "sent…".
	supervisortest.Within(t, 10*time.Second, "the dropped decision re-armed", func() bool {
		var decided, rearmed bool
		for _, m := range events.all() {
			switch m.(type) {
			case approvals.PromptDecided:
				decided = true
			case approvals.PromptRearmed:
				rearmed = decided
			}
		}
		return rearmed
	})
	// The screen follows within a frame (ui.DefaultFrameGap).
	supervisortest.Within(t, 10*time.Second, "the buttons back on the screen", func() bool {
		p := appliance.APIState(tree, "sim", time.Second).Prompt
		return p != nil && p.ID == "req_drop" && !p.Decided
	})
	if bytes.Contains(central.Sent(), []byte("permission")) {
		t.Fatalf("the central got %q with notifications off", central.Sent())
	}

	// The user answers on the desktop; its next heartbeat has no prompt.
	if err := central.Write([]byte(`{"total":1,"running":1,"waiting":0,"msg":"working","entries":[],"tokens":1,"tokens_today":1}` + "\n")); err != nil {
		t.Fatal(err)
	}
	supervisortest.Within(t, 10*time.Second, "the prompt resolved", func() bool { return len(events.resolved()) == 1 })
	if r := events.resolved()[0]; r.Prompt.ID != "req_drop" || r.How != approvals.AnsweredElsewhere || r.By != "" {
		t.Errorf("resolution = %v by %q, want answered-elsewhere: the Pi's answer never left", r.How, r.By)
	}
	// The ui hears of the resolution on its own subscription, and draws
	// it within a frame: wait for that frame (View.Persona is its persona).
	supervisortest.Within(t, 10*time.Second, "the prompt gone from the screen", func() bool {
		v := view()
		return len(v.Prompts) == 0 && v.Screen == ui.ScreenHome
	})
	if v := view(); v.Persona == stats.Heart.String() {
		t.Errorf("screen after the desktop answered: persona %q, want no heart", v.Persona)
	}
	if b := supervisortest.Ask[buddyactor.State](t, tree, buddyactor.ServiceName, buddyactor.GetState{}); b.Stats.Appr != 0 {
		t.Errorf("stats count %d approvals, want 0: the line was dropped", b.Stats.Appr)
	}
	if l := logs.String(); !strings.Contains(l, "decision not delivered") || !strings.Contains(l, "no central subscribed") {
		t.Errorf("the log does not say the decision was not delivered, and why")
	}
}
