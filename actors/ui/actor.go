package ui

import (
	"context"
	"errors"
	"fmt"
	"image"
	"net"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/dock"
	"github.com/claude-pi/claude-pi/actors/ui/screens"
	"github.com/claude-pi/claude-pi/drivers/audio"
	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
	"github.com/claude-pi/claude-pi/supervisor"
)

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
	closeDevs  func() error // what Config.Open opened; nil when nothing
	gen        uint64
	stopped    bool
	charName   string
	loading    bool
	// pack is the loaded character pack, nil when none (or it did not
	// load); drawn when the species says so (pickCharacter).
	pack     screens.Character
	packName string
	// prefsSeq numbers the settings saves; savedSeq (under saveMu) is the
	// newest one written, so a slower older save never overwrites it.
	prefsSeq uint64
	saveMu   sync.Mutex
	savedSeq uint64

	stats Stats // counted here, asked with GetStats
	// dirty: the state changed since the last frame; redrawQueued: a
	// redraw message is in the mailbox, or stopPace's timer will send
	// one; lastFrame: when the last frame was drawn, on the real clock
	// (see redrawSoon); chime is the prompt chime the next frame plays.
	dirty, redrawQueued bool
	stopPace            func() bool
	lastFrame           time.Time
	chime               *audio.Chime
	drawn               Screen // what the last refresh showed: View.Screen
	drawnPersona        string // the character's state in it: View.Persona
	drawnPage           int    // and its page
	// upd is the last reading of the update status for the System page
	// (system.go), nil before one; updReading: one is under way.
	upd        *updatesRead
	updReading bool
	// setAside is the last listing of set-aside files (setaside.go) and
	// setAsideRead when it was read.
	setAside     []statefile.Damage
	setAsideRead time.Time
}

func (a *Actor) start(c actor.Context) {
	if open := a.cfg.Open; open != nil {
		devs, err := open()
		if err != nil {
			a.h.Fail(err)
			return // a.st stays nil: nothing else is handled
		}
		a.closeDevs = devs.Close
		a.cfg.Display, a.cfg.Input = devs.Display, devs.Input
		if devs.Audio != nil {
			a.cfg.Audio = devs.Audio
		}
	}
	now := a.cfg.Now()
	_, hasNext := findRole(a.cfg.Roles, RoleNext)
	_, hasBack := findRole(a.cfg.Roles, RoleBack)
	a.st = newState(now, a.cfg.ScreenTimeout, hasNext && hasBack)
	a.loadPrefs(now)
	a.system, a.self = c.ActorSystem(), c.Self()
	a.stable = supervisor.ServicePID(a.system, a.h.Name())
	a.quit = make(chan struct{})
	if a.cfg.LAN != "" {
		a.st.lanOn = true
	}
	a.st.updatesOn = a.cfg.Updates != nil
	for _, svc := range a.publishers() {
		c.Send(supervisor.ServicePID(a.system, svc), supervisor.Subscribe{PID: a.stable})
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
		_, a.paint.dimmable = d.(Dimmer)
		a.applyBrightness()
	}
	system, self := a.system, a.self
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
	a.refresh()
}

func (a *Actor) closeDevices() {
	if a.closeDevs == nil {
		return
	}
	if err := a.closeDevs(); err != nil {
		a.h.Logger().Warn("closing the board", "board", a.cfg.Board, "err", err)
	}
	a.closeDevs = nil
}

func (a *Actor) stop(c actor.Context) {
	a.stopped = true
	if a.stopTimer != nil {
		a.stopTimer()
	}
	if a.stopPace != nil {
		a.stopPace()
	}
	if a.quit != nil {
		close(a.quit)
	}
	if a.cancel != nil {
		a.cancel()
	}
	for _, svc := range a.publishers() {
		c.Send(supervisor.ServicePID(a.system, svc), supervisor.Unsubscribe{PID: a.stable})
	}
}

// publishers are the services whose events the screen shows: each
// answers Subscribe with its current state and then sends every change.
func (a *Actor) publishers() []string {
	svcs := []string{approvals.ServiceName, buddyactor.ServiceName, bleactor.ServiceName, dock.ServiceName}
	if a.cfg.LAN != "" {
		svcs = append(svcs, a.cfg.LAN)
	}
	return svcs
}

