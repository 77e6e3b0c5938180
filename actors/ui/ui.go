// Package ui is the appliance's screen and buttons, in its minimal first
// form: the sim board's status screen with the pending permission prompt
// on it, and the A/B buttons deciding that prompt through the approvals
// service (A approves once, B denies). Fonts, the character animation and
// the ST7789 panel come later; what this package fixes now is the rule
// that a press decides the OLDEST pending prompt nobody has decided yet,
// and that a press with no such prompt sends nothing.
package ui

import (
	"image"
	"strconv"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	ableactor "github.com/claude-pi/claude-pi/actors/ble"
	abuddy "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/boards/sim"
	"github.com/claude-pi/claude-pi/supervisor"
)

// Config is what the ui service drives and listens to.
type Config struct {
	Board    string       // the board name on the screen
	Display  *sim.Display // nil: nothing is drawn (tests)
	Buttons  *sim.Buttons // nil: no buttons
	Services func() []sim.Service
	// Now is the clock; time.Now if nil.
	Now func() time.Time
	// Redraw is how often the screen is refreshed for its clock and the
	// prompt's age; 250 ms if zero.
	Redraw time.Duration
	// DecideTimeout bounds the wait for approvals to accept a press; 2 s
	// if zero. A press that times out shows the buttons again.
	DecideTimeout time.Duration
}

// GetView asks the ui for what it shows; it responds with a View.
type GetView struct{}

// View is the ui's current picture of the world.
type View struct {
	Prompts []approvals.PromptView
	Screen  sim.StatusScreen
	// Link is the last LinkState from the ble service, nil before one.
	Link *ableactor.LinkState
	// Presses counts the presses handled by this incarnation, Decisions
	// those that sent a decision (the rest had nothing to decide).
	Presses, Decisions int
}

// New returns the supervisor.Service constructor of the "ui" service.
func New(cfg Config) func(h *supervisor.Handle) actor.Actor {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Redraw <= 0 {
		cfg.Redraw = 250 * time.Millisecond
	}
	if cfg.DecideTimeout <= 0 {
		cfg.DecideTimeout = 2 * time.Second
	}
	return func(h *supervisor.Handle) actor.Actor {
		return &Actor{h: h, cfg: cfg}
	}
}

// Actor is the ui service; exported only so its type shows in logs.
type Actor struct {
	h   *supervisor.Handle
	cfg Config
	st  *state

	system    *actor.ActorSystem
	self      *actor.PID
	stable    *actor.PID
	wg        sync.WaitGroup
	stopPress func()
	timer     *time.Timer
	img       *image.RGBA
	lastKey   string
	stopped   bool

	presses, decisions int
}

// Messages the actor sends itself.
type (
	pressed    struct{ p sim.Press }
	redraw     struct{}
	decideDone struct {
		d   approvals.Decide
		res approvals.DecideResult
		err error
	}
)

// Receive handles the lifecycle, the other services' events and presses.
func (a *Actor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		a.start(c)
	case *actor.Stopping:
		a.stopped = true
		if a.timer != nil {
			a.timer.Stop()
		}
		if a.stopPress != nil {
			a.stopPress() // closes the channel: the forwarder ends
		}
		for _, svc := range []string{"approvals", "buddy", "ble"} {
			c.Send(supervisor.ServicePID(a.system, svc), unsubscribe(svc, a.stable))
		}
	case *actor.Stopped:
		a.wg.Wait()
	case pressed:
		a.press(c, m.p)
	case decideDone:
		if m.err != nil || !m.res.OK {
			a.st.refused(m.d)
			a.h.Logger().Warn("press not taken", "id", m.d.ID, "decision", m.d.Decision.String(), "err", m.err, "reason", m.res.Err)
		}
		a.draw()
	case redraw:
		a.draw()
		a.arm()
	case GetView, *GetView:
		c.Respond(View{Prompts: append([]approvals.PromptView(nil), a.st.prompts...), Screen: a.screen(),
			Link: a.st.link, Presses: a.presses, Decisions: a.decisions})
	case supervisor.Reload, *supervisor.Reload:
		a.h.Logger().Info("reload: nothing to re-read")
	default:
		a.st.apply(deref(m))
		a.describe()
		a.draw()
	}
}

