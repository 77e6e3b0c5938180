// Package ui is the appliance's screen and buttons: the home screen with
// the character, the approval screen, the pairing code, the info pages and
// the pack-install progress, drawn by actors/ui/screens into any
// display.Drawer (the st7789 panel or the sim framebuffer), and the
// buttons mapped to roles by the board profile.
//
// The rules it fixes: approve and deny act on the prompt on the screen,
// the oldest one nobody has decided, and on nothing else (a press with no
// prompt sends nothing): on the prompt the last frame drew with its
// buttons before the button went down, never on one the state has but
// the panel has not shown yet; a prompt wakes the screen and overrides
// all but the pairing code; the screen goes off after 30 s without a
// press unless something waits on it, and the press that wakes it does
// nothing else; only damaged rectangles go to the display; frames are
// paced by timers at the animation's interval, frames for events at most
// one per FrameGap (the last one always drawn), and nothing runs while
// the screen is off.
// Forgetting the Bluetooth pairing takes two long presses on purpose, from
// the Links page only, never with a prompt up (forget.go).
// The pet's pages (pages.go): the stats (mood, energy, the fed bar) and
// the desktop's clock in the page cycle, and the settings page (sound,
// brightness, screen timeout, character) on a long press of approve on
// home, kept in ui.json (actors/ui/prefs); a prompt closes it and takes
// the buttons. The screen's sleep is the pet's nap (NapMin).
package ui

import (
	"context"
	"fmt"
	"image"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"periph.io/x/conn/v3/display"
	"periph.io/x/conn/v3/gpio"

	"github.com/claude-pi/claude-pi/actors/approvals"
	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	"github.com/claude-pi/claude-pi/actors/dock"
	"github.com/claude-pi/claude-pi/actors/ui/prefs"
	"github.com/claude-pi/claude-pi/actors/ui/screens"
	"github.com/claude-pi/claude-pi/drivers/audio"
	"github.com/claude-pi/claude-pi/drivers/input"
	"github.com/claude-pi/claude-pi/drivers/updates"
	"github.com/claude-pi/claude-pi/supervisor"
)

// ServiceName is the ui service's name in the supervision tree.
const ServiceName = "ui"

