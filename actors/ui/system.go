package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/drivers/updates"
)

// The System page: when Debian's updates last ran and whether a reboot
// waits, from what apt and unattended-upgrades leave on disk
// (drivers/updates, the same reading and the same limits as `claude-pi
// doctor`). A Pi left on a desk for years is only safe while those run.
//
// Reading is file I/O, so it never happens in a frame: the actor reads in
// a goroutine when the page comes on the panel, and again while it stays
// there once the last reading is UpdatesEvery old, and frames draw the
// last reading.

// UpdatesEvery is how old a reading of the update status may get while
// the System page stays on the panel. The stamps change once a day at
// most; a few minutes' lag costs nothing, a read per frame would.
const UpdatesEvery = 5 * time.Minute

// updatesRead is a reading, sent to the actor by the goroutine that made
// it; at is when it began, on Config.Now.
type updatesRead struct {
	st  updates.Status
	err error
	at  time.Time
}

// readUpdates starts a reading when the System page is on the panel and
// it just came on (entered) or the last reading is UpdatesEvery old,
// unless one is under way.
func (a *Actor) readUpdates(now time.Time, entered bool) {
	if a.cfg.Updates == nil || a.updReading || a.stopped {
		return
	}
	if !entered && a.upd != nil && now.Sub(a.upd.at) < UpdatesEvery {
		return
	}
	a.updReading = true
	read, system, self, quit := a.cfg.Updates, a.system, a.self, a.quit
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		st, err := read()
		select {
		case <-quit:
			return // stopped meanwhile: nobody is left to show it
		default:
		}
		system.Root.Send(self, updatesRead{st: st, err: err, at: now})
	}()
}

func (a *Actor) updatesRead(m updatesRead) {
	a.updReading = false
	if m.err != nil {
		// Read still returns what it could read: the page shows that.
		a.h.Logger().Warn("update status partly unreadable: the System page shows what was read",
			"err", m.err, "fix", "sudo claude-pi doctor checks the same files")
	}
	a.upd = &m
	if a.st.screen() == ScreenInfo && a.st.page == a.st.systemPage() {
		a.refresh()
	}
}

// systemRows lists the update rows of reading u (nil: none yet), judged
// at now with updates.Check and its limits, so the page warns when
// doctor does.
func systemRows(u *updatesRead, now time.Time, row func(label, value string, warn bool)) {
	if u == nil {
		row("Updates", "reading…", false)
		return
	}
	st := u.st
	if !st.Installed {
		row("Updates", "not installed", true)
	} else {
		up := updates.Check(st, now)[0] // the security updates' finding
		last := st.LastComplete()
		when := "never"
		if !last.IsZero() {
			when = agoShort(now, last)
		}
		row("Updated", when, !up.OK)
		if st.LastError != "" {
			msg := st.LastError
			if i := strings.Index(msg, " ERROR "); i >= 0 {
				msg = msg[i+len(" ERROR "):]
			}
			row("Last run", "error: "+msg, true)
		}
	}
	// The packages write reboot-required with or without
	// unattended-upgrades; Check's limit applies either way.
	if st.RebootSince.IsZero() {
		row("Reboot", "not needed", false)
	} else {
		late := now.Sub(st.RebootSince) > updates.RebootLateAfter
		row("Reboot", "waiting "+spanShort(now.Sub(st.RebootSince)), late)
		// The packages get a row of their own: a long name ellipsized in
		// the middle must not eat the wait.
		if len(st.RebootPkgs) > 0 {
			row("Asked by", firstAndCount(st.RebootPkgs), false)
		}
	}
	// A cut install stops every later update until it is finished
	// (claude-pi-recover.service does that at boot; doctor says how).
	if n := len(st.Unfinished); n > 0 || st.DpkgInterrupted {
		v := "dpkg interrupted"
		if n > 0 {
			names := make([]string, n)
			for i, p := range st.Unfinished {
				names[i] = p.Name
			}
			v = "unfinished: " + firstAndCount(names)
		}
		row("Packages", v, true)
	}
	// Claude_Pi's own upgrade (packaging/deb's health-check): a rollback
	// under way or done warns; the version being checked does not.
	switch {
	case st.RollingBack != nil:
		row("Update", "rolling back "+st.RollingBack.Bad, true)
	case st.RolledBack != nil:
		row("Update", "rolled back "+st.RolledBack.Bad, true)
		row("Why", st.RolledBack.Reason, true)
	case st.Checking != nil:
		row("Update", "checking "+st.Checking.Bad, false)
	}
	if u.err != nil {
		row("Read", "failed: see the log", true)
	}
}

// firstAndCount is "first" or "first +N" for a row's width.
func firstAndCount(names []string) string {
	if len(names) > 1 {
		return fmt.Sprintf("%s +%d", names[0], len(names)-1)
	}
	return names[0]
}

// agoShort is "12 min ago", "5 h ago" or "3 d ago" for a row's width.
func agoShort(now, t time.Time) string {
	d := now.Sub(t)
	if d < -time.Minute {
		return "in the future: clock?"
	}
	return spanShort(d) + " ago"
}

func spanShort(d time.Duration) string {
	d = max(d, 0)
	switch {
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d/time.Hour))
	}
	return fmt.Sprintf("%d d", int(d/(24*time.Hour)))
}