func (a *Actor) start(c actor.Context) {
	a.st = newState()
	a.system, a.self = c.ActorSystem(), c.Self()
	a.stable = supervisor.ServicePID(a.system, a.h.Name())
	c.Send(supervisor.ServicePID(a.system, "approvals"), approvals.Subscribe{PID: a.stable})
	c.Send(supervisor.ServicePID(a.system, "buddy"), abuddy.Subscribe{PID: a.stable})
	c.Send(supervisor.ServicePID(a.system, "ble"), ableactor.Subscribe{PID: a.stable})
	if a.cfg.Buttons != nil {
		ch, stop := a.cfg.Buttons.Subscribe(16)
		a.stopPress = stop
		system, self := a.system, a.self
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			for p := range ch {
				system.Root.Send(self, pressed{p})
			}
		}()
	}
	if a.cfg.Display != nil {
		a.img = image.NewRGBA(a.cfg.Display.Bounds())
	}
	a.describe()
	a.draw()
	a.arm()
}

func unsubscribe(svc string, pid *actor.PID) any {
	switch svc {
	case "approvals":
		return approvals.Unsubscribe{PID: pid}
	case "buddy":
		return abuddy.Unsubscribe{PID: pid}
	}
	return ableactor.Unsubscribe{PID: pid}
}

// deref lets the events arrive as values or pointers.
func deref(m any) any {
	switch m := m.(type) {
	case *approvals.Pending:
		return *m
	case *approvals.PromptAppeared:
		return *m
	case *approvals.PromptDecided:
		return *m
	case *approvals.PromptRearmed:
		return *m
	case *approvals.PromptResolved:
		return *m
	case *ableactor.LinkState:
		return *m
	case *abuddy.State:
		return *m
	}
	return m
}

// press sends the decision and waits for approvals' answer off the
// actor, so a slow or restarting approvals never blocks the screen.
func (a *Actor) press(c actor.Context, p sim.Press) {
	a.presses++
	d, ok := a.st.press(p)
	if !ok {
		a.h.Logger().Info("press with no prompt to decide: nothing sent", "button", p.Name, "long", p.Long)
		return
	}
	a.decisions++
	a.h.Logger().Info("press", "button", p.Name, "id", d.ID, "decision", d.Decision.String())
	a.draw() // "sent..." at once
	f := c.RequestFuture(supervisor.ServicePID(a.system, "approvals"), d, a.cfg.DecideTimeout)
	system, self := a.system, a.self
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		var done decideDone
		done.d = d
		r, err := f.Result()
		done.err = err
		if res, ok := r.(approvals.DecideResult); ok {
			done.res = res
		}
		system.Root.Send(self, done)
	}()
}

func (a *Actor) arm() {
	if a.stopped {
		return
	}
	system, self := a.system, a.self
	a.timer = time.AfterFunc(a.cfg.Redraw, func() { system.Root.Send(self, redraw{}) })
}

func (a *Actor) screen() sim.StatusScreen {
	var svcs []sim.Service
	if a.cfg.Services != nil {
		svcs = a.cfg.Services()
	}
	return a.st.screen(a.cfg.Board, svcs, a.cfg.Now())
}

// draw renders the screen if what it shows changed.
func (a *Actor) draw() {
	if a.cfg.Display == nil || a.stopped {
		return
	}
	sc := a.screen()
	if k := sc.Key(); k != a.lastKey {
		sc.Render(a.img)
		_ = a.cfg.Display.Draw(a.img.Bounds(), a.img, image.Point{})
		a.lastKey = k
	}
}

func (a *Actor) describe() {
	n := len(a.st.prompts)
	switch n {
	case 0:
		a.h.SetDescription("sim status screen · no prompt pending")
	case 1:
		a.h.SetDescription("sim status screen · 1 prompt: A approve, B deny")
	default:
		a.h.SetDescription("sim status screen · " + strconv.Itoa(n) + " prompts, oldest first")
	}
}