// Config is what the ui service drives and listens to.
type Config struct {
	Board string // the board name, for the info page
	// Display is the panel; nil draws nothing (tests of the logic). A
	// Drawer that also has Sleep() and Wake() (st7789.Dev) is put to sleep
	// when the screen times out; others get a black frame.
	Display display.Drawer
	// Input is the board's buttons: a HAT's GPIO, the sim's, or an
	// inputtest source; nil for none.
	Input input.Source
	// Open, if set, opens the devices in each incarnation's Started and
	// they are closed after its Stopped: an unusable board (SPI off, no
	// GPIO access) fails the ui service with the driver's message and
	// fix, and it goes FATAL after the retries while the others run on.
	// What it opens replaces Display and Input, and Audio unless nil.
	Open func() (Devices, error)
	// Roles maps button names to roles; nil means DefaultRoles. Without
	// next/back buttons, approve and deny page through info while no
	// prompt is shown.
	Roles map[string]Role
	// Audio plays the chimes; nil is silent.
	Audio audio.Player
	// DataDir holds the installed character pack (PackDir) and the
	// settings page's ui.json; "" means the built-in characters only and
	// settings that last until a restart.
	DataDir string
	// Version and Started are shown on the info page; "dev" and the time
	// New was called if zero.
	Version string
	Started time.Time
	// Device is the advertised Bluetooth name, which the forget screen
	// tells the user to pick on the computer; "" means Claude_Pi.
	Device string
	// LAN names the lan service (actors/lan) whose pairing requests,
	// paired computers and terminal sessions the screen shows; "" means
	// the appliance has no LAN bridge. The ui subscribes to it like to
	// the others, so a pairing code is drawn as soon as the lan has it.
	LAN string
	// Services lists the supervised services, for the info page and the
	// home screen's line naming a service that is down.
	Services func() []supervisor.ProcessInfo
	// Addrs lists the IP addresses for the info page; nil means the
	// machine's non-loopback addresses.
	Addrs func() []string
	// Updates reads what apt and unattended-upgrades left on disk
	// (updates.Read of "/" on the Pi) for the System page, before the
	// clock: when the updates last ran and whether a reboot waits. Nil
	// means no System page. It does file I/O, so the ui calls it in a
	// goroutine, only while the page shows: when it comes on and then
	// every UpdatesEvery (system.go).
	Updates func() (updates.Status, error)
	// Now is the clock; time.Now if nil. AfterFunc schedules f after d and
	// returns a stop function; time.AfterFunc if nil. Tests drive both.
	Now       func() time.Time
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// ScreenTimeout is how long the screen stays on without a press; 30 s
	// if zero. The settings page's choice, once made, replaces it.
	ScreenTimeout time.Duration
	// DecideTimeout bounds the wait for approvals to accept a press; 2 s
	// if zero. A press that times out shows the buttons again.
	DecideTimeout time.Duration
	// ForgetTimeout bounds the wait for the ble service to forget the
	// bonds (ScreenForget); 30 s if zero.
	ForgetTimeout time.Duration
	// FrameGap is the least time, on the real clock, between a frame and
	// the next one drawn for other services' events: a flood of prompts
	// or heartbeats changes the state thousands of times a second, and
	// each frame costs milliseconds of a Pi's CPU. The state is still
	// folded at once, and the frame after the gap shows the newest.
	// Presses and the animation's own frames are never held back.
	// DefaultFrameGap if zero; negative draws once per burst of queued
	// events.
	FrameGap time.Duration
}

// DefaultFrameGap is Config.FrameGap when zero: at most 30 frames a
// second for events, about what the ST7789 can show at its SPI clock.
const DefaultFrameGap = time.Second / 30

// Devices are what Config.Open opens: a board's panel, buttons and
// speaker, and what closes them.
type Devices struct {
	// Display is the panel itself, not a wrapper, so the ui can see that
	// it sleeps (st7789.Dev); nil when the board has none.
	Display display.Drawer
	Input   input.Source // nil when the board has no buttons
	Audio   audio.Player // nil: Config.Audio plays
	Close   func() error // nil when nothing needs closing
}

// DefaultScreenTimeout is Config.ScreenTimeout when zero.
const DefaultScreenTimeout = 30 * time.Second

// Dimmer is a display whose backlight dims (st7789.Dev): the settings
// page's brightness sets it.
type Dimmer interface {
	SetBrightness(gpio.Duty) error
}

// Sleeper is a display that can switch itself off (st7789.Dev).
type Sleeper interface {
	Sleep() error
	Wake() error
}

// GetView asks the ui for what it shows; it responds with a View.
type GetView struct{}

