package ui

import (
	"context"
	"errors"
	"fmt"
	"image"
	"net"
	"reflect"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	ableactor "github.com/claude-pi/claude-pi/actors/ble"
	abuddy "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/dock"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/actors/ui/screens"
	"github.com/claude-pi/claude-pi/drivers/audio"
	"github.com/claude-pi/claude-pi/supervisor"
)

// dockEvery is how often the dock is asked for its state while the screen
// is on: it publishes no events, and its icon may lag this much.
const dockEvery = 5 * time.Second

// Actor is the ui service; exported only so its type shows in logs.
type Actor struct {
	h   *supervisor.Handle
	cfg Config
	st  *state

	system *actor.ActorSystem
	self   *actor.PID
	stable *actor.PID
	wg     sync.WaitGroup
	quit   chan struct{} // closed on Stopping: the forwarders end
	cancel context.CancelFunc
	chimes chan audio.Chime

	paint      *painter
	prev, next *image.RGBA // what the panel shows; the frame being drawn
	asleep     bool        // the Sleeper display was put to sleep
	offDrawn   bool        // the black frame of a screen without Sleep is up
	stopTimer  func() bool
	stopDock   func() bool
	stopLAN    func() bool
	lanMisses  int // lan polls unanswered in a row
	gen        uint64
	stopped    bool
	charName   string
	loading    bool

	presses, decisions    int
	frames, draws, pixels int
	lastDamage            []image.Rectangle
}

func (a *Actor) start(c actor.Context) {
	now := a.cfg.Now()
	_, hasNext := findRole(a.cfg.Roles, RoleNext)
	_, hasBack := findRole(a.cfg.Roles, RoleBack)
	a.st = newState(now, a.cfg.ScreenTimeout, hasNext && hasBack)
	a.system, a.self = c.ActorSystem(), c.Self()
	a.stable = supervisor.ServicePID(a.system, a.h.Name())
	a.quit = make(chan struct{})
	a.charName = "built-in"
	for _, svc := range []string{approvals.ServiceName, abuddy.ServiceName, ableactor.ServiceName} {
		c.Send(supervisor.ServicePID(a.system, svc), subscribe(svc, a.stable))
	}
	if d := a.cfg.Display; d != nil {
		b := d.Bounds()
		r, err := screens.NewRenderer(b.Dx(), b.Dy())
		if err != nil {
			a.h.Fail(fmt.Errorf("display %s: %w", d, err))
			return
		}
		a.paint = &painter{r: r, char: &screens.BuiltIn{}, lg: legendOf(a.cfg.Roles)}
		r.Character = a.paint.char
		a.next = r.NewFrame()
	}
	system, self := a.system, a.self
	if b := a.cfg.Buttons; b != nil {
		ch, stop := b.Subscribe(16)
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			defer stop()
			for {
				select {
				case p, ok := <-ch:
					if !ok {
						return
					}
					system.Root.Send(self, pressed{p.Name, p.Long, p.Hold})
				case <-a.quit:
					return
				}
			}
		}()
	}
	if src := a.cfg.Input; src != nil {
		ch := src.Events()
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			for {
				select {
				case e, ok := <-ch:
					if !ok {
						return
					}
					system.Root.Send(self, pressed{e.Name, e.Long, e.Held})
				case <-a.quit:
					return // the source belongs to the board: not closed here
				}
			}
		}()
	}
	if p := a.cfg.Audio; p != nil {
		ctx, cancel := context.WithCancel(context.Background())
		a.cancel = cancel
		a.chimes = make(chan audio.Chime, 4)
		a.wg.Add(1)
		go a.player(ctx, p, a.chimes)
	}
	a.askDock(c)
	if a.cfg.LAN != "" {
		a.st.lanOn = true
		a.askLAN(c)
	}
	a.refresh()
}

func (a *Actor) stop(c actor.Context) {
	a.stopped = true
	if a.stopTimer != nil {
		a.stopTimer()
	}
	if a.stopDock != nil {
		a.stopDock()
	}
	if a.stopLAN != nil {
		a.stopLAN()
	}
	if a.quit != nil {
		close(a.quit)
	}
	if a.cancel != nil {
		a.cancel()
	}
	for _, svc := range []string{approvals.ServiceName, abuddy.ServiceName, ableactor.ServiceName} {
		c.Send(supervisor.ServicePID(a.system, svc), unsubscribe(svc, a.stable))
	}
}

