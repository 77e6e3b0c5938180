package ui

import (
	"fmt"
	"time"

	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/ui/prefs"
	"github.com/claude-pi/claude-pi/actors/ui/screens"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
)

// The pet's pages. The clock and the stats are pages of the home cycle:
// next from home goes Links, Stats, (Computers,) (System,) Clock, and
// back from home is the Clock at once. The settings are not a page: a long press
// of approve on home opens them (as a hold opens the forget question on
// Links), since two short presses there must never change a setting.
const (
	ScreenStats    Screen = "stats"
	ScreenClock    Screen = "clock"
	ScreenSettings Screen = "settings"
)

// statsPage is the page number of the stats; the clock is the last page.
const statsPage = 2

// NapMin is the shortest stretch of a sleeping screen that counts as the
// pet's nap. The Pi has no IMU to lie face down, so "nap" (the status
// ack's seconds, and what refills the energy) is the time the screen
// slept: it sleeps after the timeout when nobody is using it, which is
// the pet's rest. A blink shorter than this is not.
const NapMin = time.Minute

// The settings rows, in order.
const (
	rowSound = iota
	rowBrightness
	rowTimeout
	rowCharacter
	settingsRows
)

// settingsFlow is the settings page's part of the state.
type settingsFlow struct {
	open   bool
	cursor int
}

// Effects of the settings page, for the actor.
type (
	prefsChanged  struct{ p prefs.Prefs } // apply and save
	chooseSpecies struct{ idx int }       // abuddy.SetSpecies
)

func (s *state) clockPage() int { return s.pages() }

// settingsPress handles a button for the settings page: a long approve
// on home (begun while home was on the panel) opens it; on the page,
// approve changes the row under the cursor (a long approve without
// next/back keys, where a short one moves), next and back move the
// cursor, deny closes it. A press that began before the page was drawn
// does nothing: it was meant for what the panel showed then. A prompt
// always owns the buttons: screen() puts it above the page, and
// followPrompt closes the page when one shows. ok is false when the
// press is not the page's.
func (s *state) settingsPress(r Role, long bool, began, now time.Time) (fx []any, ok bool) {
	if !s.on {
		return nil, false
	}
	f := s.onScreen
	switch s.screen() {
	case ScreenHome:
		if !long || r != RoleApprove || f.screen != ScreenHome || began.Before(f.shownAt) {
			return nil, false
		}
		s.lastActive = now
		s.settings = settingsFlow{open: true}
		return nil, true
	case ScreenSettings:
	default:
		return nil, false
	}
	s.lastActive = now
	if f.screen != ScreenSettings || began.Before(f.shownAt) {
		return nil, true
	}
	if r == RoleApprove && !long && !s.pageKeys {
		r = RoleNext
	}
	switch r {
	case RoleNext:
		s.settings.cursor = (s.settings.cursor + 1) % settingsRows
	case RoleBack:
		s.settings.cursor = (s.settings.cursor + settingsRows - 1) % settingsRows
	case RoleDeny:
		s.settings = settingsFlow{}
	case RoleApprove:
		return s.change(), true
	}
	return nil, true
}

// change steps the value of the row under the cursor.
func (s *state) change() []any {
	p := s.prefs
	switch s.settings.cursor {
	case rowSound:
		p.Mute = !p.Mute
	case rowBrightness:
		p = p.NextBrightness()
	case rowTimeout:
		p = p.NextTimeout(s.timeout)
	case rowCharacter:
		idx := s.nextSpecies()
		s.speciesWanted = &idx
		return []any{chooseSpecies{idx}}
	}
	s.prefs = p
	return []any{prefsChanged{p}}
}

// species is the character to draw: the one chosen here until the buddy
// service's State says so, else the buddy's.
func (s *state) species() int {
	if s.speciesWanted != nil {
		return *s.speciesWanted
	}
	if s.buddy != nil {
		return s.buddy.Character()
	}
	return buddyactor.SpeciesDefault
}

// hasPack: a character pack is installed.
func (s *state) hasPack() bool { return s.buddy != nil && s.buddy.Pack != "" }

// nextSpecies is the choice after the current one: the built-ins in
// order, then the pack when one is installed, then round. The default
// counts as what it shows.
func (s *state) nextSpecies() int {
	cur := s.species()
	if cur == buddyactor.SpeciesDefault {
		cur = 0
		if s.hasPack() {
			cur = buddyactor.SpeciesPack
		}
	}
	switch {
	case cur >= 0 && cur < buddyactor.BuiltInSpecies-1:
		return cur + 1
	case cur == buddyactor.BuiltInSpecies-1 && s.hasPack():
		return buddyactor.SpeciesPack
	}
	return 0
}