// View is the ui's current picture of the world, for tests and /api/state.
type View struct {
	Prompts []approvals.PromptView
	// Link is the last LinkState from the ble service, nil before one.
	Link   *bleactor.LinkState
	Screen Screen // the screen of the last frame drawn
	// Behind: the state changed since that frame, and the next one is
	// at most FrameGap away. The buttons act on the frame, so a script
	// that presses as a person would waits for this to clear.
	Behind  bool
	Page    int    // info page, 0 on home
	Persona string // the character's state when the last frame was drawn
	// Shown is the prompt the last frame showed, zero unless it was the
	// approval screen, and Tool its tool; the fields down to Hidden are
	// that frame's too. (Prompts is the state, which can be a frame ahead.)
	Shown        approvals.Prompt
	Tool         string
	Sent         bool // "sent…" instead of the legend
	Reconnecting bool // "reconnecting…" instead of the legend: the buttons do nothing
	// Source is the shown prompt's source line ("desktop", "CLI engine
	// · 9f3c2a10"), Subagent its subagent tag or "", Index and Of its
	// place in the queue ("1 of 3").
	Source, Subagent string
	Index, Of        int
	// ApprovalPage (0-based) of ApprovalPages is the page of the prompt
	// the approval screen drew last; Hidden: it showed the "contains
	// hidden characters" warning.
	ApprovalPage, ApprovalPages int
	Hidden                      bool
	// Card is the question card that frame drew ("question/card/toggles",
	// question.go), "" for a prompt that asks no question.
	Card string
	// Pairing is the LAN pairing code on the screen, "" when none;
	// PairingAccepted once approve was pressed for it.
	Pairing         string
	PairingAccepted bool
	// NewDock is the serial number (as drawn) of the CoreS3 asking to be
	// accepted, "" when none asks.
	NewDock string
	// Forget is the forget-pairing flow's step ("asking", "sending",
	// "done", "" when it is not on), Forgotten the ble service's answer
	// it shows when done.
	Forget    string
	Forgotten bleactor.BondsForgotten
	// Down is the last home frame's line naming a service that is not
	// RUNNING ("approvals down since 20:31"), "" when all run.
	Down string
	// Sessions is the session count on the home screen: the desktop's
	// and the terminals' together.
	Sessions  int
	Character string // the built-in species' name ("Pip"), or the pack's
	// Prefs are the settings in force (the page's, saved in ui.json);
	// SettingsRow is the settings page's cursor while it shows.
	Prefs       prefs.Prefs
	SettingsRow int
	// Species is the chosen character (actors/buddy.State.Species, or
	// the one just chosen on the settings page).
	Species int
}

// GetStats asks the ui for its counters; it responds with a Stats.
type GetStats struct{}

// Stats are the ui's counters since this incarnation started: what
// benchmarks, tests and scripts measure, apart from what the screen
// shows (View).
type Stats struct {
	// Presses counts the presses handled, Decisions those that sent a
	// decision (the rest had nothing to decide).
	Presses, Decisions int
	// Frames counts rendered frames; Draws and Pixels the Draw calls and
	// the pixels they covered; LastDamage is the last frame's rectangles.
	Frames, Draws, Pixels int
	LastDamage            []image.Rectangle
}