func findRole(roles map[string]Role, r Role) (string, bool) {
	for name, rr := range roles {
		if rr == r {
			return name, true
		}
	}
	return "", false
}

func subscribe(svc string, pid *actor.PID) any {
	switch svc {
	case approvals.ServiceName:
		return approvals.Subscribe{PID: pid}
	case abuddy.ServiceName:
		return abuddy.Subscribe{PID: pid}
	}
	return ableactor.Subscribe{PID: pid}
}

func unsubscribe(svc string, pid *actor.PID) any {
	switch svc {
	case approvals.ServiceName:
		return approvals.Unsubscribe{PID: pid}
	case abuddy.ServiceName:
		return abuddy.Unsubscribe{PID: pid}
	}
	return ableactor.Unsubscribe{PID: pid}
}

func derefMore(m any) any {
	switch m := m.(type) {
	case *abuddy.State:
		return *m
	case *dock.State:
		return *m
	case *lan.State:
		return *m
	}
	return m
}

// refresh renders the screen, sends the damaged rectangles to the
// display, and schedules the next frame or the timeout.
func (a *Actor) refresh() {
	if a.stopped {
		return
	}
	now := a.cfg.Now()
	a.st.settle(now)
	sc := a.st.screen()
	a.describe()
	if a.st.on && a.stopDock == nil {
		system, self := a.system, a.self
		a.stopDock = a.cfg.AfterFunc(dockEvery, func() { system.Root.Send(self, dockTick{}) })
	}
	var again time.Duration
	if a.paint != nil {
		again = a.render(sc, now)
	}
	if at := a.st.offAt(); !at.IsZero() {
		if d := max(at.Sub(now), time.Millisecond); again == 0 || d < again {
			again = d
		}
	}
	a.arm(again)
}

// render draws sc and returns when the picture changes by itself.
func (a *Actor) render(sc Screen, now time.Time) time.Duration {
	sleeper, _ := a.cfg.Display.(Sleeper)
	if sc == ScreenOff && sleeper != nil {
		if !a.asleep {
			if err := sleeper.Sleep(); err != nil {
				a.h.Logger().Warn("display sleep", "err", err)
			}
			a.asleep = true
		}
		return 0
	}
	if a.asleep {
		if err := sleeper.Wake(); err != nil {
			a.h.Logger().Warn("display wake", "err", err)
		}
		a.asleep = false
	}
	if sc == ScreenOff && a.offDrawn {
		return 0 // black already: nothing redraws while the screen is off
	}
	a.offDrawn = sc == ScreenOff
	f := facts{board: a.cfg.Board, version: a.cfg.Version, started: a.cfg.Started}
	if sc == ScreenInfo {
		f.addrs = a.cfg.Addrs()
		if a.cfg.Services != nil {
			f.services = a.cfg.Services()
		}
	}
	again := a.paint.paint(a.next, a.st, sc, f, now)
	a.frames++
	dmg := screens.Damage(a.prev, a.next)
	a.lastDamage = dmg
	for _, r := range dmg {
		if err := a.cfg.Display.Draw(r, a.next, r.Min); err != nil {
			a.h.Logger().Warn("display draw", "err", err, "rect", r)
			// The panel is unknown now: the next frame is sent whole.
			a.prev = nil
			return again
		}
		a.draws++
		a.pixels += r.Dx() * r.Dy()
	}
	if a.prev == nil {
		a.prev = a.paint.r.NewFrame()
	}
	a.prev, a.next = a.next, a.prev
	return again
}

// arm replaces the frame timer. The generation makes a tick that raced
// with its replacement harmless.
func (a *Actor) arm(d time.Duration) {
	if a.stopTimer != nil {
		a.stopTimer()
		a.stopTimer = nil
	}
	a.gen++
	if d <= 0 || a.stopped {
		return
	}
	system, self, gen := a.system, a.self, a.gen
	a.stopTimer = a.cfg.AfterFunc(d, func() { system.Root.Send(self, tick{gen}) })
}

// askDock asks the dock for its state (it publishes none) and schedules
// the next question while the screen is on.
func (a *Actor) askDock(c actor.Context) {
	if a.stopped {
		return
	}
	f := c.RequestFuture(supervisor.ServicePID(a.system, dock.ServiceName), dock.GetState{}, time.Second)
	c.ReenterAfter(f, func(res any, err error) {
		if s, ok := res.(dock.State); ok && err == nil {
			a.event(s)
		}
	})
	if a.stopDock != nil {
		a.stopDock()
		a.stopDock = nil
	}
	if a.st.on {
		system, self := a.system, a.self
		a.stopDock = a.cfg.AfterFunc(dockEvery, func() { system.Root.Send(self, dockTick{}) })
	}
}

