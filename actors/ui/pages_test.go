package ui

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/buddy/stats"
	"github.com/claude-pi/claude-pi/actors/ui/prefs"
	"github.com/claude-pi/claude-pi/actors/ui/screens"
	"github.com/claude-pi/claude-pi/drivers/audio"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
)

// settingsPressAt presses r on the settings flow at now, held for hold,
// and draws the frame after it, as the actor does.
func settingsPressAt(s *state, r Role, hold time.Duration, now time.Time) (fx []any, ok bool) {
	fx, ok = s.settingsPress(r, hold >= 600*time.Millisecond, now.Add(-hold), now)
	s.settle(now)
	return fx, ok
}

// The settings page: a hold of approve on home opens it (not a hold begun
// before home was drawn, nor a short press); approve steps the row under
// the cursor, next and back move it, deny closes the page.
func TestSettingsPage(t *testing.T) {
	s := newState(t0, 30*time.Second, true)
	s.settle(t0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	if _, ok := settingsPressAt(s, RoleApprove, 0, at(time.Second)); ok || s.screen() != ScreenHome {
		t.Fatalf("a short approve on home: ok %v, screen %s; want it not the page's", ok, s.screen())
	}
	// A hold that began before home was on the panel was meant for what
	// was there then.
	s.page = linksPage
	s.settle(at(2 * time.Second))
	s.page = 0
	s.settle(at(3 * time.Second))
	if _, ok := s.settingsPress(RoleApprove, true, at(2500*time.Millisecond), at(3500*time.Millisecond)); ok || s.settings.open {
		t.Fatal("a hold begun on the Links page opened the settings on home")
	}
	if _, ok := settingsPressAt(s, RoleApprove, time.Second, at(5*time.Second)); !ok || s.screen() != ScreenSettings {
		t.Fatalf("a hold on home: ok %v, screen %s; want the settings", ok, s.screen())
	}
	// The hold that opened the page does not also change the first row.
	if s.prefs != prefs.Defaults() {
		t.Fatalf("opening the page changed %+v", s.prefs)
	}
	steps := []struct {
		r      Role
		cursor int
		want   prefs.Prefs
	}{
		{RoleApprove, rowSound, prefs.Prefs{Version: 1, Mute: true}},
		{RoleNext, rowBrightness, prefs.Prefs{Version: 1, Mute: true}},
		{RoleApprove, rowBrightness, prefs.Prefs{Version: 1, Mute: true, Brightness: 25}},
		{RoleNext, rowTimeout, prefs.Prefs{Version: 1, Mute: true, Brightness: 25}},
		{RoleApprove, rowTimeout, prefs.Prefs{Version: 1, Mute: true, Brightness: 25, TimeoutSec: 60}},
		{RoleBack, rowBrightness, prefs.Prefs{Version: 1, Mute: true, Brightness: 25, TimeoutSec: 60}},
		{RoleBack, rowSound, prefs.Prefs{Version: 1, Mute: true, Brightness: 25, TimeoutSec: 60}},
		{RoleBack, rowCharacter, prefs.Prefs{Version: 1, Mute: true, Brightness: 25, TimeoutSec: 60}},
	}
	for i, st := range steps {
		fx, ok := settingsPressAt(s, st.r, 0, at(time.Duration(10+i)*time.Second))
		if !ok || s.settings.cursor != st.cursor || s.prefs != st.want {
			t.Fatalf("step %d (%s): ok %v cursor %d prefs %+v, want cursor %d prefs %+v", i, st.r, ok, s.settings.cursor, s.prefs, st.cursor, st.want)
		}
		if st.r == RoleApprove && (len(fx) != 1 || fx[0] != prefsChanged{st.want}) {
			t.Fatalf("step %d: effects %#v, want the change to apply and save", i, fx)
		}
	}
	if off := s.offAt(); !off.Equal(at(17 * time.Second).Add(time.Minute)) {
		t.Fatalf("offAt = %v, want a minute after the last press (the new timeout)", off)
	}
	if fx, ok := settingsPressAt(s, RoleDeny, 0, at(30*time.Second)); !ok || len(fx) != 0 || s.screen() != ScreenHome {
		t.Fatalf("deny: ok %v fx %#v screen %s; want home and nothing else", ok, fx, s.screen())
	}
}

// The Character row steps through the built-ins, then the pack when one
// is installed; the page shows the choice before the buddy confirms it.
func TestSettingsCharacter(t *testing.T) {
	s := newState(t0, 30*time.Second, true)
	s.apply(buddyactor.State{Pack: "bufo"}, t0)
	s.settings = settingsFlow{open: true, cursor: rowCharacter}
	s.settle(t0)
	if got := s.speciesName(); got != "pack bufo" {
		t.Fatalf("with a pack and no choice the row says %q, want the pack", got)
	}
	var got []int
	for i := range 6 {
		fx, _ := settingsPressAt(s, RoleApprove, 0, t0.Add(time.Duration(i+1)*time.Second))
		if len(fx) != 1 {
			t.Fatalf("press %d: effects %#v", i, fx)
		}
		got = append(got, fx[0].(chooseSpecies).idx)
	}
	if want := []int{0, 1, 2, 3, buddyactor.SpeciesPack, 0}; !slices.Equal(got, want) {
		t.Fatalf("species steps %v, want %v", got, want)
	}
	if s.speciesName() != screens.Species[0] {
		t.Fatalf("the row says %q before the buddy answered, want %q", s.speciesName(), screens.Species[0])
	}
	// The buddy's State confirms the choice and the page follows it.
	s.apply(buddyactor.State{Pack: "bufo", Species: 0, SpeciesChosen: true}, t0)
	if s.speciesWanted != nil || s.species() != 0 {
		t.Fatalf("after the buddy's State: wanted %v species %d", s.speciesWanted, s.species())
	}
	// Without a pack the pack is never offered.
	n := newState(t0, 30*time.Second, true)
	n.apply(buddyactor.State{Species: 3, SpeciesChosen: true}, t0)
	if got := n.nextSpecies(); got != 0 {
		t.Fatalf("after the last built-in without a pack: %d, want 0", got)
	}
}

// A prompt always owns the buttons: it takes the screen from the
// settings page, which is closed afterwards, and a press meant for the
// prompt never changes a setting.
func TestSettingsYieldToPrompt(t *testing.T) {
	s := newState(t0, 30*time.Second, true)
	s.settings = settingsFlow{open: true, cursor: rowSound}
	s.settle(t0)
	s.apply(approvals.PromptAppeared{Prompt: prompt("p1")}, t0.Add(time.Second))
	if s.screen() != ScreenApproval {
		t.Fatalf("a prompt over the settings page: %s", s.screen())
	}
	if _, ok := settingsPressAt(s, RoleApprove, 0, t0.Add(2*time.Second)); ok {
		t.Fatal("the settings page took a press while a prompt showed")
	}
	if d, ok := s.press(RoleApprove, t0.Add(3*time.Second), t0.Add(3*time.Second)); !ok || d.ID != "p1" {
		t.Fatalf("approve on the prompt: %+v %v", d, ok)
	}
	s.apply(approvals.PromptResolved{Prompt: prompt("p1"), How: approvals.ApprovedHere}, t0.Add(4*time.Second))
	s.settle(t0.Add(4 * time.Second))
	if s.screen() != ScreenHome || s.prefs != prefs.Defaults() {
		t.Fatalf("after the prompt: %s, prefs %+v; want home and nothing changed", s.screen(), s.prefs)
	}
	// A hold that began on the prompt and ended on home opens nothing.
	if _, ok := s.settingsPress(RoleApprove, true, t0.Add(3500*time.Millisecond), t0.Add(5*time.Second)); ok {
		t.Fatal("a hold begun on the prompt opened the settings")
	}
}

// Without next/back keys a short approve moves the cursor and a hold
// changes the value.
func TestSettingsWithoutPageKeys(t *testing.T) {
	s := newState(t0, 30*time.Second, false)
	s.settings = settingsFlow{open: true}
	s.settle(t0)
	settingsPressAt(s, RoleApprove, 0, t0.Add(time.Second))
	if s.settings.cursor != rowBrightness || s.prefs != prefs.Defaults() {
		t.Fatalf("short approve: cursor %d prefs %+v, want the next row and no change", s.settings.cursor, s.prefs)
	}
	settingsPressAt(s, RoleApprove, time.Second, t0.Add(3*time.Second))
	if s.prefs.Percent() != 25 {
		t.Fatalf("a hold: brightness %d%%, want 25%%", s.prefs.Percent())
	}
	if v := s.settingsView(legend{approve: "A", deny: "B", next: "A", back: "B"}, true); v.Change != "hold A" || v.Move != "A" {
		t.Fatalf("legend %q/%q, want hold A to change and A to move", v.Change, v.Move)
	}
}

// "Never" keeps the screen on; the screen going off closes the page.
func TestScreenTimeoutSetting(t *testing.T) {
	s := newState(t0, 30*time.Second, true)
	s.settings = settingsFlow{open: true}
	s.tick(t0.Add(31 * time.Second))
	if s.on || s.settings.open {
		t.Fatalf("after 31 s: on %v, settings open %v; want off and closed", s.on, s.settings.open)
	}
	s = newState(t0, 30*time.Second, true)
	s.prefs.TimeoutSec = -1
	if !s.offAt().IsZero() {
		t.Fatalf("offAt with never = %v", s.offAt())
	}
	s.tick(t0.Add(24 * time.Hour))
	if !s.on {
		t.Fatal("the screen went off with the timeout set to never")
	}
}

// The screen's sleep is the pet's nap: a minute or more of it goes to
// the buddy once, a shorter one not at all.
func TestNapIsTheScreenAsleep(t *testing.T) {
	s := newState(t0, 30*time.Second, true)
	s.tick(t0.Add(30 * time.Second))
	s.press(RoleNext, t0.Add(80*time.Second), t0.Add(80*time.Second))
	if n := s.takeNap(); n != nil {
		t.Fatalf("50 s asleep was a nap: %+v", n)
	}
	s.tick(t0.Add(2 * time.Minute))
	wake := t0.Add(20 * time.Minute)
	s.apply(approvals.PromptAppeared{Prompt: prompt("p1")}, wake)
	n := s.takeNap()
	if n == nil || !n.Start.Equal(t0.Add(2*time.Minute)) || !n.End.Equal(wake) {
		t.Fatalf("nap = %+v, want 2 min to 20 min", n)
	}
	if s.takeNap() != nil {
		t.Fatal("the nap was taken twice")
	}
}

// The clock shows nothing it does not know: no time before the desktop
// sent one; then the desktop's time in its zone, ticking on locally.
func TestClockPage(t *testing.T) {
	s := newState(t0, 30*time.Second, true)
	lg := legendOf(DefaultRoles)
	if v := s.clockView(t0, lg); !v.Time.IsZero() || v.HaveToday {
		t.Fatalf("before any time line: %+v", v)
	}
	// The desktop's clock is 3 s ahead of ours, in UTC-7.
	desk := &buddyactor.DesktopClock{Epoch: t0.Unix() + 3, Offset: -7 * 3600, Received: t0}
	hb := &pbuddy.Heartbeat{TokensToday: 880, Present: pbuddy.FieldTokensToday}
	s.apply(buddyactor.State{Desktop: desk, Snapshot: hb}, t0)
	if _, ok := s.today(); ok {
		t.Fatal("today's tokens shown while the desktop is away")
	}
	s.apply(buddyactor.State{Connected: true, Desktop: desk, Snapshot: hb}, t0)
	v := s.clockView(t0.Add(90*time.Second), lg)
	if got := v.Time.Format("15:04:05 -0700"); got != "03:01:33 -0700" {
		t.Fatalf("90 s later the clock says %s, want 03:01:33 -0700", got)
	}
	if !v.HaveToday || v.Today != 880 {
		t.Fatalf("today = %d (%v), want 880", v.Today, v.HaveToday)
	}
	// The desktop gone, its clock still ticks here.
	s.apply(buddyactor.State{Desktop: desk, Snapshot: hb}, t0)
	if v := s.clockView(t0.Add(time.Hour), lg); v.Time.IsZero() || v.HaveToday {
		t.Fatalf("an hour after the desktop left: %+v, want the time and no day count", v)
	}
	s.page = s.clockPage()
	if s.screen() != ScreenClock {
		t.Fatalf("the last page is %s, want the clock", s.screen())
	}
}

// The stats page reads the buddy's stats, and the energy decays on its
// own between States.
func TestStatsPage(t *testing.T) {
	s := newState(t0, 30*time.Second, true)
	if v := s.statsView(t0, legend{}); v.Loaded {
		t.Fatal("stats loaded before the buddy's State")
	}
	s.apply(buddyactor.State{Stats: buddyactor.StatsView{Report: stats.Report{Appr: 5, Deny: 1, Vel: 20, Nap: 600, Lvl: 3}, Fed: 7, Mood: 3,
		Energy: stats.Energy{Level: 5, Since: t0}}}, t0)
	v := s.statsView(t0.Add(5*time.Hour), legend{})
	if !v.Loaded || v.Mood != 3 || v.Fed != 7 || v.Level != 3 || v.Energy != 3 || v.Napped != 10*time.Minute || v.Appr != 5 || v.Deny != 1 {
		t.Fatalf("stats page %+v", v)
	}
}

// nextOther is the next SetSpecies or Nap the fake buddy got.
func (r *rig) nextOther(t *testing.T) any {
	t.Helper()
	select {
	case m := <-r.other:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("nothing reached the buddy")
	}
	return nil
}

// End to end on the actor: the settings page changes what the buttons
// set, asks the buddy for a species, and the settings
// come back after a restart of the ui from ui.json; the sleeping screen
// sends its nap to the buddy.
func TestSettingsOnTheActor(t *testing.T) {
	dir := t.TempDir()
	r := newRig(t, func(c *Config) { c.DataDir = dir })
	r.clk.advance(time.Second)
	r.pressHold(t, "A", time.Second) // open the settings
	r.waitFor(t, "the settings page", func() bool { return r.view(t).Screen == ScreenSettings })
	r.press(t, "A") // sound off
	r.press(t, "Y") // up to the character row
	r.press(t, "A") // the next species: Tabby
	if m, ok := r.nextOther(t).(buddyactor.SetSpecies); !ok || m.Idx != 1 {
		t.Fatalf("the buddy got %+v, want SetSpecies 1", m)
	}
	r.waitFor(t, "Tabby drawn", func() bool { v := r.view(t); return v.Character == "Tabby" && v.Species == 1 })
	r.waitFor(t, "ui.json written", func() bool {
		// Not prefs.Load: it clears stale temporary files, which would
		// race the save in flight.
		b, err := os.ReadFile(filepath.Join(dir, prefs.File))
		p, derr := prefs.Decode(b)
		return err == nil && derr == nil && p.Mute
	})
	r.press(t, "B") // done
	if v := r.view(t); v.Screen != ScreenHome || !v.Prefs.Mute || v.SettingsRow != 0 {
		t.Fatalf("after done: %s prefs %+v row %d", v.Screen, v.Prefs, v.SettingsRow)
	}
	if err := r.tree.StopProcess("ui", true); err != nil {
		t.Fatal(err)
	}
	if err := r.tree.StartProcess("ui", true); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, "the restarted ui's settings", func() bool { return r.stats(t).Frames > 0 && r.view(t).Prefs.Mute })

	// The screen sleeps after its timeout, and a press a few minutes
	// later wakes it: that was a nap.
	r.clk.advance(31 * time.Second)
	r.waitFor(t, "the screen off", func() bool { return r.view(t).Screen == ScreenOff })
	r.clk.advance(5 * time.Minute)
	r.press(t, "X")
	n, ok := r.nextOther(t).(buddyactor.Nap)
	if !ok || n.End.Sub(n.Start) < 5*time.Minute {
		t.Fatalf("the buddy got %+v, want a nap of at least 5 minutes", n)
	}
}

// Sound off drops every chime before it is queued; sound on queues it.
func TestMuteDropsChimes(t *testing.T) {
	a := &Actor{st: newState(t0, 30*time.Second, true), chimes: make(chan audio.Chime, 4)}
	a.st.prefs.Mute = true
	a.play(audio.ChimePrompt)
	a.play(audio.ChimeApprove)
	if n := len(a.chimes); n != 0 {
		t.Fatalf("%d chimes queued with the sound off", n)
	}
	a.st.prefs.Mute = false
	a.play(audio.ChimePrompt)
	if n := len(a.chimes); n != 1 {
		t.Fatalf("%d chimes queued with the sound on, want 1", n)
	}
}