// New returns the supervisor.Service constructor of the "ui" service.
func New(cfg Config) func(h *supervisor.Handle) actor.Actor {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.AfterFunc == nil {
		cfg.AfterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	if cfg.ScreenTimeout <= 0 {
		cfg.ScreenTimeout = DefaultScreenTimeout
	}
	if cfg.DecideTimeout <= 0 {
		cfg.DecideTimeout = 2 * time.Second
	}
	if cfg.ForgetTimeout <= 0 {
		cfg.ForgetTimeout = defaultForgetTimeout
	}
	if cfg.FrameGap == 0 {
		cfg.FrameGap = DefaultFrameGap
	}
	if cfg.Roles == nil {
		cfg.Roles = DefaultRoles
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.Started.IsZero() {
		cfg.Started = cfg.Now()
	}
	if cfg.Addrs == nil {
		cfg.Addrs = hostAddrs
	}
	return func(h *supervisor.Handle) actor.Actor {
		return &Actor{h: h, cfg: cfg}
	}
}

// Messages the actor sends itself.
type (
	pressed struct {
		name string
		long bool
		held time.Duration // how long the button was down
	}
	tick       struct{ gen uint64 }
	redraw     struct{}
	packLoaded struct {
		char screens.Character
		name string
		err  error
	}
	prefsSaved struct {
		seq uint64
		err error
	}
)

// Receive handles the lifecycle, the other services' events and presses.
func (a *Actor) Receive(c actor.Context) {
	switch c.Message().(type) {
	case *actor.Started:
		a.start(c)
		return
	case *actor.Stopped:
		// The goroutines are gone once Wait returns: nothing reads the
		// buttons or drives the panel when the devices close.
		a.wg.Wait()
		a.closeDevices()
		return
	}
	if a.st == nil {
		return // the devices did not open; the supervisor restarts us
	}
	switch m := c.Message().(type) {
	case *actor.Stopping:
		a.stop(c)
	case pressed:
		a.press(c, m)
	case tick:
		wasOn := a.st.on
		a.st.tick(a.cfg.Now())
		if m.gen != a.gen && a.st.on == wasOn {
			// A timer that fired while being replaced: its frame is the
			// new timer's. It still turns the screen off when due, since
			// the replacement may be armed just past that moment.
			return
		}
		a.refresh()
	case redraw:
		a.redrawQueued, a.stopPace = false, nil
		if a.dirty {
			a.refresh() // unless a press or a tick drew the newest already
		}
	case packLoaded:
		a.packLoaded(m)
	case prefsSaved:
		a.prefsSaved(m)
	case updatesRead:
		a.updatesRead(m)
	case GetView:
		c.Respond(a.view())
	case GetStats:
		st := a.stats
		st.LastDamage = append([]image.Rectangle(nil), st.LastDamage...)
		c.Respond(st)
	case supervisor.Reload:
		a.loadPack()
	default:
		a.event(m)
	}
}

// event folds another service's message into the state and performs the
// effects. The screen is redrawn once the events already queued are
// folded in too, and no sooner than FrameGap after the last frame
// (redrawSoon): heartbeats are snapshots, so a burst of them costs one
// frame and one chime, and a press behind them waits only for the
// folding, not for a frame per heartbeat. The state runs ahead of the
// panel meanwhile; the buttons act on what the panel shows (state.press).
func (a *Actor) event(m any) {
	before := a.st.buddy
	fx := a.st.apply(m, a.cfg.Now())
	for _, f := range fx {
		if ch, ok := f.(chime); ok {
			a.chime = &ch.c
		}
	}
	if b := a.st.buddy; b != nil && (before == nil || before.Pack != b.Pack || (before.Push != nil && b.Push == nil)) {
		a.loadPack() // a pack was installed, or the first State arrived
	}
	a.redrawSoon()
}

// redrawSoon marks the panel behind the state and queues one redraw,
// unless one is queued already: behind the messages in the mailbox, and
// FrameGap after the last frame if that is later. Whatever frame comes
// first (a press's, a tick's, the redraw's) shows the newest state.
func (a *Actor) redrawSoon() {
	a.dirty = true
	if a.redrawQueued || a.system == nil || a.stopped {
		return
	}
	a.redrawQueued = true
	system, self := a.system, a.self
	if wait := a.cfg.FrameGap - time.Since(a.lastFrame); wait > 0 {
		a.stopPace = time.AfterFunc(wait, func() { system.Root.Send(self, redraw{}) }).Stop
		return
	}
	system.Root.Send(self, redraw{})
}

// press maps a button to its role and sends the decision it makes, off
// the actor: a slow or restarting approvals never blocks the screen.
func (a *Actor) press(c actor.Context, p pressed) {
	a.stats.Presses++
	now := a.cfg.Now()
	role, known := a.cfg.Roles[p.name]
	if m, ok := a.st.pairPress(role, p.long, now.Add(-p.held), now); known && ok {
		a.h.Logger().Info("pairing answered", "button", p.name, "long", p.long, "answer", fmt.Sprintf("%T", m))
		c.Send(supervisor.ServicePID(a.system, a.cfg.LAN), m)
		a.refresh()
		return
	}
	if m, ok := a.st.dockPress(role, p.long, now.Add(-p.held), now); known && ok {
		a.h.Logger().Info("new dock answered", "button", p.name, "long", p.long, "answer", fmt.Sprintf("%T", m))
		c.Send(supervisor.ServicePID(a.system, dock.ServiceName), m)
		a.refresh()
		return
	}
	if known {
		if send, ok := a.st.forgetPress(role, p.long, now.Add(-p.held), now); ok {
			a.forgetPressed(c, p.name, send)
			return
		}
		if fx, ok := a.st.settingsPress(role, p.long, now.Add(-p.held), now); ok {
			a.settingsPressed(fx)
			return
		}
	}
	if p.long || !known {
		// Long presses and unmapped buttons only count as interaction.
		if !a.st.on {
			a.st.wake(now)
		}
		a.st.lastActive = now
		a.refresh()
		return
	}
	wasOff := !a.st.on
	d, ok := a.st.press(role, now.Add(-p.held), now)
	if !ok {
		if wasOff {
			a.h.Logger().Info("press woke the screen and did nothing else", "button", p.name)
		} else {
			a.h.Logger().Debug("press sent no decision", "button", p.name, "role", string(role), "screen", string(a.st.screen()))
		}
		a.refresh()
		return
	}
	a.stats.Decisions++
	a.h.Logger().Info("press", "button", p.name, "id", d.ID, "decision", d.Decision.String())
	if d.Decision.Allows() {
		a.play(audio.ChimeApprove)
	} else {
		a.play(audio.ChimeDeny)
	}
	a.refresh() // "sent…" at once
	f := c.RequestFuture(supervisor.ServicePID(a.system, approvals.ServiceName), d, a.cfg.DecideTimeout)
	c.ReenterAfter(f, func(res any, err error) {
		r, _ := res.(approvals.DecideResult)
		if err != nil || !r.OK {
			a.st.refused(d)
			a.h.Logger().Warn("press not taken: the buttons are back", "id", d.ID, "decision", d.Decision.String(), "err", err, "reason", r.Err)
			a.refresh()
		}
	})
}

func (a *Actor) view() View {
	v := View{Prompts: append([]approvals.PromptView(nil), a.st.prompts...), Link: a.st.link,
		Screen: a.drawn, Behind: a.dirty, Page: a.st.page, Persona: a.drawnPersona,
		Character: a.charName, Prefs: a.st.prefs, Species: a.st.species()}
	if f := a.st.onScreen; f.screen == ScreenApproval {
		v.Shown, v.Tool, v.Sent, v.Reconnecting = f.prompt, f.prompt.Tool, f.sent, f.reconnecting
		v.Source, v.Subagent = sourceOf(f.prompt)
		v.Index, v.Of, v.Card = f.index+1, f.of, f.card
		if a.paint != nil {
			d := a.paint.approval
			v.ApprovalPage, v.ApprovalPages, v.Hidden = d.Page, d.Pages, d.Hidden
		}
	}
	if pr := a.st.pairing(); pr != nil {
		v.Pairing, v.PairingAccepted = pr.Code, pr.Accepted || a.st.pairAccepted == pr.Code
	}
	if nd := a.st.newDock(); nd != nil {
		v.NewDock = nd.Shown
	}
	v.Forget, v.Forgotten = a.st.forget.step.String(), a.st.forget.result
	if a.st.settings.open {
		v.SettingsRow = a.st.settings.cursor
	}
	v.Sessions = homeView(a.st, "", 0).Total
	if a.paint != nil && a.drawn == ScreenHome {
		v.Down = a.paint.down
	}
	return v
}

// play queues a chime; a full queue drops it rather than block the screen.
func (a *Actor) play(c audio.Chime) {
	if a.chimes == nil || a.st.prefs.Mute {
		return
	}
	select {
	case a.chimes <- c:
	default:
	}
}

// player plays the queued chimes one at a time until ctx ends.
func (a *Actor) player(ctx context.Context, p audio.Player, ch <-chan audio.Chime) {
	defer a.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-ch:
			pcm, err := audio.Synthesize(c)
			if err == nil {
				err = p.Play(ctx, pcm)
			}
			if err != nil && ctx.Err() == nil {
				a.h.Logger().Warn("chime not played", "chime", c.String(), "err", err)
			}
		}
	}
}