// lanAsk bounds one question to the lan: it answers from its mailbox, so
// anything slower means it is busy or restarting.
const lanAsk = 200 * time.Millisecond

// askLAN asks the lan for its state (it publishes none); the answer, or
// its absence, arms the next question.
func (a *Actor) askLAN(c actor.Context) {
	if a.stopped || a.cfg.LAN == "" {
		return
	}
	f := c.RequestFuture(supervisor.ServicePID(a.system, a.cfg.LAN), lan.GetState{}, lanAsk)
	c.ReenterAfter(f, func(res any, err error) {
		defer a.armLAN()
		st, ok := res.(lan.State)
		if p, isPtr := res.(*lan.State); isPtr && p != nil {
			st, ok = *p, true
		}
		if err != nil || !ok {
			// A lan that stopped answering must not leave its pairing
			// code on the screen, nor its sessions in the counts.
			if a.lanMisses++; a.lanMisses == 3 && a.st.lan != nil {
				a.h.Logger().Warn("lan not answering: its pairing and sessions are hidden", "service", a.cfg.LAN, "err", err)
				a.st.lan = nil
				a.refresh()
			}
			return
		}
		a.lanMisses = 0
		if a.st.lan != nil && reflect.DeepEqual(*a.st.lan, st) {
			return // nothing to redraw
		}
		a.event(st)
	})
}

// armLAN replaces the lan poll timer: every second while the screen is
// on, every 250 ms while a pairing shows, every 3 s while off so a
// pairing request still wakes it. Replacing, not adding, keeps one chain
// of polls when a press asks out of turn.
func (a *Actor) armLAN() {
	if a.stopped {
		return
	}
	if a.stopLAN != nil {
		a.stopLAN()
	}
	every := time.Second
	switch {
	case a.st.pairing() != nil:
		// The user is pairing: the code must leave the screen as soon as
		// the computer confirms, and the first prompt is right behind it.
		every = 250 * time.Millisecond
	case !a.st.on:
		every = 3 * time.Second
	}
	system, self := a.system, a.self
	a.stopLAN = a.cfg.AfterFunc(every, func() { system.Root.Send(self, lanTick{}) })
}

// loadPack loads the installed pack off the actor.
func (a *Actor) loadPack() {
	if a.cfg.DataDir == "" || a.paint == nil || a.loading {
		return
	}
	a.loading = true
	dir := PackDir(a.cfg.DataDir)
	system, self := a.system, a.self
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		ch, name, err := LoadPack(dir)
		system.Root.Send(self, packLoaded{ch, name, err})
	}()
}

func (a *Actor) packLoaded(m packLoaded) {
	a.loading = false
	switch {
	case errors.Is(m.err, errNoPack):
		a.paint.char, a.charName = &screens.BuiltIn{}, "built-in"
	case m.err != nil:
		a.h.Logger().Warn("character pack not loaded: showing the built-in character", "err", m.err)
		a.paint.char, a.charName = &screens.BuiltIn{}, "built-in"
	default:
		if m.name == "" {
			m.name = "pack"
		}
		a.paint.char, a.charName = m.char, m.name
		a.h.Logger().Info("character pack loaded", "name", m.name)
	}
	a.paint.r.Character = a.paint.char
	a.paint.personaSince = time.Time{}
	a.refresh()
}

func (a *Actor) describe() {
	n := len(a.st.prompts)
	switch {
	case n == 1:
		a.h.SetDescription(fmt.Sprintf("%s · 1 prompt", a.st.screen()))
	case n > 1:
		a.h.SetDescription(fmt.Sprintf("%s · %d prompts, oldest first", a.st.screen(), n))
	default:
		a.h.SetDescription(fmt.Sprintf("%s · no prompt pending", a.st.screen()))
	}
}

// hostAddrs lists the machine's global unicast addresses.
func hostAddrs() []string {
	as, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []string
	for _, a := range as {
		if n, ok := a.(*net.IPNet); ok && n.IP.IsGlobalUnicast() {
			out = append(out, n.IP.String())
		}
	}
	return out
}
