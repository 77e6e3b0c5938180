package main

import (
	"fmt"
	"image"
	"sync"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/boards/sim"
	"github.com/claude-pi/claude-pi/drivers/input"
	"github.com/claude-pi/claude-pi/supervisor"
)

// panel is the part of a display the ui's picture is copied to;
// *st7789.Dev is one.
type panel interface {
	Draw(r image.Rectangle, src image.Image, sp image.Point) error
}

// hatDevices is a HAT's display and buttons, opened.
type hatDevices struct {
	Panel   panel              // nil when the board has no display
	Presses <-chan input.Event // nil when it has no buttons
	Close   func() error
}

// hatOpener opens a board's devices; openHAT on a Pi, a fake in tests.
type hatOpener func(boards.Profile) (hatDevices, error)

// openHAT opens the real display and buttons through boards.Open.
func openHAT(p boards.Profile) (hatDevices, error) {
	hw, err := boards.Open(p, nil)
	if err != nil {
		return hatDevices{}, err
	}
	d := hatDevices{Close: hw.Close}
	if hw.Display != nil {
		d.Panel = hw.Display
	}
	if hw.Buttons != nil {
		d.Presses = hw.Buttons.Events()
	}
	return d, nil
}

// uiMaker builds the ui actor on a framebuffer and buttons.
type uiMaker func(fb *sim.Display, buttons *sim.Buttons) func(*supervisor.Handle) actor.Actor

// hatUI is the ui service on a HAT board. It opens the hardware in each
// incarnation's Started, so an unusable board (SPI off, no GPIO access)
// fails the ui service with the driver's message and the fix in it, and
// supervisorctl shows it as FATAL after the retries, while the link and
// the dock run on. Once open, the ui actor draws into a framebuffer of the
// panel's size, which is copied to the panel on every change, and the
// board's approve and deny buttons press its A and B.
//
// The framebuffer stands between the two because the ui renders onto a
// *sim.Display today; when it takes any draw target, the copy goes.
func hatUI(p boards.Profile, open hatOpener, mk uiMaker) func(*supervisor.Handle) actor.Actor {
	return func(h *supervisor.Handle) actor.Actor {
		return &hatUIActor{h: h, profile: p, open: open, mk: mk}
	}
}

// hatUIActor wraps the ui actor; see hatUI.
type hatUIActor struct {
	h       *supervisor.Handle
	profile boards.Profile
	open    hatOpener
	mk      uiMaker

	inner actor.Actor
	devs  hatDevices
	done  chan struct{}
	wg    sync.WaitGroup
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
	case *actor.Stopping:
		if a.done != nil {
			close(a.done)
			a.done = nil
		}
	case *actor.Stopped:
		if a.inner != nil {
			a.inner.Receive(c)
		}
		a.wg.Wait()
		if a.devs.Close != nil {
			if err := a.devs.Close(); err != nil {
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
	fb, err := sim.NewDisplay(a.profile.Width, a.profile.Height)
	if err != nil {
		if devs.Close != nil {
			_ = devs.Close()
		}
		return fmt.Errorf("board %s: framebuffer: %w", a.profile.Name, err)
	}
	buttons := sim.NewButtons(sim.ButtonA, sim.ButtonB)
	a.devs, a.done = devs, make(chan struct{})
	if devs.Panel != nil {
		a.wg.Add(1)
		go a.mirror(fb, devs.Panel, a.done)
	}
	if devs.Presses != nil {
		a.wg.Add(1)
		go a.press(devs.Presses, buttons, a.done)
	}
	a.inner = a.mk(fb, buttons)(a.h)
	return nil
}

// mirror copies each new frame to the panel. Frames drawn while the panel
// is busy coalesce into the next copy, so a slow SPI bus drops frames
// rather than queueing them.
func (a *hatUIActor) mirror(fb *sim.Display, p panel, done <-chan struct{}) {
	defer a.wg.Done()
	var shown uint64
	for {
		changed := fb.Changed()
		img, v := fb.Snapshot()
		if v != shown {
			shown = v
			if err := p.Draw(img.Bounds(), img, image.Point{}); err != nil {
				a.h.Logger().Warn("drawing on the panel", "board", a.profile.Name, "err", err)
			}
		}
		select {
		case <-done:
			return
		case <-changed:
		}
	}
}

// press maps the board's buttons to the ui's by role: approve is A, deny
// is B. Next and back have no ui action yet and are only logged.
func (a *hatUIActor) press(events <-chan input.Event, buttons *sim.Buttons, done <-chan struct{}) {
	defer a.wg.Done()
	roles := map[string]string{}
	if b, ok := a.profile.Button(boards.RoleApprove); ok {
		roles[b.Name] = sim.ButtonA
	}
	if b, ok := a.profile.Button(boards.RoleDeny); ok {
		roles[b.Name] = sim.ButtonB
	}
	for {
		select {
		case <-done:
			return
		case e, ok := <-events:
			if !ok {
				return
			}
			name, mapped := roles[e.Name]
			if !mapped {
				a.h.Logger().Debug("button without a ui action", "button", e.Name)
				continue
			}
			if _, _, err := buttons.Press(name, min(e.Held, sim.MaxHold)); err != nil {
				a.h.Logger().Warn("button", "button", e.Name, "err", err)
			}
		}
	}
}