// speciesName is what the Character row shows.
func (s *state) speciesName() string {
	sp := s.species()
	switch {
	case sp >= 0 && sp < len(screens.Species):
		return screens.Species[sp]
	case s.hasPack():
		return "pack " + s.buddy.Pack
	}
	return screens.Species[0]
}

// settingsView is the page as drawn.
func (s *state) settingsView(lg legend, dimmable bool) screens.SettingsView {
	sound := "on"
	if s.prefs.Mute {
		sound = "off"
	}
	off := "never"
	if t := s.prefs.Timeout(s.timeout); t != prefs.Never {
		off = "after " + shortDuration(t)
	}
	v := screens.SettingsView{Cursor: s.settings.cursor, Change: lg.approve, Close: lg.deny, Rows: []screens.SettingRow{
		{Label: "Sound", Value: sound},
		{Label: "Brightness", Value: fmt.Sprintf("%d%%", s.prefs.Percent())},
		{Label: "Screen off", Value: off},
		{Label: "Character", Value: s.speciesName()},
	}}
	if s.pageKeys {
		v.Move = lg.next + "/" + lg.back
	} else {
		v.Change, v.Move = "hold "+lg.approve, lg.approve
	}
	switch {
	case s.prefsErr != "":
		v.Note, v.NoteWarn = "not saved: "+s.prefsErr, true
	case s.settings.cursor == rowBrightness && !dimmable:
		v.Note = "this panel's backlight does not dim"
	case s.settings.cursor == rowTimeout:
		v.Note = "a prompt always keeps the screen on"
	}
	return v
}

// shortDuration is "15 s", "1 min", "5 min".
func shortDuration(d time.Duration) string {
	if d < time.Minute || d%time.Minute != 0 {
		return fmt.Sprintf("%d s", int(d/time.Second))
	}
	return fmt.Sprintf("%d min", int(d/time.Minute))
}

// asleep records the screen going off; woke turns the stretch into a
// nap for the buddy service when it lasted NapMin.
func (s *state) asleep(now time.Time) { s.offSince = now }

func (s *state) woke(now time.Time) {
	if !s.offSince.IsZero() && now.Sub(s.offSince) >= NapMin {
		s.nap = &buddyactor.Nap{Start: s.offSince, End: now}
	}
	s.offSince = time.Time{}
}

// takeNap returns the nap to send, once.
func (s *state) takeNap() *buddyactor.Nap {
	n := s.nap
	s.nap = nil
	return n
}

// desktopNow is the desktop's clock now, zero before its time arrived.
func (s *state) desktopNow(now time.Time) time.Time {
	if s.buddy == nil || s.buddy.Desktop == nil {
		return time.Time{}
	}
	return s.buddy.Desktop.Now(now)
}

// clockView is the clock page.
func (s *state) clockView(now time.Time, lg legend) screens.ClockView {
	v := screens.ClockView{Time: s.desktopNow(now), Page: s.clockPage(), Of: s.pages(), Next: lg.next, Back: lg.back}
	v.Today, v.HaveToday = s.today()
	return v
}

// today is the desktop's tokens_today, ok false before a heartbeat had
// it and while the desktop is away: its count of "today" may be of a day
// that has ended since.
func (s *state) today() (uint64, bool) {
	if b := s.buddy; b != nil && b.Connected && b.Snapshot != nil && b.Snapshot.Present.Has(pbuddy.FieldTokensToday) {
		return b.Snapshot.TokensToday, true
	}
	return 0, false
}

// statsView is the stats page.
func (s *state) statsView(now time.Time, lg legend) screens.StatsView {
	v := screens.StatsView{Page: statsPage, Of: s.pages(), Next: lg.next, Back: lg.back}
	b := s.buddy
	if b == nil {
		return v
	}
	st := b.Stats
	v.Loaded = true
	v.Mood, v.Energy, v.Fed, v.Level = st.Mood, st.Energy.At(now), st.Fed, st.Lvl
	v.Appr, v.Deny, v.Vel, v.Napped = st.Appr, st.Deny, st.Vel, time.Duration(min(st.Nap, 1<<32))*time.Second
	v.Today, v.HaveToday = s.today()
	return v
}
