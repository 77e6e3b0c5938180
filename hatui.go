package main

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"periph.io/x/conn/v3/display"
	"periph.io/x/conn/v3/gpio"

	"github.com/claude-pi/claude-pi/actors/absent"
	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/drivers/audio"
	"github.com/claude-pi/claude-pi/drivers/input"
	"github.com/claude-pi/claude-pi/supervisor"
)

// hatDevices is a HAT's display, buttons and amplifier pin, opened.
type hatDevices struct {
	// Display is the panel itself, not a wrapper, so the ui can see that
	// it sleeps (st7789.Dev); nil when the board has none.
	Display display.Drawer
	Input   input.Source // nil when the board has no buttons
	Amp     gpio.PinOut  // nil when nothing enables the amplifier
	Close   func() error
}

// hatOpener opens a board's devices; openHAT on a Pi, a fake in tests.
type hatOpener func(boards.Profile) (hatDevices, error)

// openHAT opens the real devices through boards.Open.
func openHAT(p boards.Profile) (hatDevices, error) {
	hw, err := boards.Open(p, nil)
	if err != nil {
		return hatDevices{}, err
	}
	// Copied field by field: a nil *st7789.Dev in an interface is not nil.
	d := hatDevices{Amp: hw.Amp, Close: hw.Close}
	if hw.Display != nil {
		d.Display = hw.Display
	}
	if hw.Buttons != nil {
		d.Input = hw.Buttons
	}
	return d, nil
}

// audioDevice is the ALSA device the board's chimes play on.
func audioDevice(p boards.Profile) string {
	if p.Audio != nil && p.Audio.Device != "" {
		return p.Audio.Device
	}
	return "default"
}

// hatPlayer plays the ui's chimes on the board's sound device, raising
// the amplifier pin (if any) only while one plays.
func hatPlayer(p boards.Profile, amp gpio.PinOut) audio.Player {
	return &audio.Aplay{Device: audioDevice(p), Amp: amp}
}

// uiRoles maps the board's buttons to the ui's roles.
func uiRoles(p boards.Profile) map[string]ui.Role {
	roles := make(map[string]ui.Role, len(p.Buttons))
	for _, b := range p.Buttons {
		if b.Role != boards.RoleNone {
			roles[b.Name] = ui.Role(b.Role)
		}
	}
	return roles
}

// hatAudio is the audio service on a HAT board. The chimes are the ui's
// (it knows when a prompt arrives), so this service only says where they
// go; it becomes real when something else needs the speaker.
func hatAudio(p boards.Profile) func(*supervisor.Handle) actor.Actor {
	return absent.New(fmt.Sprintf("chimes play through the ui service on aplay -D %s", audioDevice(p)))
}

// hatUI is the ui service on a HAT board. It opens the hardware in each
// incarnation's Started, so an unusable board (SPI off, no GPIO access)
// fails the ui service with the driver's message and the fix in it, and
// supervisorctl shows it as FATAL after the retries, while the link and
// the dock run on. Once open, the ui actor drives the panel, the buttons
// by the profile's roles, and aplay on the board's sound device; cfg gives
// the rest (board name, data dir, version, clocks in tests).
func hatUI(p boards.Profile, open hatOpener, cfg ui.Config) func(*supervisor.Handle) actor.Actor {
	if cfg.Started.IsZero() {
		cfg.Started = time.Now() // the appliance's start, not each incarnation's
	}
	return func(h *supervisor.Handle) actor.Actor {
		return &hatUIActor{h: h, profile: p, open: open, cfg: cfg}
	}
}

// hatUIActor wraps the ui actor; see hatUI.
type hatUIActor struct {
	h       *supervisor.Handle
	profile boards.Profile
	open    hatOpener
	cfg     ui.Config

	inner actor.Actor
	close func() error
}

// Receive opens the hardware before the ui starts and closes it after the
// ui stopped; everything else is the ui's.
func (a *hatUIActor) Receive(c actor.Context) {
	switch c.Message().(type) {
	case *actor.Started:
		if err := a.start(); err != nil {
			a.h.Fail(err)
			return
		}
	case *actor.Stopped:
		if a.inner != nil {
			// The ui's Stopped waits for its goroutines, so nothing reads
			// the buttons or drives the panel once it returns.
			a.inner.Receive(c)
		}
		if a.close != nil {
			if err := a.close(); err != nil {
				a.h.Logger().Warn("closing the board", "board", a.profile.Name, "err", err)
			}
		}
		return
	}
	if a.inner != nil {
		a.inner.Receive(c)
	}
}

func (a *hatUIActor) start() error {
	devs, err := a.open(a.profile)
	if err != nil {
		return err
	}
	a.close = devs.Close
	cfg := a.cfg
	cfg.Display, cfg.Input, cfg.Roles = devs.Display, devs.Input, uiRoles(a.profile)
	if cfg.Audio == nil { // a test's fake player stays
		cfg.Audio = hatPlayer(a.profile, devs.Amp)
	}
	a.inner = ui.New(cfg)(a.h)
	return nil
}