func findRole(roles map[string]Role, r Role) (string, bool) {
	for name, rr := range roles {
		if rr == r {
			return name, true
		}
	}
	return "", false
}

// refresh renders the screen, sends the damaged rectangles to the
// display, and schedules the next frame or the timeout.
func (a *Actor) refresh() {
	if a.stopped {
		return
	}
	now := a.cfg.Now()
	a.dirty, a.lastFrame = false, time.Now()
	if a.chime != nil {
		a.play(*a.chime) // with the frame that shows why
		a.chime = nil
	}
	if n := a.st.takeNap(); n != nil {
		a.h.Logger().Debug("the screen slept: a nap for the pet", "seconds", int(n.End.Sub(n.Start)/time.Second))
		a.system.Root.Send(supervisor.ServicePID(a.system, buddyactor.ServiceName), *n)
	}
	a.pickCharacter()
	a.st.settle(now)
	sc := a.st.screen()
	if sc == ScreenInfo && a.st.page == a.st.systemPage() {
		a.readUpdates(now, a.drawn != sc || a.drawnPage != a.st.page)
	}
	a.drawn, a.drawnPersona, a.drawnPage = sc, a.st.persona(now).String(), a.st.page
	a.describe()
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
	f := facts{board: a.cfg.Board, version: a.cfg.Version, device: a.cfg.Device, started: a.cfg.Started, updates: a.upd}
	if sc == ScreenInfo || sc == ScreenHome {
		if sc == ScreenInfo {
			f.addrs = a.cfg.Addrs()
			if a.st.page == a.st.systemPage() {
				f.setAside = a.setAsideCopies(now)
			}
		}
		if a.cfg.Services != nil {
			f.services = a.cfg.Services() // home: which service is down
		}
	}
	again := a.paint.paint(a.next, a.st, sc, f, now)
	a.stats.Frames++
	dmg := screens.Damage(a.prev, a.next)
	a.stats.LastDamage = dmg
	for _, r := range dmg {
		if err := a.cfg.Display.Draw(r, a.next, r.Min); err != nil {
			a.h.Logger().Warn("display draw", "err", err, "rect", r)
			// The panel is unknown now: the next frame is sent whole.
			a.prev = nil
			return again
		}
		a.stats.Draws++
		a.stats.Pixels += r.Dx() * r.Dy()
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

// loadPack loads the installed pack off the actor.
func (a *Actor) loadPack() {
	if a.cfg.DataDir == "" || a.paint == nil || a.loading {
		return
	}
	a.loading = true
	dir := PackDir(a.cfg.DataDir)
	system, self, quit := a.system, a.self, a.quit
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		ch, name, err := LoadPack(dir)
		select {
		case <-quit:
			// Stopping ran while the pack loaded: nobody is left to
			// show it, and a send now would be a dead letter.
			return
		default:
		}
		system.Root.Send(self, packLoaded{ch, name, err})
	}()
}

func (a *Actor) packLoaded(m packLoaded) {
	a.loading = false
	switch {
	case errors.Is(m.err, errNoPack):
		a.pack, a.packName = nil, ""
	case m.err != nil:
		a.h.Logger().Warn("character pack not loaded: showing the built-in character", "err", m.err)
		a.pack, a.packName = nil, ""
	default:
		if m.name == "" {
			m.name = "pack"
		}
		a.pack, a.packName = m.char, m.name
		a.h.Logger().Info("character pack loaded", "name", m.name)
	}
	a.charName = "" // pickCharacter draws it anew
	a.refresh()
}

// pickCharacter draws the species chosen (by the desktop's species
// command or the settings page): a built-in, or the loaded pack for the
// pack's species and, when nobody chose, whenever a pack is loaded.
func (a *Actor) pickCharacter() {
	if a.paint == nil {
		return
	}
	sp := a.st.species()
	var c screens.Character
	name := ""
	switch {
	case sp >= 0 && sp < len(screens.Species):
		c, name = &screens.BuiltIn{Species: sp}, screens.Species[sp]
	case a.pack != nil:
		c, name = a.pack, a.packName
	default:
		c, name = &screens.BuiltIn{}, screens.Species[0]
	}
	if name == a.charName {
		return
	}
	a.paint.char, a.charName = c, name
	a.paint.r.Character = c
	a.paint.personaSince = time.Time{}
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
