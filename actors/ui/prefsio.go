package ui

import (
	"time"

	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/ui/prefs"
	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
	"github.com/claude-pi/claude-pi/supervisor"
	"periph.io/x/conn/v3/gpio"
)

// loadPrefs reads ui.json at start; a damaged one is set aside and the
// defaults used, so the screen works either way.
func (a *Actor) loadPrefs(now time.Time) {
	if a.cfg.DataDir == "" {
		return
	}
	p, dmg := prefs.Load(statefile.Dir{Path: a.cfg.DataDir, Now: func() time.Time { return now }})
	if dmg != nil {
		a.h.Logger().Error("settings not loaded: using the defaults", "err", dmg)
	}
	a.st.prefs = p
}

// settingsPressed performs what a press on the settings page asks.
func (a *Actor) settingsPressed(fx []any) {
	for _, f := range fx {
		switch f := f.(type) {
		case prefsChanged:
			a.h.Logger().Info("setting changed", "mute", f.p.Mute, "brightness", f.p.Percent(), "screen_off", f.p.Timeout(a.cfg.ScreenTimeout).String())
			a.applyBrightness()
			a.savePrefs(f.p)
		case chooseSpecies:
			a.h.Logger().Info("character chosen on the screen", "species", f.idx)
			a.system.Root.Send(supervisor.ServicePID(a.system, buddyactor.ServiceName), buddyactor.SetSpecies{Idx: f.idx})
		}
	}
	a.refresh()
}

// applyBrightness sets the backlight of a display that dims.
func (a *Actor) applyBrightness() {
	d, ok := a.cfg.Display.(Dimmer)
	if !ok {
		return
	}
	duty := gpio.Duty(int64(gpio.DutyMax) * int64(a.st.prefs.Percent()) / 100)
	if err := d.SetBrightness(duty); err != nil {
		a.h.Logger().Warn("setting the brightness", "err", err)
	}
}

// savePrefs writes p off the actor: an fsync on an SD card can take a
// tenth of a second, and a prompt's frame must not wait for it. Saves
// are numbered and a slower older one never overwrites a newer one.
func (a *Actor) savePrefs(p prefs.Prefs) {
	if a.cfg.DataDir == "" {
		return
	}
	a.prefsSeq++
	seq, dir := a.prefsSeq, a.cfg.DataDir
	system, self, quit := a.system, a.self, a.quit
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.saveMu.Lock()
		var err error
		if seq > a.savedSeq {
			if err = prefs.Save(statefile.Dir{Path: dir}, p); err == nil {
				a.savedSeq = seq
			}
		}
		a.saveMu.Unlock()
		select {
		case <-quit:
			return
		default:
		}
		system.Root.Send(self, prefsSaved{seq, err})
	}()
}

// prefsSaved shows a failed save on the page until a later one works.
func (a *Actor) prefsSaved(m prefsSaved) {
	if m.seq != a.prefsSeq {
		return // a newer save is on its way; it decides what the page says
	}
	was := a.st.prefsErr
	a.st.prefsErr = ""
	if m.err != nil {
		a.st.prefsErr = m.err.Error()
		a.h.Logger().Error("settings not saved: they apply until a restart", "err", m.err)
	}
	if a.st.prefsErr != was {
		a.refresh()
	}
}
