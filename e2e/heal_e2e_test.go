package e2e

// Issue 32 item 1, "no service stays down", as it was reproduced: six
// KILLs of approvals within seconds put it FATAL; a desktop prompt sent
// then must be shown once approvals is back, and answered once.

import (
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest/fakedesktop"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

func TestFatalApprovalsComesBackWithThePromptSentMeanwhile(t *testing.T) {
	e2e(t)
	retry := Duration(3 * time.Second)
	a := startApplianceWith(t, func(c *Config) {
		c.Services = map[string]ServiceConfig{"approvals": {RetryFatal: &retry}}
	})
	// The keepalive is longer than the test: the prompt's one heartbeat
	// goes to dead letters, and only approvals' Resend brings it back.
	d := a.Dial(t, &fakedesktop.Options{Owner: "Ada", StatusEvery: -1, Keepalive: 25 * time.Second})
	var log decisionLog
	log.watch(d)

	var last time.Time // each KILL hits a fresh incarnation
	for kill := range supervisor.DefaultPolicy.MaxRestarts + 1 {
		supervisortest.WaitFor(t, "approvals running again", func() bool {
			p, _ := a.Tree.Process("approvals")
			return p.State == supervisor.Running && p.Start.After(last)
		})
		p, _ := a.Tree.Process("approvals")
		last = p.Start
		if err := a.Tree.SignalProcess("approvals", "KILL"); err != nil {
			t.Fatalf("kill %d: %v", kill+1, err)
		}
	}
	p := supervisortest.WaitState(t, a.Tree, "approvals", supervisor.Fatal)
	if !strings.Contains(p.Description, "retry in") {
		t.Errorf("FATAL line %q does not say it will be retried", p.Description)
	}
	d.SetPrompt("req_heal", "Bash", "make check")

	view := func() ui.View {
		v, _ := supervisortest.TryAsk[ui.View](a.Tree, "ui", ui.GetView{})
		return v
	}
	supervisortest.WaitFor(t, "the home screen naming approvals", func() bool {
		return strings.HasPrefix(view().Down, "approvals down since ")
	})
	supervisortest.WaitFor(t, "req_heal on the screen after the retry", func() bool {
		v := view()
		return v.Screen == "approval" && v.Shown.ID == "req_heal" && !v.Sent && !v.Reconnecting
	})
	if p, _ := a.Tree.Process("approvals"); p.State != supervisor.Running {
		t.Fatalf("prompt shown but approvals is %v", p.State)
	}
	a.Press(t, "A")
	supervisortest.WaitFor(t, "the answer to req_heal", func() bool { return log.count("req_heal") > 0 })
	d.ClearPrompt()
	time.Sleep(300 * time.Millisecond) // a repeated answer would arrive now
	log.check(t, []string{"req_heal"})
	if v := view(); v.Down != "" && v.Screen == "home" {
		t.Errorf("home still says %q with every service running", v.Down)
	}
}
